package io.pqssh.lab.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab's per-server cgroup counts the CPU of a process the server did not wait for, which /proc's cutime does
 * not (sshd's monitor leaves a non-root login's user-side process to init). Needs root and a cgroup2 mount (CI and
 * the lab machine have both): fails, not skips, without them.
 */
class ServerCgroupTest {
    @TempDir
    Path dir;

    static void requireRootAndCgroup2() {
        if (!LabAccount.isRoot()) {
            fail("ServerCgroupTest needs root (it creates a cgroup v2 directory); CI runs as root");
        }
        if (ServerCgroup.cgroup2Mount().isEmpty()) {
            fail("ServerCgroupTest needs a cgroup2 mount (/proc/self/mountinfo has none)");
        }
    }

    @Test
    void countsTheCpuOfAChildTheServerDidNotWaitFor() throws Exception {
        requireRootAndCgroup2();
        Path done = dir.resolve("done");
        // the "server": waits for a line on stdin (so it is in the cgroup before it forks), then runs a middle shell
        // that starts a busy grandchild in the background and exits at once; the server waits for the middle shell
        // only, so the grandchild is reparented away from it, like sshd's post-authentication child. ~0.7 s of CPU
        String busy = "i=0; while [ $i -lt 600000 ]; do i=$((i+1)); done; touch " + done;
        String server = "read x; sh -c '(" + busy + ") & exit 0'; n=0; while [ ! -e " + done
                + " ] && [ $n -lt 1200 ]; do sleep 0.1; n=$((n+1)); done; sleep 30";
        Process p = new ProcessBuilder("/bin/sh", "-c", server).redirectErrorStream(true).start();
        ServerCgroup cg = ServerCgroup.create("test");
        Path cgDir = cg.dir();
        try {
            cg.add(p.pid());
            assertEquals(java.util.List.of(p.pid()), cg.pids());
            long cg0 = cg.cpuMicros().orElseThrow();
            long proc0 = ProcStats.cpuMillis(p.pid()).orElseThrow();
            try (OutputStream in = p.getOutputStream()) {
                in.write("go\n".getBytes(StandardCharsets.US_ASCII));
            }
            long end = System.nanoTime() + 150_000_000_000L;
            while (!Files.exists(done) && System.nanoTime() < end) {
                Thread.sleep(100);
            }
            assertTrue(Files.exists(done), "the busy loop did not finish in 150 s");
            Thread.sleep(300);
            long cgMs = (cg.cpuMicros().orElseThrow() - cg0) / 1000;
            long procMs = ProcStats.cpuMillis(p.pid()).orElseThrow() - proc0;
            // the cgroup has the grandchild's loop; the server's /proc line has only what it waited for
            assertTrue(cgMs >= 300, "cgroup: " + cgMs + " ms");
            assertTrue(cgMs - procMs >= 250, "cgroup " + cgMs + " ms, /proc " + procMs + " ms");
            assertTrue(p.isAlive());
        } finally {
            cg.close();
        }
        // close() ended what was in it (the server's sleep) and removed the directory
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the server outlived close()");
        assertFalse(Files.exists(cgDir), cgDir + " is still there");
    }

    @Test
    void cpuStatParsing() throws IOException {
        Path f = dir.resolve("cpu.stat");
        Files.writeString(f, "usage_usec 123456\nuser_usec 100000\nsystem_usec 23456\n");
        assertEquals(123456L, ServerCgroup.usageMicros(f).orElseThrow());
        Files.writeString(f, "user_usec 1\n");
        assertTrue(ServerCgroup.usageMicros(f).isEmpty());
        assertTrue(ServerCgroup.usageMicros(dir.resolve("none")).isEmpty());
    }
}
