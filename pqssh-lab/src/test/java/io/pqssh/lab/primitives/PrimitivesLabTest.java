package io.pqssh.lab.primitives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class PrimitivesLabTest {
    @TempDir
    Path dir;

    @Test
    void everyCasePreparesAndRunsOnceCorrectly() throws Exception {
        List<PrimitiveCase> all = PrimitiveCase.all(List.of(), List.of());
        // 15 algorithms x 4 operations with BC, plus the JDK for Ed25519, ML-DSA x3 and ML-KEM x3
        assertEquals(15 * 4 + 7 * 4, all.size(), all.toString());
        for (String and : List.of("ed25519-mldsa65", "ed25519-slhdsa192f")) {
            assertEquals(List.of(PrimitiveCase.BC), all.stream().filter(c -> c.algorithm().equals(and))
                    .map(PrimitiveCase::provider).distinct().toList(), and + ": Bouncy Castle only");
        }
        for (PrimitiveCase c : all) {
            if (c.operation().equals("sign") && c.algorithm().startsWith("SLH-DSA")) {
                continue; // slow (tens of ms); sign correctness is still checked in prepare()
            }
            Object r = c.prepare().call();
            assertNotNull(r, c.id());
            if (c.operation().equals("verify")) {
                assertEquals(Boolean.TRUE, r, c.id() + " verify of a good signature");
            }
            if (c.operation().equals(PrimitiveCase.ONLINE) && c.isKem()) {
                assertEquals(Boolean.FALSE, r, c.id() + ": a zero response must be rejected");
            }
        }
    }

    @Test
    void runWritesConsistentJsonCsvAndMarkdown() throws Exception {
        PrimitivesLab.Settings s = new PrimitivesLab.Settings(List.of("ML-KEM-768", "ML-DSA-65"),
                List.of("verify", "encaps", PrimitiveCase.ONLINE), 0, 1, 50, 1, 100);
        List<PrimitiveResult> rs = PrimitivesLab.run(s, null);
        // ML-KEM-768: encaps + online for BC and JDK; ML-DSA-65: verify + online for BC and JDK
        assertEquals(8, rs.size(), rs.toString());
        PrimitivesLab.write(dir, rs);
        JsonNode json = new ObjectMapper().readTree(dir.resolve("primitives.json").toFile());
        assertTrue(json.isArray());
        assertEquals(8, json.size());
        Set<String> keys = new HashSet<>();
        for (JsonNode o : json) {
            for (String f : List.of("algorithm", "provider", "operation", "median_us", "n", "public_key_bytes",
                    "output_bytes")) {
                assertTrue(o.has(f), "missing " + f + " in " + o);
            }
            assertTrue(o.get("median_us").asDouble() > 0, o.toString());
            assertTrue(o.get("n").asLong() > 0, o.toString());
            assertTrue(Set.of("BC", "JDK").contains(o.get("provider").asText()), o.toString());
            assertTrue(keys.add(o.get("algorithm").asText() + o.get("provider").asText() + o.get("operation")
                    .asText()), "duplicate row " + o);
            if (o.get("algorithm").asText().equals("ML-KEM-768")) {
                assertEquals(1184, o.get("public_key_bytes").asInt());
                assertEquals(1088, o.get("output_bytes").asInt());
            } else {
                assertEquals(1952, o.get("public_key_bytes").asInt());
                assertEquals(3309, o.get("output_bytes").asInt());
            }
        }
        List<String> csv = Files.readAllLines(dir.resolve("primitives.csv"));
        assertEquals("algorithm,provider,operation,median_us,p90_us,mean_us,n,public_key_bytes,output_bytes,output_kind",
                csv.get(0));
        assertEquals(9, csv.size());
        PrimitivesLab.TargetCheck t = PrimitivesLab.targetCheck(rs).orElseThrow();
        // the target uses the ML-KEM provider the server selects (KemProviders), measured in this run
        assertEquals(io.pqssh.core.kem.KemProviders.selected().encapsulator().name(), t.kemProvider());
        PrimitiveResult kem = PrimitivesLab.find(rs, "ML-KEM-768", t.kemProvider(), PrimitiveCase.ONLINE)
                .orElseThrow();
        double minVerify = rs.stream().filter(r -> r.algorithm().equals("ML-DSA-65") && r.operation().equals("verify"))
                .mapToDouble(PrimitiveResult::medianUs).min().orElseThrow();
        assertEquals(kem.medianUs() / minVerify, t.ratio(), 1e-3);
        assertEquals(t.ratio() <= 0.41, t.met());
        String md = Files.readString(dir.resolve("primitives.md"));
        assertTrue(md.contains("Table II") && md.contains("| ML-KEM-768 | BC | ") && md.contains("9.000"), md);
    }

    @Test
    void andCompositeRowsCarryTheirSizes() throws Exception {
        PrimitivesLab.Settings s = new PrimitivesLab.Settings(List.of("ed25519-mldsa65", "ed25519-slhdsa192f"),
                List.of("verify"), 0, 1, 50, 1, 100);
        List<PrimitiveResult> rs = PrimitivesLab.run(s, null);
        assertEquals(List.of("ed25519-mldsa65/BC/verify", "ed25519-slhdsa192f/BC/verify"),
                rs.stream().map(r -> r.algorithm() + "/" + r.provider() + "/" + r.operation()).toList());
        // pk = Ed25519 32 || ML-DSA-65 1952 or SLH-DSA-192f 48; sig = Ed25519 64 || 3309 or 35664
        assertEquals(1984, rs.get(0).publicKeyBytes());
        assertEquals(3373, rs.get(0).outputBytes());
        assertEquals(80, rs.get(1).publicKeyBytes());
        assertEquals(35728, rs.get(1).outputBytes());
        assertTrue(rs.stream().allMatch(r -> r.n() > 0 && r.medianUs() > 0 && r.outputKind().equals("signature")),
                rs.toString());
        PrimitivesLab.write(dir, rs);
        String md = Files.readString(dir.resolve("primitives.md"));
        assertTrue(md.contains("| ed25519-mldsa65 | BC | 1984 | 3373 | ") && md.contains(
                "| ed25519-slhdsa192f | BC | 80 | 35728 | "), md);
    }

    @Test
    void forkedJmhRunGivesAResult() throws Exception {
        PrimitivesLab.Settings s = new PrimitivesLab.Settings(List.of("Ed25519"), List.of("verify"), 1, 1, 50, 1, 100);
        List<PrimitiveResult> rs = PrimitivesLab.run(s, null);
        assertEquals(2, rs.size(), rs.toString()); // BC and JDK
        assertTrue(rs.stream().allMatch(r -> r.n() > 0 && r.medianUs() > 0), rs.toString());
        assertTrue(PrimitivesLab.targetCheck(rs).isEmpty());
    }

    @Test
    void badSelectionsAreClearErrors() {
        assertThrows(IllegalArgumentException.class, () -> PrimitiveCase.canonicalAlgorithm("RSA-2048"));
        assertEquals("SLH-DSA-SHA2-128f", PrimitiveCase.canonicalAlgorithm("slh-dsa-128f"));
        assertEquals("ML-KEM-768", PrimitiveCase.canonicalAlgorithm("mlkem768"));
        assertEquals("ed25519-slhdsa192f", PrimitiveCase.canonicalAlgorithm("Ed25519-SLH-DSA-SHA2-192f"));
        assertEquals("ed25519-mldsa65", PrimitiveCase.canonicalAlgorithm("ed25519-ml-dsa-65"));
        assertFalse(PrimitiveCase.jdkHas("ed25519-mldsa65"));
        assertThrows(IllegalArgumentException.class, () -> PrimitiveCase.parse("ML-KEM-768/BC"));
        assertThrows(IllegalArgumentException.class,
                () -> PrimitiveCase.parse("ML-KEM-768/BC/sign").prepare());
        assertFalse(PrimitiveCase.jdkHas("Falcon-512"));
    }
}
