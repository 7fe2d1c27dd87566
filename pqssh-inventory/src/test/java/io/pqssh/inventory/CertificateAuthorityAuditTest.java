package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.core.cert.CaSigner;
import io.pqssh.core.cert.CertificateSigner;
import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.inventory.audit.Auditor;
import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.cbom.Cboms;
import io.pqssh.inventory.report.CsvReport;
import io.pqssh.inventory.report.FailOn;
import io.pqssh.inventory.report.HtmlReport;
import io.pqssh.inventory.report.JsonReport;
import io.pqssh.inventory.report.SarifReport;

/**
 * CA keys in an audit (TrustedUserCAKeys of the audited sshd_config, {@code cert-authority} lines, {@code
 * @cert-authority} known_hosts entries) with their family, and the question "our user keys are post-quantum,
 * but our CA is Ed25519: is that still forgeable?": a post-quantum key certified by a classical CA is a
 * {@code classical-ca} error in every report format; one certified by a post-quantum CA is not.
 */
class CertificateAuthorityAuditTest {
    private static final SecureRandom RND = new SecureRandom();

    private static SshSigningKey key(SignatureKeyType t) {
        return SshSigningKey.generate(t, RND);
    }

    private static String certLine(SshSigningKey ca, SshSigningKey subject, CertificateType type, String comment)
            throws Exception {
        return CertificateSigner.forKey(subject.publicKeyBlob()).keyId("id-" + comment).type(type)
                .principals(List.of("alice")).sign(CaSigner.of(ca), RND).toLine(comment) + "\n";
    }

