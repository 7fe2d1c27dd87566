package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.inventory.audit.Auditor;
import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.report.CsvReport;
import io.pqssh.inventory.report.FailOn;
import io.pqssh.inventory.report.JsonReport;
import io.pqssh.inventory.report.SarifReport;

/** Audit of a fixture tree: every finding asserted, then the JSON, SARIF and CSV forms. */
class AuditTest {
    @TempDir
    static Path tmp;
    static AuditFixtures fx;
    static List<Finding> findings;

    @BeforeAll
    static void audit() throws Exception {
        LoopbackServers.requireOpenSsh();
        fx = new AuditFixtures(tmp);
        Auditor.Options o = new Auditor.Options();
        o.passwd = null;
        findings = Auditor.audit(List.of(fx.alice, fx.bob, fx.carol, fx.etc), o);
        System.out.println(io.pqssh.inventory.report.TableReport.audit(findings));
    }

    private static List<Finding> at(Path file) {
        return findings.stream().filter(f -> f.file().equals(file.toString())).toList();
    }

    private static Finding at(Path file, int line) {
        List<Finding> l = at(file).stream().filter(f -> f.line() == line).toList();
        assertEquals(1, l.size(), file + ":" + line + " " + l);
        return l.get(0);
    }

    @Test
    void theForgottenClassicalKeysBesideAPqCredential() {
        Path ak = fx.alice.resolve("authorized_keys");
        assertEquals(Finding.Rules.PQ_KEY, at(ak, 2).rule());
        assertEquals("ML_KEM", at(ak, 2).family());
        Finding ed = at(ak, 3);
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, ed.rule());
        assertEquals("error", ed.severity());
        assertEquals("ssh-ed25519", ed.keyType());
        assertEquals(fx.aliceEd25519Fp, ed.fingerprint());
        assertEquals("alice@old", ed.comment());
        assertEquals("2030-12-31T00:00:00Z", ed.expiry());
        assertEquals("10.0.0.0/8", ed.from());
        Finding rsa = at(ak, 4);
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, rsa.rule());
        assertEquals(1024, rsa.bits());
        assertTrue(rsa.message().contains("also weak today"), rsa.message());

        Finding carol = at(fx.carol.resolve("authorized_keys"), 1);
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, carol.rule(), "authorized_kem_keys counts as PQ");
        assertEquals(Finding.Rules.PQ_KEY, at(fx.carol.resolve("authorized_kem_keys"), 1).rule());
    }

    @Test
    void classicalKeysCertificatesKnownHostsAndKeyFiles() {
        Path ak = fx.bob.resolve("authorized_keys");
        Finding ec = at(ak, 1);
        assertEquals(Finding.Rules.CLASSICAL_KEY, ec.rule(), "bob has no PQ credential");
        assertEquals("nistp384", ec.curve());
        assertEquals(384, ec.bits());
        Finding cert = at(ak, 2);
        assertEquals("ssh-ed25519-cert-v01@openssh.com", cert.keyType());
        assertTrue(cert.certificate());
        assertEquals("ED25519", cert.family());
        assertEquals(fx.bobCertFp, cert.fingerprint());
        Finding ca = at(ak, 3);
        assertEquals(3072, ca.bits());
        assertTrue(ca.message().contains("cert-authority"), ca.message());

        Path kh = fx.bob.resolve("known_hosts");
        Finding hashed = at(kh, 1);
        assertEquals(Finding.Rules.CLASSICAL_KEY, hashed.rule());
        assertNull(hashed.host(), "hashed host must stay hidden");
        assertFalse(hashed.message().contains("server.example"));
        assertTrue(hashed.message().contains("hashed host"));
        assertEquals("ssh-ed25519", hashed.keyType());
        assertEquals("[host.example]:2222", at(kh, 2).host());
        assertEquals("nistp256", at(kh, 2).curve());

        // encrypted private key: classified from its public header, no passphrase
        Finding priv = at(fx.bob.resolve("id_ed25519"), 1);
        assertEquals("ssh-ed25519", priv.keyType());
        assertTrue(priv.message().contains("private key"));
        assertEquals(priv.fingerprint(), at(fx.bob.resolve("id_ed25519.pub"), 1).fingerprint());
    }

    @Test
    void configsThatPinOrStripPostQuantumKex() {
        Path sshd = fx.etc.resolve("sshd_config");
        // sshd -T: the Include on line 2 comes first, so 10-hardening.conf's KexAlgorithms wins
        assertEquals(Finding.Rules.IGNORED_CONFIG, at(sshd, 3).rule());
        assertTrue(at(sshd, 3).message().contains("10-hardening.conf:1"), at(sshd, 3).message());
        Finding match = at(sshd, 6);
        assertEquals(Finding.Rules.INVALID_CONFIG, match.rule(), "KexAlgorithms in Match: sshd refuses to start");
        assertEquals("error", match.severity());
        assertTrue(match.message().contains("in Match User bob") && match.message().contains("not allowed"),
                match.message());
        Finding removed = at(fx.etc.resolve("sshd_config.d/10-hardening.conf"), 1);
        assertEquals(Finding.Rules.PQ_KEX_REMOVED, removed.rule());
        assertTrue(removed.message().contains("no post-quantum method is left"), removed.message());
        assertTrue(removed.message().contains("sntrup761x25519-sha512@openssh.com"), removed.message());
        assertEquals(Finding.Rules.IGNORED_CONFIG, at(fx.etc.resolve("sshd_config.d/20-fine.conf"), 1).rule());
        Finding client = at(fx.etc.resolve("ssh_config"), 2);
        assertEquals(Finding.Rules.CLASSICAL_KEX_CONFIG, client.rule());
        assertTrue(client.message().contains("in Host legacy"), client.message());
        assertEquals(1, at(fx.etc.resolve("ssh_config")).size(), "'KexAlgorithms = mlkem...' is fine");
    }

    @Test
    void countsAndReportsAgree() throws Exception {
        Map<String, Long> byRule = findings.stream().collect(Collectors.groupingBy(Finding::rule,
                Collectors.counting()));
        assertEquals(Map.of(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, 3L, Finding.Rules.PQ_KEY, 2L,
                Finding.Rules.CLASSICAL_KEY, 7L, Finding.Rules.IGNORED_CONFIG, 2L, Finding.Rules.INVALID_CONFIG, 1L,
                Finding.Rules.CLASSICAL_KEX_CONFIG, 1L, Finding.Rules.PQ_KEX_REMOVED, 1L), byRule, findings.toString());

        ObjectMapper m = new ObjectMapper();
        JsonNode root = m.readTree(JsonReport.audit(findings));
        assertEquals(List.of(), SchemaCheck.validate(root));
        assertEquals("audit", root.get("kind").asText());
        assertEquals(findings.size(), root.get("findings").size());
        assertEquals(3, root.get("summary").get(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ).asInt());
        JsonNode first = root.get("findings").get(0);
        for (String f : List.of("rule", "severity", "file", "line", "message", "keyType", "family", "bits", "curve",
                "certificate", "comment", "fingerprint", "expiry", "from", "host", "owner")) {
            assertTrue(first.has(f), f + " missing: " + first);
        }

        JsonNode sarif = m.readTree(SarifReport.audit(findings));
        assertEquals("2.1.0", sarif.get("version").asText());
        JsonNode results = sarif.get("runs").get(0).get("results");
        assertEquals(findings.size(), results.size());
        JsonNode rules = sarif.get("runs").get(0).get("tool").get("driver").get("rules");
        for (JsonNode r : results) {
            assertEquals(r.get("ruleId").asText(), rules.get(r.get("ruleIndex").asInt()).get("id").asText());
            JsonNode loc = r.get("locations").get(0).get("physicalLocation");
            assertTrue(loc.get("artifactLocation").get("uri").asText().startsWith("file:///"));
            assertTrue(loc.get("region").get("startLine").asInt() >= 1);
        }

        List<String> csv = CsvReport.audit(findings).lines().toList();
        assertEquals(findings.size() + 1, csv.size());
        assertEquals(String.join(",", CsvReport.AUDIT_COLUMNS), csv.get(0));

        assertEquals(List.of("classical-keys: 10 finding(s)", "classical-kex: 2 finding(s)", "weak: 1 finding(s)"),
                FailOn.checkAudit(List.of(FailOn.CLASSICAL_KEYS, FailOn.CLASSICAL_KEX, FailOn.WEAK), findings),
                "weak counts alice's RSA-1024 too, although its rule is classical-key-beside-pq");
    }
}
