package io.pqssh.inventory.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.core.cert.CaSigner;
import io.pqssh.core.cert.CertificateSigner;
import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.inventory.LoopbackServers;
import io.pqssh.inventory.report.CsvReport;
import io.pqssh.inventory.report.HtmlReport;
import io.pqssh.inventory.report.JsonReport;
import io.pqssh.inventory.report.SarifReport;
import io.pqssh.inventory.report.TableReport;
import io.pqssh.server.PqsshServer;

/**
 * {@code pqssh scan --hostkeys} reports host certificates: Debian's sshd with a HostCertificate signed by
 * {@code ssh-keygen -s} (ECDSA CA), pqssh server with one signed by an ML-DSA-65 CA; and a post-quantum host key
 * under a classical CA is the audit's {@code classical-ca}.
 */
class HostCertificateScanTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path dir;

    private static List<ScanResult> scan(int... ports) throws InterruptedException {
        Scanner.Options o = new Scanner.Options();
        o.connectTimeout = Duration.ofSeconds(5);
        o.readTimeout = Duration.ofSeconds(20);
        o.hostKeys = true;
        return new Scanner(o).scan(java.util.Arrays.stream(ports).mapToObj(p -> new Target("127.0.0.1", p)).toList(),
                null);
    }

    private static ScanResult.HostKey key(ScanResult r, String algorithm) {
        return r.hostKeys().stream().filter(h -> h.algorithm().equals(algorithm)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + algorithm + " in " + r.hostKeys()));
    }

    /** The rule of each SARIF result. */
    private static List<String> ruleIds(String sarif) throws Exception {
        JsonNode results = new ObjectMapper().readTree(sarif).at("/runs/0/results");
        return java.util.stream.StreamSupport.stream(results.spliterator(), false)
                .map(n -> n.get("ruleId").asText()).toList();
    }

    @Test
    void sshdHostCertificateSignedBySshKeygen() throws Exception {
        Path hostKey = LoopbackServers.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "-t", "ed25519");
        Path ca = LoopbackServers.sshKeygen(dir.resolve("host_ca"), "-t", "ecdsa", "-b", "384");
        Process p = new ProcessBuilder(LoopbackServers.SSH_KEYGEN.toString(), "-q", "-s", ca.toString(), "-h", "-I",
                "web-01 host", "-n", "web-01.example.org,10.0.0.1", "-z", "4242", "-V", "20260101000000Z:20310101000000Z",
                hostKey + ".pub").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "ssh-keygen -s: " + out);
        Path cert = dir.resolve("ssh_host_ed25519_key-cert.pub");
        String caFp = KeyFingerprints.sha256(Base64.getDecoder().decode(
                Files.readString(Path.of(ca + ".pub")).split(" ")[1]));

        try (LoopbackServers.Sshd sshd = LoopbackServers.Sshd.start(dir, hostKey, "HostCertificate " + cert)) {
            ScanResult r = scan(sshd.port).get(0);
            assertTrue(r.kexInit().hostKey().contains("ssh-ed25519-cert-v01@openssh.com"), r.toString());
            ScanResult.HostKey plain = key(r, "ssh-ed25519");
            assertNull(plain.certificate(), plain.toString());
            ScanResult.HostKey h = key(r, "ssh-ed25519-cert-v01@openssh.com");
            assertNull(h.error(), h.toString());
            assertEquals("ssh-ed25519-cert-v01@openssh.com", h.keyType());
            HostCertificate c = h.certificate();
            assertNotNull(c, h.toString());
            assertEquals("host", c.type());
            assertEquals("ssh-ed25519", c.keyType());
            assertEquals("ED25519", c.keyFamily());
            assertEquals("ecdsa-sha2-nistp384", c.caKeyType());
            assertEquals("ECDSA", c.caFamily());
            assertFalse(c.caPostQuantum());
            assertEquals(caFp, c.caFingerprint());
            assertEquals("web-01 host", c.keyId());
            assertEquals("4242", c.serialText());
            assertEquals(List.of("web-01.example.org", "10.0.0.1"), c.principals());
            assertEquals("2026-01-01T00:00:00Z", c.validAfter());
            assertEquals("2031-01-01T00:00:00Z", c.validBefore());
            assertFalse(c.classicalCa(), "a classical key under a classical CA is not classical-ca");

            List<ScanResult> rs = List.of(r);
            JsonNode doc = new ObjectMapper().readTree(JsonReport.scan(rs));
            assertEquals(List.of(), io.pqssh.inventory.SchemaCheckAccess.validate(doc));
            JsonNode jc = null;
            for (JsonNode k : doc.at("/targets/0/hostKeys")) {
                if (k.has("certificate")) {
                    jc = k.get("certificate");
                }
            }
            assertNotNull(jc, doc.toString());
            assertEquals("ECDSA", jc.get("caFamily").asText());
            assertEquals(caFp, jc.get("caFingerprint").asText());
            assertEquals("4242", jc.get("serial").asText());
            String csv = CsvReport.scan(rs);
            assertTrue(csv.lines().findFirst().orElseThrow().endsWith(",host_certificates"), csv);
            assertTrue(csv.contains("ssh-ed25519-cert-v01@openssh.com=ED25519 host certificate, CA ECDSA " + caFp),
                    csv);
            assertTrue(HtmlReport.scan(rs).contains("id &quot;web-01 host&quot; serial 4242"), HtmlReport.scan(rs));
            assertTrue(TableReport.scan(rs).contains("certificate"), TableReport.scan(rs));
            assertFalse(ruleIds(SarifReport.scan(rs)).contains("classical-ca"), SarifReport.scan(rs));
            String cbom = io.pqssh.inventory.CbomTestAccess.scanCbom(rs);
            assertTrue(cbom.contains("{\"name\":\"pqssh:ca-family\",\"value\":\"ECDSA\"}"), cbom);
            assertTrue(cbom.contains("{\"name\":\"pqssh:ca-fingerprint\",\"value\":\"" + caFp + "\"}"), cbom);
        }
    }

    @Test
    void pqsshServerHostCertificateWithPostQuantumCa() throws Exception {
        KeyPair host = LoopbackServers.ed25519();
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putRawPublicKey(host.getPublic());
        SshSigningKey ca = SshSigningKey.generate(SignatureKeyType.MLDSA_65, RANDOM);
        SshCertificate cert = CertificateSigner.forKey(b.getCompactData()).type(CertificateType.HOST)
                .keyId("pq-ca host").serial(7).principals(List.of("pq.example.org")).sign(CaSigner.of(ca), RANDOM);
        Path certFile = Files.writeString(dir.resolve("host-cert.pub"), cert.toLine("host") + "\n");
        try (PqsshServer pq = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(io.pqssh.mina.keys.PqKeyPairProvider.of(List.of(host)))
                .hostCertificates(List.of(certFile)).password((u, pw, s) -> false).start()) {
            ScanResult r = scan(pq.port()).get(0);
            ScanResult.HostKey h = key(r, "ssh-ed25519-cert-v01@openssh.com");
            assertNull(h.error(), h.toString());
            HostCertificate c = h.certificate();
            assertNotNull(c, h.toString());
            assertEquals("ssh-mldsa-65", c.caKeyType());
            assertEquals("ML_DSA", c.caFamily());
            assertTrue(c.caPostQuantum());
            assertEquals(KeyFingerprints.sha256(ca.publicKeyBlob()), c.caFingerprint());
            assertEquals("7", c.serialText());
            assertNull(c.validBefore(), "no -V: valid forever");
            assertFalse(c.classicalCa());
        }
    }

    /** No server puts a post-quantum host certificate in a key exchange yet: the record a future one gives. */
    @Test
    void postQuantumHostKeyUnderClassicalCaIsClassicalCa() throws Exception {
        SshSigningKey key = SshSigningKey.generate(SignatureKeyType.MLDSA44_ED25519_IETF, RANDOM);
        SshSigningKey ca = SshSigningKey.generate(SignatureKeyType.ED25519, RANDOM);
        SshCertificate cert = CertificateSigner.forKey(key.publicKeyBlob()).type(CertificateType.HOST).keyId("h")
                .principals(List.of("h")).sign(CaSigner.of(ca), RANDOM);
        ScanResult.HostKey h = new ScanResult.HostKey(cert.certType(), cert.certType(),
                KeyFingerprints.sha256(cert.blob()), cert.toLine(null).strip(), null);
        assertTrue(h.certificate().classicalCa(), h.toString());
        assertEquals("COMPOSITE", h.certificate().keyFamily());
        KexInit k = new KexInit(List.of("mlkem768x25519-sha256", "kex-strict-s-v00@openssh.com"),
                List.of(cert.certType()), List.of("aes128-gcm@openssh.com"), List.of("aes128-gcm@openssh.com"),
                List.of("hmac-sha2-256-etm@openssh.com"), List.of("hmac-sha2-256-etm@openssh.com"), List.of("none"),
                List.of("none"), List.of(), List.of(), false);
        ScanResult r = new ScanResult(new Target("127.0.0.1", 22), ScanResult.Status.SSH, null, "SSH-2.0-x", "x", k,
                Classification.of(k), List.of(h), 1, 1);
        String sarif = SarifReport.scan(List.of(r));
        assertTrue(ruleIds(sarif).contains("classical-ca"), sarif);
        assertTrue(sarif.contains("quantum-vulnerable CA ED25519 " + KeyFingerprints.sha256(ca.publicKeyBlob())),
                sarif);
        assertTrue(CsvReport.scan(List.of(r)).contains("(classical-ca)"));
        JsonNode doc = new ObjectMapper().readTree(JsonReport.scan(List.of(r)));
        assertEquals(List.of(), io.pqssh.inventory.SchemaCheckAccess.validate(doc));
        assertTrue(doc.at("/targets/0/hostKeys/0/certificate/classicalCa").asBoolean(), doc.toString());
    }
}
