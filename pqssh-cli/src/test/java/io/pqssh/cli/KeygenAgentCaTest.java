package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.cli.AgentHarness.Run;

/**
 * {@code pqssh keygen -s CA.pub -U}: the CA key held by OpenSSH's ssh-agent (Ed25519 and RSA, the latter signing
 * rsa-sha2-512 as ssh-keygen does) and by pqssh agent (ML-DSA-65); {@code ssh-keygen -L} reads what pqssh wrote
 * (and checks the CA's signature while parsing); ssh-keygen's message for a CA the agent does not hold.
 */
class KeygenAgentCaTest {
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

    private Run ok(Run r) {
        assertEquals(0, r.rc(), r.out());
        return r;
    }

    @Test
    void signsWithCaKeysInOpensshAgent() throws Exception {
        Path sock = dir.resolve("openssh-agent.sock");
        Map<String, String> env = AgentHarness.env(sock, home, null);
        agents.opensshAgent(sock, env);
        Path edCa = CliHarness.sshKeygen(dir.resolve("ca_ed25519"), "ed25519");
        Path rsaCa = CliHarness.sshKeygen(dir.resolve("ca_rsa"), "rsa");
        Path absent = CliHarness.sshKeygen(dir.resolve("ca_absent"), "ecdsa");
        Path user = CliHarness.sshKeygen(dir.resolve("id_ecdsa"), "ecdsa");
        ok(agents.run(env, AgentHarness.SSH_ADD.toString(), edCa.toString(), rsaCa.toString()));
        // the private keys leave: only the agent can sign
        Files.delete(edCa);
        Files.delete(rsaCa);
        Path cert = dir.resolve("id_ecdsa-cert.pub");

        Run signed = ok(agents.pqssh(env, "keygen", "-s", pub(edCa).toString(), "-U", "-I", "alice@corp", "-n",
                "alice", "-z", "9", pub(user).toString()));
        assertTrue(signed.out().contains("Signed user key " + cert + ": id \"alice@corp\" serial 9 for alice valid"
                + " forever"), signed.out());
        String listed = ok(agents.run(env, CliHarness.SSH_KEYGEN.toString(), "-L", "-f", cert.toString())).out();
        assertTrue(listed.contains("Signing CA: ED25519 " + fingerprint(pub(edCa)) + " (using ssh-ed25519)"), listed);
        assertTrue(listed.contains("Key ID: \"alice@corp\"") && listed.contains("Serial: 9"), listed);

        ok(agents.pqssh(env, "keygen", "-s", pub(rsaCa).toString(), "-U", "-h", "-I", "web", "-n", "web.example.org",
                pub(user).toString()));
        listed = ok(agents.run(env, CliHarness.SSH_KEYGEN.toString(), "-L", "-f", cert.toString())).out();
        assertTrue(listed.contains("Signing CA: RSA " + fingerprint(pub(rsaCa)) + " (using rsa-sha2-512)"), listed);
        assertTrue(listed.contains("Type: ecdsa-sha2-nistp256-cert-v01@openssh.com host certificate"), listed);

        Files.delete(cert);
        Run missing = agents.pqssh(env, "keygen", "-s", pub(absent).toString(), "-U", "-I", "x", pub(user).toString());
        assertNotEquals(0, missing.rc(), missing.out());
        assertTrue(missing.out().contains("CA key " + pub(absent) + " not found in agent: key not found"),
                missing.out());
        assertFalse(Files.exists(cert), "nothing written when the agent does not hold the CA");
        // ssh-keygen says the same
        Run theirs = agents.run(env, CliHarness.SSH_KEYGEN.toString(), "-s", pub(absent).toString(), "-U", "-I", "x",
                pub(user).toString());
        assertTrue(theirs.out().contains("CA key " + pub(absent) + " not found in agent"), theirs.out());
    }

    @Test
    void signsWithPostQuantumCaInPqsshAgent() throws Exception {
        Path sock = dir.resolve("pqssh-agent.sock");
        Map<String, String> env = AgentHarness.env(sock, home, null);
        agents.pqsshAgent(sock, env);
        Path ca = dir.resolve("ca_mldsa");
        ok(agents.pqssh(env, "keygen", "-t", "mldsa65", "-N", "", "-f", ca.toString()));
        ok(agents.pqssh(env, "add", ca.toString()));
        Files.delete(ca);
        Path user = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        ok(agents.pqssh(env, "keygen", "-s", pub(ca).toString(), "-U", "-I", "pq", "-n", "bob", pub(user).toString()));
        Path cert = dir.resolve("id_ed25519-cert.pub");
        Run listed = ok(agents.pqssh(env, "keygen", "-L", "-f", cert.toString()));
        assertTrue(listed.out().contains(fingerprint(pub(ca)) + " (using ssh-mldsa-65)"), listed.out());
        assertTrue(io.pqssh.core.cert.CertificateVerifier.signatureValid(io.pqssh.core.cert.SshCertificate.parseLine(
                Files.readString(cert).strip())), "the agent's ML-DSA-65 signature verifies");
    }

    private static String fingerprint(Path pub) throws Exception {
        return io.pqssh.core.keys.KeyFingerprints.sha256(java.util.Base64.getDecoder().decode(
                Files.readString(pub).strip().split("\\s+")[1]));
    }
}
