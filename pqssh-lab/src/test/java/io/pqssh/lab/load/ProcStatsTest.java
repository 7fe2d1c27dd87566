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
            long end = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < end) {
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
            assertTrue(burned.await(20, TimeUnit.SECONDS));
            long mine = ProcStats.threadCpuMillis(pid, List.of("procstats-live")).orElseThrow();
            long all = ProcStats.cpuMillis(pid).orElseThrow();
            // ~300 ms of spinning in 10 ms ticks; a loaded machine may give the thread less CPU than wall time
            assertTrue(mine >= 50 && mine <= all, mine + " ms of " + all + " ms");
        } finally {
            release.countDown();
            live.join();
        }
        assertTrue(ProcStats.threadCpuMillis(pid, ProcStats.JIT_THREADS).orElseThrow() >= 0);
        assertTrue(ProcStats.threadCpuMillis(Long.MAX_VALUE, ProcStats.JIT_THREADS).isEmpty());
    }
}