    @Test
    void classicalCaOfAPostQuantumKeyIsFlaggedInEveryReport(@TempDir Path root) throws Exception {
        SshSigningKey edCa = key(SignatureKeyType.ED25519);
        SshSigningKey pqCa = key(SignatureKeyType.MLDSA_65);
        SshSigningKey userPq = key(SignatureKeyType.MLDSA_44);
        SshSigningKey hostPq = key(SignatureKeyType.MLDSA_65);
        SshSigningKey userEd = key(SignatureKeyType.ED25519);
        Path etcSsh = Files.createDirectories(root.resolve("etc/ssh"));
        Path home = Files.createDirectories(root.resolve("home/alice"));
        Files.writeString(root.resolve("etc/passwd"), "alice:x:1000:1000::/home/alice:/bin/sh\n");
        Files.writeString(etcSsh.resolve("sshd_config"), "TrustedUserCAKeys /etc/ssh/user_ca.pub\n"
                + "HostCertificate /srv/certs/web.pub\n");
        Files.writeString(etcSsh.resolve("user_ca.pub"), edCa.publicKey().toOpenSsh("ed-ca") + "\n"
                + pqCa.publicKey().toOpenSsh("pq-ca") + "\n");
        Path ssh = Files.createDirectories(home.resolve(".ssh"));
        Path pqUnderEd = ssh.resolve("id_mldsa44-cert.pub");
        Files.writeString(pqUnderEd, certLine(edCa, userPq, CertificateType.USER, "pq-under-ed"));
        Path edUnderEd = ssh.resolve("id_ed25519-cert.pub");
        Files.writeString(edUnderEd, certLine(edCa, userEd, CertificateType.USER, "ed-under-ed"));
        Path hostUnderPq = etcSsh.resolve("ssh_host_mldsa65_key-cert.pub");
        Files.writeString(hostUnderPq, certLine(pqCa, hostPq, CertificateType.HOST, "host-under-pq"));
        // a HostCertificate outside any SSH directory: found through sshd_config only; a PQ host key, Ed25519 CA
        Path webCert = Files.createDirectories(root.resolve("srv/certs")).resolve("web.pub");
        Files.writeString(webCert, certLine(edCa, key(SignatureKeyType.FALCON_512), CertificateType.HOST, "web"));
        Files.writeString(ssh.resolve("known_hosts"), "@cert-authority *.example " + edCa.publicKey()
                .toOpenSsh("host-ca") + "\n");
        Auditor.Options o = new Auditor.Options();
        o.passwd = null;
        List<Finding> findings = Auditor.audit(List.of(root.resolve("etc/ssh"), home), o);
        String all = String.join("\n", findings.stream().map(Finding::toString).toList());

        // the CAs of TrustedUserCAKeys: family, classical or post-quantum
        Path caFile = etcSsh.resolve("user_ca.pub");
        Finding ed = only(findings, caFile.toString(), 1);
        assertEquals(Finding.Rules.CLASSICAL_KEY, ed.rule());
        assertEquals("ED25519", ed.family());
        assertTrue(ed.message().startsWith("quantum-vulnerable user certificate authority (TrustedUserCAKeys of "),
                ed.message());
        Finding pq = only(findings, caFile.toString(), 2);
        assertEquals(Finding.Rules.PQ_KEY, pq.rule());
        assertEquals("ML_DSA", pq.family());
        assertTrue(pq.message().startsWith("post-quantum user certificate authority"), pq.message());

        // the PQ key under the Ed25519 CA: its own note names the CA, and a classical-ca error carries the CA key
        List<Finding> atCert = findings.stream().filter(f -> f.file().equals(pqUnderEd.toString())).toList();
        assertEquals(2, atCert.size(), all);
        assertEquals(Finding.Rules.PQ_KEY, atCert.get(0).rule());
        assertTrue(atCert.get(0).message().contains("signed by quantum-vulnerable CA ED25519 " + ed.fingerprint()
                + ")"), atCert.get(0).message());
        Finding flagged = atCert.get(1);
        assertEquals(Finding.Rules.CLASSICAL_CA, flagged.rule());
        assertEquals("error", flagged.severity());
        assertEquals("ssh-ed25519", flagged.keyType());
        assertEquals(ed.fingerprint(), flagged.fingerprint(), "the finding's key is the CA");
        assertTrue(flagged.message().contains("TrustedUserCAKeys " + caFile + ":1")
                && flagged.message().contains("a quantum attacker forges the CA's signature"), flagged.message());
        // a classical key under a classical CA, and a PQ host key under a PQ CA: nothing more to flag
        assertEquals(List.of(Finding.Rules.CLASSICAL_KEY), rules(findings, edUnderEd));
        assertEquals(List.of(Finding.Rules.PQ_KEY), rules(findings, hostUnderPq));
        assertTrue(only(findings, hostUnderPq.toString(), 1).message().contains("host certificate (signed by"
                + " post-quantum CA ML-DSA"), all);
        assertEquals(List.of(Finding.Rules.PQ_KEY, Finding.Rules.CLASSICAL_CA), rules(findings, webCert), all);
        assertTrue(findings.stream().anyMatch(f -> f.file().equals(webCert.toString())
                && f.rule().equals(Finding.Rules.PQ_KEY) && f.message().contains("host certificate (signed by"
                + " quantum-vulnerable CA ED25519")), all);
        assertEquals(2, findings.stream().filter(f -> f.rule().equals(Finding.Rules.CLASSICAL_CA)).count(), all);
        // the @cert-authority line is a CA key of known_hosts, classical
        assertTrue(only(findings, ssh.resolve("known_hosts").toString(), 1).message().contains("cert-authority key"),
                all);

        // every format carries it as it carries other findings
        ObjectMapper m = new ObjectMapper();
        JsonNode json = m.readTree(JsonReport.audit(findings));
        assertEquals(List.of(), SchemaCheck.validate(json));
        assertEquals(2, json.get("summary").get(Finding.Rules.CLASSICAL_CA).asInt());
        JsonNode sarif = m.readTree(SarifReport.audit(findings));
        JsonNode rules = sarif.at("/runs/0/tool/driver/rules");
        boolean sarifHasIt = false;
        for (JsonNode r : sarif.at("/runs/0/results")) {
            if (r.get("ruleId").asText().equals(Finding.Rules.CLASSICAL_CA)) {
                sarifHasIt = true;
                assertEquals("error", r.get("level").asText());
                assertEquals(Finding.Rules.CLASSICAL_CA, rules.get(r.get("ruleIndex").asInt()).get("id").asText());
            }
        }
        assertTrue(sarifHasIt, sarif.toString());
        assertTrue(CsvReport.audit(findings).lines().anyMatch(l -> l.startsWith("classical-ca,error,"
                + pqUnderEd + ",1,ssh-ed25519,ED25519,")), CsvReport.audit(findings));
        String html = HtmlReport.audit(findings);
        assertTrue(html.contains(Finding.Rules.CLASSICAL_CA) && html.contains("classical CAs of PQ keys"), html);
        ByteArrayOutputStream cbom = new ByteArrayOutputStream();
        Cboms.audit(findings, cbom);
        String doc = cbom.toString(StandardCharsets.UTF_8);
        CycloneDxSchema.assertValid(doc);
        JsonNode component = null;
        for (JsonNode c : m.readTree(doc).get("components")) {
            if (c.get("bom-ref").asText().equals("key/" + pqUnderEd + ":1/" + flagged.fingerprint())) {
                component = c;
            }
        }
        assertTrue(component != null && component.get("properties").toString().contains(
                "{\"name\":\"pqssh:role\",\"value\":\"certificate-authority\"}")
                && component.get("properties").toString().contains(Finding.Rules.CLASSICAL_CA), doc);
        assertTrue(FailOn.checkAudit(List.of(FailOn.CLASSICAL_KEYS), findings).get(0).startsWith("classical-keys:"));
    }

    private static Finding only(List<Finding> findings, String file, int line) {
        List<Finding> l = findings.stream().filter(f -> f.file().equals(file) && f.line() == line).toList();
        assertEquals(1, l.size(), file + ":" + line + " " + findings);
        return l.get(0);
    }

    private static List<String> rules(List<Finding> findings, Path file) {
        return findings.stream().filter(f -> f.file().equals(file.toString())).map(Finding::rule).toList();
    }
}
