package io.pqssh.lab.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 7 item 4, the CI version: 64 workers doing publickey-kem (ML-KEM-768) logins against a pqssh server child
 * JVM for 60 s. Zero failed logins, every client login counted by the server, and the server's heap after a full
 * GC at the end no more than 32 MiB above the heap after GC at the start (no state retained per login). The long
 * version is {@code pqssh lab load --servers pqssh --methods kem --workers 64 --duration 600}.
 */
class SoakTest {
    static final int WORKERS = 64;
    static final Duration WARMUP = Duration.ofSeconds(2);
    static final Duration SOAK = Duration.ofSeconds(60);
    static final long HEAP_SLACK_BYTES = 32L * 1024 * 1024;

    @TempDir
    Path dir;

    @Test
    void sixtySecondsOf64WorkersWithoutFailuresOrHeapGrowth() throws Exception {
        LabKeys keys = LabKeys.create(dir.resolve("keys"));
        LoadLab.Settings s = new LoadLab.Settings(List.of("pqssh"), List.of(LoadMethod.KEM_MLKEM768),
                List.of(WORKERS), WARMUP, SOAK, dir, null, null, Duration.ofSeconds(30));
        try (ServerProcess.Pqssh server = (ServerProcess.Pqssh) LoadLab.server(s, keys, "pqssh",
                dir.resolve("pqssh"))) {
            server.start();
            long heapStart = server.heapAfterGc(1);
            LoadGenerator gen = new LoadGenerator(keys, LoadMethod.KEM_MLKEM768,
                    List.of("sntrup761x25519-sha512"), s.timeout());
            LoadGenerator.Window w;
            try {
                w = gen.run(server.port(), WORKERS, WARMUP, SOAK, () -> { }, null);
            } finally {
                gen.close();
            }
            assertTrue(server.isAlive(), () -> "server died during the soak:\n" + LoadLab.tail(server.logText()));
            Thread.sleep(300); // the server's stats file is rewritten every few hundred ms
            long heapEnd = server.heapAfterGc(2);
            long pending = server.stats().getOrDefault("pending_kem", -1L);
            System.out.printf(Locale.ROOT,
                    "soak: %d workers, %.1f s, %d logins (%.1f/s), failures %s, p95 %.1f ms, server heap after GC "
                            + "start %.1f MiB, end %.1f MiB, pending KEM challenges at end %d%n",
                    WORKERS, w.seconds(), w.successes(), w.successes() / w.seconds(), w.failures(),
                    w.latencyMicros().getValueAtPercentile(95) / 1000.0, heapStart / 1048576.0,
                    heapEnd / 1048576.0, pending);
            assertEquals(0, w.failureCount(), () -> "failed logins: " + w.failures() + "\n"
                    + LoadLab.tail(server.logText()));
            assertTrue(w.successes() >= WORKERS, "only " + w.successes() + " logins in " + w.seconds() + " s");
            assertEquals(gen.loginsTotal(), server.authenticatedCount().orElseThrow(),
                    "logins counted by the client and by the server");
            assertEquals(0, pending, "pending KEM challenges left after the soak");
            assertTrue(heapStart > 0 && heapEnd > 0, "heap after GC not reported");
            assertTrue(heapEnd <= heapStart + HEAP_SLACK_BYTES, String.format(Locale.ROOT,
                    "server heap after GC grew from %.1f to %.1f MiB", heapStart / 1048576.0, heapEnd / 1048576.0));
        }
    }
}
