package io.pqssh.lab.pending;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Holds real pending challenges / PK_OKs against a pqssh server child JVM. */
class PendingLabTest {
    @TempDir
    Path dir;

    @Test
    void heldConnectionsAreCountedByTheServerAndFitted() throws Exception {
        PendingLab.Report r = PendingLab.run(new PendingLab.Settings(List.of(0, 6, 12, 24), List.of("kem", "mldsa65"),
                dir.resolve("work"), Duration.ofSeconds(20), 4), null);
        assertEquals(8, r.points().size());
        for (PendingLab.Point p : r.points()) {
            assertEquals(p.target(), p.observed(), p.toString());
            // the server's own limiter count: every held KEM connection has exactly one pending challenge
            assertEquals(p.method().equals("kem") ? p.target() : 0, p.serverPendingKem(), p.toString());
            assertEquals(0, p.pendingAfterRelease(), "pending count did not return to 0: " + p);
            assertTrue(p.heapAfterGcBytes() > 0 && p.rssBytes() > 0, p.toString());
        }
        assertEquals(53, r.explicitStateBytes());
        assertEquals(2384, r.referenceExplicitStateBytes());
        assertEquals(4, r.fits().size());
        for (PendingLab.Fit f : r.fits()) {
            assertEquals(4, f.points());
            if (f.metric().equals("heap_after_gc")) {
                // a held connection (MINA session, buffers, KEX state) costs heap; a negative slope means a broken fit
                assertTrue(f.slope() > 0, f.toString());
            }
        }
        PendingLab.write(dir.resolve("out"), r);
        JsonNode j = new ObjectMapper().readTree(dir.resolve("out/pending.json").toFile());
        assertEquals(53, j.get("explicit_state_bytes").asInt());
        assertEquals(8, j.get("points").size());
        assertTrue(j.get("fits").get(0).has("bytes_per_pending"));
        assertEquals(9, Files.readAllLines(dir.resolve("out/pending.csv")).size());
        assertTrue(Files.readString(dir.resolve("out/pending.md")).contains("**53 bytes**"));
        long end = System.nanoTime() + 5_000_000_000L;
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            if (System.nanoTime() > end) {
                fail("server process left behind");
            }
            Thread.sleep(100);
        }
    }

    @Test
    void leastSquaresFitIsExact() {
        List<PendingLab.Point> ps = List.of(new PendingLab.Point("m", 0, 0, 0, 1000, 5000, 0),
                new PendingLab.Point("m", 10, 10, 0, 1530, 5000, 0), new PendingLab.Point("m", 20, 20, 0, 2060, 5000, 0));
        PendingLab.Fit f = PendingLab.fit("m", "heap_after_gc", ps, true);
        assertEquals(53.0, f.slope(), 1e-9);
        assertEquals(1000.0, f.intercept(), 1e-9);
        assertEquals(1.0, f.r2(), 1e-9);
    }
}
