package io.pqssh.inventory.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.inventory.LoopbackServers;
import io.pqssh.inventory.report.JsonReport;
import io.pqssh.server.PqsshServer;

/**
 * {@code --auth-probe}: against pqssh's server (publickey-kem, a composite host key) and Debian's sshd (publickey
 * only, no PQ signatures), one none request each, and the readiness level that combines KEX, host key and user auth.
 */
class AuthProbeTest {
    @TempDir
    Path dir;

    @Test
    void probeReadsMethodsAndServerSigAlgsWithoutSendingCredentials() throws Exception {
        io.pqssh.core.sig.SshSigningKey composite = io.pqssh.core.sig.SshSigningKey.generate(
                io.pqssh.core.sig.SignatureKeyType.MLDSA44_ED25519, new java.security.SecureRandom());
        Path hostKey = LoopbackServers.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "-t", "ed25519");
        // pqssh with KEM user authentication (which accepts no key: nothing is meant to log in)
        try (PqsshServer pq = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(io.pqssh.mina.keys.PqKeyPairProvider.of(List.of(LoopbackServers.ed25519(),
                        io.pqssh.mina.keys.PqKeyPairs.keyPair(composite))))
                .kem(io.pqssh.mina.auth.KemServerSettings.builder().authorizer((u, cred, addr) -> false).build())
                .publickey((u, key, session) -> false).start();
                LoopbackServers.Sshd sshd = LoopbackServers.Sshd.start(dir, hostKey, "LogLevel DEBUG1")) {
            Scanner.Options o = new Scanner.Options();
            o.connectTimeout = Duration.ofSeconds(2);
            o.readTimeout = Duration.ofSeconds(5);
            o.authProbeUser = "probe-user";
            List<ScanResult> results = new Scanner(o).scan(List.of(new Target("127.0.0.1", pq.port()),
                    new Target("127.0.0.1", sshd.port)), null);

            ScanResult p = results.get(0);
            assertNull(p.auth().error(), p.auth().toString());
            assertTrue(p.auth().pqMethods().containsAll(List.of("publickey-kem", "publickey-kem-and")),
                    p.auth().toString());
            assertTrue(p.auth().pqSigAlgs().contains("ssh-mldsa44-ed25519@openssh.com"), p.auth().toString());
            assertTrue(p.auth().pq());
            assertEquals("full", p.readiness(), p.toString());

            ScanResult d = results.get(1);
            assertNull(d.auth().error(), d.auth().toString());
            assertEquals(List.of("publickey"), d.auth().methods());
            assertTrue(d.auth().serverSigAlgs().contains("ssh-ed25519"), d.auth().toString());
            assertEquals(List.of(), d.auth().pqSigAlgs());
            assertFalse(d.auth().pq());
            assertEquals("pq-ready", d.category());
            assertEquals("kex", d.readiness(), "sntrup761 KEX, Ed25519 host key, classical user auth");

            // sshd saw exactly one request for the user, method none: nothing else was tried
            String log = Files.readString(sshd.log);
            assertTrue(log.contains("userauth-request for user probe-user service ssh-connection method none"), log);
            assertFalse(log.contains("method publickey") || log.contains("method password")
                    || log.contains("method keyboard-interactive"), log);

            JsonNode doc = new ObjectMapper().readTree(JsonReport.scan(results));
            assertEquals(List.of(), io.pqssh.inventory.SchemaCheckAccess.validate(doc));
            assertEquals("full", doc.at("/targets/0/readiness").asText());
            assertTrue(doc.at("/targets/0/auth/pq").asBoolean());
            assertEquals("kex", doc.at("/targets/1/readiness").asText());
            String cbom = io.pqssh.inventory.CbomTestAccess.scanCbom(results);
            assertTrue(cbom.contains("{\"name\":\"pqssh:readiness\",\"value\":\"full\"}"), cbom);
        }
    }

    @Test
    void opensshCompositeNamesAreClassifiedByRelease() {
        assertEquals("openssh-10.6", Algorithms.opensshNaming("ssh-mldsa44-ed25519"));
        assertEquals("openssh-10.6", Algorithms.opensshNaming("ssh-mldsa44-ed25519-cert"));
        assertEquals("openssh-10.4", Algorithms.opensshNaming("ssh-mldsa44-ed25519@openssh.com"));
        // OpenSSH 10.5's own certificate name for the @openssh.com composite (ssh-mldsa-eddsa.c)
        assertEquals("openssh-10.4", Algorithms.opensshNaming("ssh-mldsa44-ed25519-cert-v01@openssh.com"));
        assertEquals("other", Algorithms.opensshNaming("ssh-ed25519"));
        for (String n : List.of("ssh-mldsa44-ed25519", "ssh-mldsa44-ed25519-cert",
                "ssh-mldsa44-ed25519-cert-v01@openssh.com", "ssh-mldsa44-ed25519@openssh.com")) {
            assertTrue(Algorithms.isPqHostKey(n), n);
            ScanResult.UserAuth a = new ScanResult.UserAuth(List.of("publickey"), List.of("ssh-ed25519", n), null);
            assertEquals(List.of(n), a.pqSigAlgs());
            assertTrue(a.pq(), "publickey with " + n + " in server-sig-algs is PQ user authentication");
        }
        assertFalse(new ScanResult.UserAuth(List.of("password"), List.of("ssh-mldsa44-ed25519"), null).pq(),
                "PQ signatures do not help when publickey is not offered");
    }
}
