package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;



import io.pqssh.inventory.cbom.CbomWriter;
import io.pqssh.inventory.cbom.Cboms;
import io.pqssh.inventory.audit.Auditor;
import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.report.ScanCounters;
import io.pqssh.inventory.report.ScanSink;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Target;

class CbomTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Runs results through the streaming CBOM sink and checks the document against the official schema. */
    public static String scanCbom(List<ScanResult> results) throws IOException {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ScanCounters c = new ScanCounters();
        try (ScanSink s = Cboms.scan(o)) {
            for (ScanResult r : results) {
                c.add(r);
                s.accept(r);
            }
            s.finish(c);
        }
        String doc = o.toString(StandardCharsets.UTF_8);
        CycloneDxSchema.assertValid(doc);
        return doc;
    }

    static Map<String, JsonNode> byRef(JsonNode bom) {
        Map<String, JsonNode> m = new HashMap<>();
        for (JsonNode c : bom.get("components")) {
            assertTrue(m.put(c.get("bom-ref").asText(), c) == null, "duplicate bom-ref " + c.get("bom-ref"));
        }
        return m;
    }

    /** Every dependency names a component, and every ref it depends on is one. */
    static Map<String, List<String>> dependencies(JsonNode bom, Map<String, JsonNode> refs) {
        Map<String, List<String>> deps = new HashMap<>();
        for (JsonNode d : bom.get("dependencies")) {
            String ref = d.get("ref").asText();
            assertTrue(refs.containsKey(ref), "dependency of unknown " + ref);
            List<String> on = new ArrayList<>();
            for (JsonNode x : d.get("dependsOn")) {
                assertTrue(refs.containsKey(x.asText()), ref + " depends on unknown " + x);
                on.add(x.asText());
            }
            deps.put(ref, on);
        }
        return deps;
    }

    @Test
    void zgrab2RecordsGiveAValidCbomWithEveryOfferedAlgorithmAndHostKey() throws Exception {
        List<ScanResult> results = Zgrab2ReaderTest.read(new ByteArrayInputStream(fixture())).results();
        JsonNode bom = JSON.readTree(scanCbom(results));
        assertEquals("CycloneDX", bom.get("bomFormat").asText());
        assertEquals("1.6", bom.get("specVersion").asText());
        assertTrue(bom.get("serialNumber").asText().startsWith("urn:uuid:"));
        assertEquals("pqssh", bom.at("/metadata/tools/components/0/name").asText());
        Map<String, JsonNode> refs = byRef(bom);
        Map<String, List<String>> deps = dependencies(bom, refs);

        int seq = 0;
        int keys = 0;
        for (ScanResult r : results) {
            if (r.status() != ScanResult.Status.SSH) {
                continue;
            }
            seq++;
            String self = "ssh/" + r.target() + "#" + seq;
            JsonNode p = refs.get(self);
            assertNotNull(p, self + " missing");
            assertEquals("protocol", p.at("/cryptoProperties/assetType").asText());
            assertEquals("ssh", p.at("/cryptoProperties/protocolProperties/type").asText());
            assertEquals("ssh://" + r.target(), p.at("/evidence/occurrences/0/location").asText());
            assertTrue(p.get("properties").toString().contains("\"pqssh:category\",\"value\":\"" + r.category()),
                    p.toString());
            List<String> on = deps.get(self);
            assertNotNull(on, "no dependency entry for " + self);
            if (r.kexInit() != null) {
                for (String k : r.kexInit().kex()) {
                    if (!io.pqssh.inventory.scan.Algorithms.isPseudoKex(k)) {
                        assertTrue(on.contains("crypto/kex/" + k), self + " does not depend on " + k);
                    }
                }
                for (String h : r.kexInit().hostKey()) {
                    assertTrue(on.contains("crypto/hostkey/" + h), self + " does not depend on " + h);
                }
                for (String c : r.kexInit().ciphersS2C()) {
                    assertTrue(on.contains("crypto/cipher/" + c), self + " does not depend on " + c);
                }
            }
            for (ScanResult.HostKey h : r.hostKeys()) {
                if (h.error() != null) {
                    continue;
                }
                String ref = "ssh-host-key/" + r.target() + "#" + seq + "/" + h.fingerprint();
                JsonNode key = refs.get(ref);
                assertNotNull(key, ref + " missing");
                assertTrue(on.contains(ref));
                JsonNode m = key.at("/cryptoProperties/relatedCryptoMaterialProperties");
                assertEquals("public-key", m.get("type").asText());
                assertEquals(h.fingerprint(), m.get("id").asText());
                assertTrue(refs.containsKey(m.get("algorithmRef").asText()), m.toString());
                if (h.bits() > 0) {
                    assertEquals(h.bits(), m.get("size").asInt());
                }
                assertEquals("SHA-256", key.at("/hashes/0/alg").asText());
                assertEquals(64, key.at("/hashes/0/content").asText().length());
                keys++;
            }
        }
        assertTrue(seq >= 8, "fixture has SSH records: " + seq);
        assertTrue(keys >= 1, "fixture has host keys");

        JsonNode ml = refs.get("crypto/kex/mlkem768x25519-sha256");
        assertNotNull(ml, "the fixture's PQ servers offer mlkem768x25519-sha256");
        assertEquals("algorithm", ml.at("/cryptoProperties/assetType").asText());
        assertEquals("kem", ml.at("/cryptoProperties/algorithmProperties/primitive").asText());
        assertEquals("768", ml.at("/cryptoProperties/algorithmProperties/parameterSetIdentifier").asText());
        assertEquals(3, ml.at("/cryptoProperties/algorithmProperties/nistQuantumSecurityLevel").asInt());
        JsonNode x = refs.get("crypto/kex/curve25519-sha256");
        assertEquals("key-agree", x.at("/cryptoProperties/algorithmProperties/primitive").asText());
        assertEquals(0, x.at("/cryptoProperties/algorithmProperties/nistQuantumSecurityLevel").asInt());
        assertEquals("1.3.101.110", x.at("/cryptoProperties/oid").asText());
        JsonNode ed = refs.get("crypto/hostkey/ssh-ed25519");
        assertEquals("signature", ed.at("/cryptoProperties/algorithmProperties/primitive").asText());
        assertEquals("1.3.101.112", ed.at("/cryptoProperties/oid").asText());
        JsonNode aes = refs.get("crypto/cipher/aes256-gcm@openssh.com");
        assertEquals("ae", aes.at("/cryptoProperties/algorithmProperties/primitive").asText());
        assertEquals(5, aes.at("/cryptoProperties/algorithmProperties/nistQuantumSecurityLevel").asInt());
        assertEquals("2.16.840.1.101.3.4.1.46", aes.at("/cryptoProperties/oid").asText());
    }

    @Test
    void theSchemaCheckCanFail() throws Exception {
        List<ScanResult> results = Zgrab2ReaderTest.read(new ByteArrayInputStream(fixture())).results();
        ObjectNode bom = (ObjectNode) JSON.readTree(scanCbom(results));
        ((ObjectNode) bom.get("components").get(0).at("/cryptoProperties/algorithmProperties"))
                .put("primitive", "quantum-proof");
        List<String> v = CycloneDxSchema.violations(bom.toString());
        assertFalse(v.isEmpty(), "an unknown primitive must violate the schema");
        assertTrue(v.toString().contains("primitive"), v.toString());
    }

    @Test
    void hostileAlgorithmNamesAreCappedAndCounted() throws Exception {
        List<ScanResult> results = new ArrayList<>();
        int n = CbomWriter.MAX_ALGORITHMS + 500;
        for (int i = 0; i < n; i++) {
            KexInit k = new KexInit(List.of("invented-" + i + "@example.com"), List.of("ssh-ed25519"),
                    List.of("aes128-ctr"), List.of("aes128-ctr"), List.of("hmac-sha2-256"), List.of("hmac-sha2-256"),
                    List.of("none"), List.of("none"), List.of(), List.of(), false);
            results.add(new ScanResult(new Target("192.0.2." + (i % 250 + 1), 1000 + i), ScanResult.Status.SSH,
                    null, "SSH-2.0-x", "x", k, Classification.of(k), List.of(), 1, 1));
        }
        JsonNode bom = JSON.readTree(scanCbom(results));
        long algorithms = 0;
        for (JsonNode c : bom.get("components")) {
            if (c.get("bom-ref").asText().startsWith("crypto/")) {
                algorithms++;
            }
        }
        assertEquals(CbomWriter.MAX_ALGORITHMS, algorithms);
        assertTrue(bom.get("properties").toString().contains(
                "{\"name\":\"pqssh:algorithms-not-described\",\"value\":\"" + (n + 3 - CbomWriter.MAX_ALGORITHMS)
                        + "\"}"), bom.get("properties").toString());
        dependencies(bom, byRef(bom));
    }

    @Test
    void auditCbomHasEveryKeyWithItsRoleFingerprintSizeAndFile(@TempDir Path tmp) throws Exception {
        AuditFixtures fx = new AuditFixtures(tmp);
        List<Finding> findings = Auditor.audit(List.of(fx.alice, fx.bob, fx.carol, fx.etc));
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        Cboms.audit(findings, o);
        String doc = o.toString(StandardCharsets.UTF_8);
        CycloneDxSchema.assertValid(doc);
        JsonNode bom = JSON.readTree(doc);
        Map<String, JsonNode> refs = byRef(bom);
        Map<String, List<String>> deps = dependencies(bom, refs);
        Set<String> roles = new HashSet<>();
        int keys = 0;
        for (Finding f : findings) {
            if (f.keyType() == null) {
                continue;
            }
            keys++;
            String ref = "key/" + f.file() + ":" + f.line() + "/" + f.fingerprint();
            JsonNode k = refs.get(ref);
            assertNotNull(k, ref + " missing");
            JsonNode m = k.at("/cryptoProperties/relatedCryptoMaterialProperties");
            assertEquals(f.fingerprint(), m.get("id").asText());
            if (f.bits() != null) {
                assertEquals(f.bits().intValue(), m.get("size").asInt());
            }
            assertEquals(f.file(), k.at("/evidence/occurrences/0/location").asText());
            assertTrue(deps.get("file/" + f.file()).contains(ref), ref);
            String props = k.get("properties").toString();
            roles.add(props.replaceAll(".*\"pqssh:role\",\"value\":\"([a-z-]+)\".*", "$1"));
        }
        assertTrue(keys >= 6, "fixture keys: " + keys);
        assertTrue(roles.containsAll(List.of("authorized-key", "certificate-authority", "known-host-key")),
                roles.toString());
        assertTrue(refs.containsKey("key/" + fx.alice.resolve("authorized_keys") + ":3/" + fx.aliceEd25519Fp),
                refs.keySet().toString());
        JsonNode ed = refs.get("crypto/key/ssh-ed25519");
        assertEquals("signature", ed.at("/cryptoProperties/algorithmProperties/primitive").asText());
    }

    static byte[] fixture() throws IOException {
        try (var in = CbomTest.class.getResourceAsStream(io.pqssh.inventory.AuditFixtures.class.getPackageName()
                .replace('.', '/').replaceFirst("^", "/") + "/zgrab2/real-records.jsonl")) {
            assertNotNull(in);
            return in.readAllBytes();
        }
    }
}
