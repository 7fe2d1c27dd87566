package io.pqssh.lab.sidechannel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.core.auth.ChallengeRejectedException;
import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.kem.KemAlgorithm;

class DecapsTimingLabTest {
    @TempDir
    Path dir;

    @Test
    void quickRunWritesAllEightClasses() throws Exception {
        DecapsTimingLab.Report r = DecapsTimingLab.run(DecapsTimingLab.Settings.quick(KemAlgorithm.MLKEM768), null);
        DecapsTimingLab.write(dir, r);
        JsonNode json = new ObjectMapper().readTree(dir.resolve("decaps-timing.json").toFile());
        assertEquals("mlkem768", json.get("algorithm").asText());
        JsonNode results = json.get("results");
        assertEquals(14, results.size(), results.toString());
        Set<String> client = new HashSet<>();
        Set<String> raw = new HashSet<>();
        for (JsonNode o : results) {
            for (String f : List.of("path", "class", "ciphertext_bytes", "same_length", "median_ns", "p90_ns",
                    "mean_ns", "n", "round_medians_ns")) {
                assertTrue(o.has(f), "missing " + f + " in " + o);
            }
            assertTrue(o.get("median_ns").asDouble() > 0 && o.get("n").asLong() > 0, o.toString());
            String cls = o.get("class").asText();
            int len = o.get("ciphertext_bytes").asInt();
            assertEquals(cls.equals("truncated-1") ? 1087 : cls.equals("extended-1") ? 1089 : 1088, len, cls);
            assertTrue((o.get("path").asText().equals("client") ? client : raw).add(cls), "duplicate " + o);
        }
        Set<String> all = new HashSet<>();
        for (CiphertextClass c : CiphertextClass.values()) {
            all.add(c.id());
        }
        assertEquals(Set.of("valid", "one-bit", "one-percent-bits", "random", "all-zero", "all-ff", "truncated-1",
                "extended-1"), all);
        assertEquals(all, client);
        assertEquals(6, raw.size());
        assertFalse(raw.contains("truncated-1") || raw.contains("extended-1"));
        for (String f : List.of("client_same_length_spread_pct", "raw_same_length_spread_pct",
                "max_same_length_spread_pct")) {
            assertTrue(json.get(f).isNumber() && json.get(f).asDouble() >= 0, f + " in " + json);
        }
        assertEquals(0.5, json.get("reference_spread_pct").asDouble());
        assertEquals(1, json.get("rounds").asInt());
        String md = Files.readString(dir.resolve("decaps-timing.md"));
        assertTrue(md.contains("| extended-1 | 1089 |") && md.contains("rejected before decapsulation")
                && md.contains("Max spread"), md);
    }

    @Test
    void classesDeriveTheDescribedCiphertexts() throws Exception {
        KemAlgorithm a = KemAlgorithm.MLKEM768;
        byte[] valid = DecapsTimingBenchmark.Inputs.create(a, CiphertextClass.VALID).challenge.ciphertext();
        assertEquals(1088, valid.length);
        assertEquals(1, diffBits(valid, CiphertextClass.ONE_BIT.derive(valid, new Random(1))));
        assertEquals(87, diffBits(valid, CiphertextClass.ONE_PERCENT_BITS.derive(valid, new Random(1))));
        assertNotEquals(0, diffBits(valid, CiphertextClass.RANDOM.derive(valid, new Random(1))));
        assertTrue(allEqual(CiphertextClass.ALL_ZERO.derive(valid, new Random(1)), (byte) 0));
        assertTrue(allEqual(CiphertextClass.ALL_FF.derive(valid, new Random(1)), (byte) 0xff));
        assertTrue(Arrays.equals(Arrays.copyOf(valid, 1087), CiphertextClass.TRUNCATED.derive(valid, new Random(1))));
        byte[] ext = CiphertextClass.EXTENDED.derive(valid, new Random(1));
        assertEquals(1089, ext.length);
        // the benchmark's inputs are what the classes claim: valid answers, the wrong-length ones are refused
        for (CiphertextClass c : CiphertextClass.values()) {
            DecapsTimingBenchmark.Inputs in = DecapsTimingBenchmark.Inputs.create(a, c);
            if (c.sameLength()) {
                assertEquals(32, KemAuthClient.respond(in.sessionId, in.request, in.challenge, in.key).length, c.id());
            } else {
                assertThrows(ChallengeRejectedException.class,
                        () -> KemAuthClient.respond(in.sessionId, in.request, in.challenge, in.key), c.id());
            }
        }
        assertThrows(IllegalArgumentException.class, () -> CiphertextClass.parse("bogus"));
    }

    @Test
    void medianOfRoundMedians() {
        assertEquals(2.0, DecapsTimingLab.median(new double[] {3, 1, 2}));
        assertEquals(2.5, DecapsTimingLab.median(new double[] {4, 1, 2, 3}));
        assertThrows(IllegalArgumentException.class, () -> DecapsTimingLab.run(
                DecapsTimingLab.Settings.quick(KemAlgorithm.MLKEM768).withRounds(0), null));
    }

    @Test
    void spreadIsMaxMinusMinOverMinOfSameLengthMedians() {
        List<DecapsTimingLab.ClassTiming> ts = List.of(
                new DecapsTimingLab.ClassTiming("client", "valid", 1088, true, 100, 0, 0, 1, List.of()),
                new DecapsTimingLab.ClassTiming("client", "random", 1088, true, 101, 0, 0, 1, List.of()),
                new DecapsTimingLab.ClassTiming("client", "truncated-1", 1087, false, 5, 0, 0, 1, List.of()),
                new DecapsTimingLab.ClassTiming("raw", "valid", 1088, true, 50, 0, 0, 1, List.of()),
                new DecapsTimingLab.ClassTiming("raw", "all-zero", 1088, true, 51, 0, 0, 1, List.of()));
        assertEquals(1.0, DecapsTimingLab.spread(ts, "client"), 1e-9);
        assertEquals(2.0, DecapsTimingLab.spread(ts, "raw"), 1e-9);
        assertThrows(IllegalStateException.class, () -> DecapsTimingLab.spread(ts.subList(0, 1), "client"));
    }

    private static int diffBits(byte[] a, byte[] b) {
        int n = 0;
        for (int i = 0; i < a.length; i++) {
            n += Integer.bitCount((a[i] ^ b[i]) & 0xff);
        }
        return n;
    }

    private static boolean allEqual(byte[] a, byte v) {
        for (byte x : a) {
            if (x != v) {
                return false;
            }
        }
        return true;
    }
}
