package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.cli.AgentHarness.Run;
import io.pqssh.core.agent.AgentClient;

/**
 * Certificates in agents, both ways with OpenSSH 9.2: {@code pqssh add} puts {@code FILE-cert.pub} beside an
 * Ed25519 key into ssh-agent as ssh-add does ({@code Certificate added: ...}), and ssh-add puts one into
 * {@code pqssh agent}, which lists the certificate and signs with its key when asked under the certificate.
 */
class AgentCertificateTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private AgentHarness agents;
    private Path home;

    @BeforeEach
    void setUp() throws Exception {
        h = new ForwardingHarness(dir);
        agents = new AgentHarness(dir, h);
        home = Files.createDirectories(dir.resolve("home"));
    }

    @AfterEach
    void tearDown() throws Exception {
        agents.close();
        h.close();
    }

    /** FILE and FILE-cert.pub, signed by ssh-keygen with a fresh CA; returns FILE. */
    private Path certifiedKey(String name) throws Exception {
        return certifiedKey(name, "ed25519");
    }

    private Path certifiedKey(String name, String type) throws Exception {
        Path ca = CliHarness.sshKeygen(dir.resolve(name + "_ca"), "ed25519");
        Path key = CliHarness.sshKeygen(dir.resolve(name), type);
        Run r = agents.run(Map.of(), CliHarness.SSH_KEYGEN.toString(), "-q", "-s", ca.toString(), "-I", "alice-id",
                "-n", "alice," + CliHarness.user(), pub(key).toString());
        assertEquals(0, r.rc(), r.out());
        return key;
    }

    private static String certBase64(Path key) throws Exception {
        return Files.readString(key.resolveSibling(key.getFileName() + "-cert.pub")).strip().split("\\s+")[1];
    }

    @Test
    void pqsshAddPutsCertificateIntoOpensshAgent() throws Exception {
        Path sock = dir.resolve("openssh-agent.sock");
        Map<String, String> env = AgentHarness.env(sock, home, null);
        agents.opensshAgent(sock, env);
        Path key = certifiedKey("id_ed25519");
        Run add = agents.pqssh(env, "add", key.toString());
        assertEquals(0, add.rc(), add.out());
        assertTrue(add.out().contains("Identity added: " + key + " (pqssh-test-id_ed25519)\nCertificate added: "
                + key + "-cert.pub (alice-id)"), add.out());
        Run listed = agents.run(env, AgentHarness.SSH_ADD.toString(), "-L");
        assertTrue(listed.out().contains("ssh-ed25519-cert-v01@openssh.com " + certBase64(key)), listed.out());
        assertTrue(agents.run(env, AgentHarness.SSH_ADD.toString(), "-l").out().contains("(ED25519-CERT)"));
    }

    /**
     * RSA and ECDSA certificates go to ssh-agent in their agent form (the certificate, then only the private fields);
     * ssh-add -T has the agent sign under each certificate and verifies the signature with the certified key.
     * {@code -C} adds the certificates alone, as ssh-add -C (OpenSSH 9.8+).
     */
    @Test
    void pqsshAddPutsRsaAndEcdsaCertificatesIntoOpensshAgentAndDashCOnlyCertificates() throws Exception {
        Path sock = dir.resolve("openssh-agent.sock");
        Map<String, String> env = AgentHarness.env(sock, home, null);
        agents.opensshAgent(sock, env);
        Path rsa = certifiedKey("id_rsa", "rsa");
        Path ecdsa = certifiedKey("id_ecdsa", "ecdsa");
        for (Path key : new Path[] {rsa, ecdsa}) {
            Run add = agents.pqssh(env, "add", key.toString());
            assertEquals(0, add.rc(), add.out());
            assertTrue(add.out().contains("Identity added: " + key) && add.out().contains("Certificate added: " + key
                    + "-cert.pub (alice-id)"), add.out());
            assertTrue(agents.run(env, AgentHarness.SSH_ADD.toString(), "-L").out().contains(certBase64(key)));
            Run signs = agents.run(env, AgentHarness.SSH_ADD.toString(), "-T", key + "-cert.pub");
            assertEquals(0, signs.rc(), "the agent signs under the certificate: " + signs.out());
        }

        assertEquals(0, agents.run(env, AgentHarness.SSH_ADD.toString(), "-D").rc());
        Path ed = certifiedKey("id_ed25519");
        Run only = agents.pqssh(env, "add", "-C", ed.toString(), rsa.toString());
        assertEquals(0, only.rc(), only.out());
        assertFalse(only.out().contains("Identity added"), only.out());
        assertTrue(only.out().contains("Certificate added: " + ed + "-cert.pub (alice-id)")
                && only.out().contains("Certificate added: " + rsa + "-cert.pub (alice-id)"), only.out());
        List<String> listed = agents.run(env, AgentHarness.SSH_ADD.toString(), "-L").out().lines().toList();
        assertEquals(2, listed.size(), listed.toString());
        assertTrue(listed.stream().allMatch(l -> l.contains("-cert-v01@openssh.com ")), listed.toString());
    }

    /** The certificate in an agent (either) is what logs {@code pqssh ssh} in to sshd: no key file, no authorized key. */
    @Test
    void pqsshSshLogsInToSshdWithAnAgentsCertificate() throws Exception {
        Path key = certifiedKey("id_ed25519");
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), "");
        int port = h.startSshd(authorized, "TrustedUserCAKeys " + pub(dir.resolve("id_ed25519_ca")));
        for (String which : new String[] {"openssh", "pqssh"}) {
            Path sock = dir.resolve(which + "-agent.sock");
            Map<String, String> env = AgentHarness.env(sock, home, null);
            if (which.equals("openssh")) {
                agents.opensshAgent(sock, env);
            } else {
                agents.pqsshAgent(sock, env);
            }
            Run add = agents.pqssh(env, "add", key.toString());
            assertTrue(add.out().contains("Certificate added"), add.out());
            // only the certificate: the plain key is not authorized anywhere
            Run ssh = agents.pqssh(env, "ssh", "-F", "none", "-p", String.valueOf(port), "-o",
                    "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o",
                    "KEMAuthentication=no", "-o", "IdentityAgent=" + sock, CliHarness.user() + "@127.0.0.1",
                    "echo via-" + which + "-agent-cert");
            assertEquals(0, ssh.rc(), ssh.out());
            assertTrue(ssh.out().contains("via-" + which + "-agent-cert"), ssh.out());
        }
        String log = CliHarness.read(h.sshdLog());
        assertEquals(2, log.split("ID alice-id \\(serial 0\\) CA ED25519", -1).length - 1, log);
    }

    @Test
    void sshAddPutsCertificateIntoPqsshAgent() throws Exception {
        Path sock = dir.resolve("pqssh-agent.sock");
        Map<String, String> env = AgentHarness.env(sock, home, null);
        agents.pqsshAgent(sock, env);
        Path key = certifiedKey("id_ed25519");
        Run add = agents.run(env, AgentHarness.SSH_ADD.toString(), key.toString());
        assertEquals(0, add.rc(), add.out());
        assertTrue(add.out().contains("Certificate added: " + key + "-cert.pub (alice-id)"), add.out());
        Run listed = agents.run(env, AgentHarness.SSH_ADD.toString(), "-L");
        assertTrue(listed.out().contains("ssh-ed25519-cert-v01@openssh.com " + certBase64(key)), listed.out());
        assertTrue(listed.out().contains("ssh-ed25519 " + Files.readString(pub(key)).split("\\s+")[1]),
                "the plain key stays listed: " + listed.out());

        // asked under the certificate, the agent signs with its key, an ssh-ed25519 signature
        byte[] certBlob = Base64.getDecoder().decode(certBase64(key));
        byte[] plain = Base64.getDecoder().decode(Files.readString(pub(key)).split("\\s+")[1]);
        byte[] data = "data to sign".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (AgentClient c = AgentClient.connect(sock)) {
            byte[] sig = c.sign(certBlob, data, 0);
            assertEquals("ssh-ed25519", new io.pqssh.core.wire.SshReader(sig).getUtf8());
            assertTrue(io.pqssh.core.sig.Signatures.verify(plain, data, sig));
        }

        // and pqssh add does the same into pqssh agent, after ssh-add -D
        assertEquals(0, agents.run(env, AgentHarness.SSH_ADD.toString(), "-D").rc());
        Run ours = agents.pqssh(env, "add", key.toString());
        assertTrue(ours.out().contains("Certificate added: " + key + "-cert.pub (alice-id)"), ours.out());
        assertTrue(agents.run(env, AgentHarness.SSH_ADD.toString(), "-L").out().contains(certBase64(key)));
        Run keysOnly = agents.pqssh(env, "add", "-D");
        assertEquals(0, keysOnly.rc(), keysOnly.out());
        Run k = agents.pqssh(env, "add", "-k", key.toString());
        assertTrue(!k.out().contains("Certificate added") && k.out().contains("Identity added"), k.out());
    }
}
