package io.pqssh.lab.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class ProcStatsTest {
    @Test
    void threadCpuCountsOnlyTheNamedThreads() throws Exception {
        long pid = ProcessHandle.current().pid();
        assertEquals(0, ProcStats.threadCpuMillis(pid, List.of("procstats-live")).orElseThrow());
        CountDownLatch burned = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        long[] sink = {0};
        Thread live = new Thread(() -> {
            // 300 ms of this thread's own CPU (not of wall time: a loaded machine gave it 30 ms in 300 ms), at most 20 s
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long giveUp = System.nanoTime() + 20_000_000_000L;
            while (mx.getCurrentThreadCpuTime() < 300_000_000L && System.nanoTime() < giveUp) {
                sink[0] += System.nanoTime() % 7;
            }
            burned.countDown();
            try {
                // stay alive (listed in /proc/PID/task) until read
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "procstats-live");
        live.start();
        try {
            assertTrue(burned.await(30, TimeUnit.SECONDS));
            long mine = ProcStats.threadCpuMillis(pid, List.of("procstats-live")).orElseThrow();
            long all = ProcStats.cpuMillis(pid).orElseThrow();
            // ~300 ms of the thread's CPU, counted by /proc in 10 ms ticks
            assertTrue(mine >= 250 && mine <= all, mine + " ms of " + all + " ms");
        } finally {
            release.countDown();
            live.join();
        }
        assertTrue(ProcStats.threadCpuMillis(pid, ProcStats.JIT_THREADS).orElseThrow() >= 0);
        assertTrue(ProcStats.threadCpuMillis(Long.MAX_VALUE, ProcStats.JIT_THREADS).isEmpty());
    }
}
