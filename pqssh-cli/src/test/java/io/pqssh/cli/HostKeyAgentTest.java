package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sshd's HostKeyAgent: {@code pqssh server} with host keys whose private halves only OpenSSH's ssh-agent holds
 * (the key files deleted, their {@code .pub} files kept, as sshd reads them) signs its key exchanges through the
 * agent, verified by OpenSSH's ssh against known_hosts for ECDSA and RSA (rsa-sha2-512 and rsa-sha2-256: the
 * agent's flags); once the agent forgets the keys no key exchange completes; an unreachable agent stops the start.
 */
class HostKeyAgentTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private AgentHarness agents;

    @AfterEach
    void tearDown() throws Exception {
        if (agents != null) {
            agents.close();
        }
        if (h != null) {
            h.close();
        }
    }

    @Test
    void hostKeysHeldByOpenSshAgentSignTheKeyExchange() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        agents = new AgentHarness(dir, h);
        Path key = h.userKey();
        Path sock = dir.resolve("host-agent.sock");
        Map<String, String> env = Map.of("SSH_AUTH_SOCK", sock.toString());
        agents.opensshAgent(sock, env);
        Path ecdsa = CliHarness.sshKeygen(dir.resolve("agent_host_ecdsa_key"), "ecdsa");
        Path rsa = CliHarness.sshKeygen(dir.resolve("agent_host_rsa_key"), "rsa");
        StringBuilder known = new StringBuilder();
        for (Path k : List.of(ecdsa, rsa)) {
            AgentHarness.Run add = agents.run(env, AgentHarness.SSH_ADD.toString(), k.toString());
            assertEquals(0, add.rc(), add.out());
            Files.delete(k); // only the agent has it now
            known.append("[127.0.0.1]:PORT ").append(Files.readString(pub(k)));
        }
        int port = h.startServer(h.authorizedKeys(), "-o", "HostKeyAgent=" + sock, "-o", "HostKey=" + ecdsa,
                "-o", "HostKey=" + rsa);
        Path knownHosts = Files.writeString(dir.resolve("known_hosts"), known.toString().replace("PORT",
                String.valueOf(port)));

        for (String alg : List.of("ecdsa-sha2-nistp256", "rsa-sha2-512", "rsa-sha2-256")) {
            CliHarness.Result r = openSsh(port, knownHosts, key, alg);
            assertEquals(0, r.rc(), alg + ":\n" + r.all());
            assertEquals("signed-by-agent", r.out().strip(), r.all());
            assertTrue(r.err().contains("kex: host key algorithm: " + alg), r.all());
        }

        AgentHarness.Run forget = agents.run(env, AgentHarness.SSH_ADD.toString(), "-D");
        assertEquals(0, forget.rc(), forget.out());
        CliHarness.Result none = openSsh(port, knownHosts, key, "ecdsa-sha2-nistp256");
        assertNotEquals(0, none.rc(), "signed without the agent's key:\n" + none.all());

        // -T as sshd -T
        Path cfg = Files.writeString(dir.resolve("cfg"), "HostKeyAgent " + sock + "\nHostKey " + ecdsa
                + "\nListenAddress 127.0.0.1\n");
        CliHarness.Result t = CliHarness.pqssh("server", "-T", "-f", cfg.toString());
        assertEquals(0, t.rc(), t.all());
        assertTrue(t.out().lines().anyMatch(("hostkeyagent " + sock)::equals), t.out());
    }

    /**
     * HostCertificate with agent-held keys: the certificate's signature algorithm
     * ({@code ecdsa-sha2-nistp256-cert-v01@openssh.com}, {@code rsa-sha2-512-cert-v01@openssh.com}) is asked of
     * the agent as the plain one, since the agent signs with the certified key; OpenSSH's ssh checks the
     * certificate against an {@code @cert-authority} line.
     */
    @Test
    void hostCertificatesOfAgentHeldKeys() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        agents = new AgentHarness(dir, h);
        Path key = h.userKey();
        Path sock = dir.resolve("host-agent.sock");
        Map<String, String> env = Map.of("SSH_AUTH_SOCK", sock.toString());
        agents.opensshAgent(sock, env);
        Path ca = CliHarness.sshKeygen(dir.resolve("host_ca"), "ed25519");
        List<String> args = new ArrayList<>(List.of("-o", "HostKeyAgent=" + sock));
        for (String type : List.of("ecdsa", "rsa")) {
            Path k = CliHarness.sshKeygen(dir.resolve("agent_host_" + type + "_key"), type);
            AgentHarness.Run add = agents.run(env, AgentHarness.SSH_ADD.toString(), k.toString());
            assertEquals(0, add.rc(), add.out());
            Files.delete(k);
            CliHarness.sshKeygenSign(ca, k, "-h", "-I", type + "-host", "-n", "127.0.0.1");
            args.addAll(List.of("-o", "HostKey=" + k, "-o", "HostCertificate=" + k + "-cert.pub"));
        }
        int port = h.startServer(h.authorizedKeys(), args.toArray(String[]::new));
        Path knownHosts = Files.writeString(dir.resolve("known_hosts"), "@cert-authority [127.0.0.1]:* "
                + Files.readString(pub(ca)));
        for (String alg : List.of("ecdsa-sha2-nistp256-cert-v01@openssh.com", "rsa-sha2-512-cert-v01@openssh.com",
                "rsa-sha2-256-cert-v01@openssh.com")) {
            CliHarness.Result r = openSsh(port, knownHosts, key, alg);
            assertEquals(0, r.rc(), alg + ":\n" + r.all());
            assertEquals("signed-by-agent", r.out().strip(), r.all());
            assertTrue(r.err().contains("kex: host key algorithm: " + alg)
                    && r.err().contains("Server host certificate: "), r.all());
        }
    }

    /**
     * Post-quantum host keys held by {@code pqssh agent} (OpenSSH's agent has no ML-DSA): ML-DSA-65 and the
     * composite sign the key exchange through it, checked by {@code pqssh ssh} against known_hosts.
     */
    @Test
    void postQuantumHostKeysHeldByPqsshAgent() throws Exception {
        h = new ForwardingHarness(dir);
        agents = new AgentHarness(dir, h);
        Path key = h.userKey();
        Path home = Files.createDirectories(dir.resolve("home"));
        Path sock = dir.resolve("pq-host-agent.sock");
        Map<String, String> env = AgentHarness.env(sock, home, null);
        agents.pqsshAgent(sock, env);
        List<String> args = new ArrayList<>(List.of("-o", "HostKeyAgent=" + sock));
        StringBuilder known = new StringBuilder();
        Map<String, String> types = Map.of("mldsa65", "ssh-mldsa-65", "mldsa44-ed25519", "ssh-mldsa44-ed25519");
        for (String type : List.of("mldsa65", "mldsa44-ed25519")) {
            Path k = dir.resolve("agent_host_" + type + "_key");
            CliHarness.Result gen = CliHarness.pqssh("keygen", "-q", "-t", type, "-N", "", "-f", k.toString());
            assertEquals(0, gen.rc(), gen.all());
            AgentHarness.Run add = agents.pqssh(env, "add", k.toString());
            assertEquals(0, add.rc(), add.out());
            Files.delete(k);
            args.addAll(List.of("-o", "HostKey=" + k));
            known.append("[127.0.0.1]:PORT ").append(Files.readString(pub(k)));
        }
        int port = h.startServer(h.authorizedKeys(), args.toArray(String[]::new));
        Path knownHosts = Files.writeString(dir.resolve("known_hosts"), known.toString().replace("PORT",
                String.valueOf(port)));
        for (String alg : types.values()) {
            CliHarness.Result r = CliHarness.pqssh("ssh", "-F", "none", "-v", "-o", "BatchMode=yes", "-o",
                    "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts, "-o",
                    "GlobalKnownHostsFile=none", "-o", "KEMAuthentication=no", "-o", "IdentityAgent=none", "-o",
                    "HostKeyAlgorithms=" + alg, "-i", key.toString(), "-p", String.valueOf(port),
                    CliHarness.user() + "@127.0.0.1", "echo signed-by-pqssh-agent");
            assertEquals(0, r.rc(), alg + ":\n" + r.all());
            assertEquals("signed-by-pqssh-agent", r.out().strip(), r.all());
            assertTrue(r.err().contains("kex: host key algorithm: " + alg), r.all());
        }
    }

    @Test
    void unreachableAgentStopsTheStart() throws Exception {
        Path k = CliHarness.sshKeygen(dir.resolve("agent_host_ed25519_key"), "ed25519");
        Files.delete(k);
        Path sock = dir.resolve("no-agent.sock");
        Path cfg = Files.writeString(dir.resolve("cfg"), "HostKeyAgent " + sock + "\nHostKey " + k
                + "\nListenAddress 127.0.0.1\n");
        CliHarness.Result t = CliHarness.pqssh("server", "-t", "-f", cfg.toString());
        assertNotEquals(0, t.rc(), t.all());
        assertTrue(t.err().contains("HostKey " + k + ": Could not connect to agent \"" + sock + "\""), t.all());
        // without HostKeyAgent the missing private key is what pqssh says
        Files.writeString(cfg, "HostKey " + k + "\nListenAddress 127.0.0.1\n");
        CliHarness.Result plain = CliHarness.pqssh("server", "-t", "-f", cfg.toString());
        assertNotEquals(0, plain.rc(), plain.all());
        assertTrue(plain.err().contains("HostKey " + k + ": no such file"), plain.all());
    }

    private CliHarness.Result openSsh(int port, Path knownHosts, Path key, String hostKeyAlgorithm) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH.toString(), "-v", "-F", "none", "-o",
                "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts,
                "-o", "GlobalKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes", "-o", "HostKeyAlgorithms="
                        + hostKeyAlgorithm, "-i", key.toString(), "-p", String.valueOf(port)));
        cmd.addAll(List.of(CliHarness.user() + "@127.0.0.1", "echo signed-by-agent"));
        return CliHarness.exec(dir, cmd);
    }
}
