package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.cli.AgentHarness.Run;

/**
 * Destination-constrained agent keys ({@code ssh-add -h}, OpenSSH 8.9+) between OpenSSH 9.2 and pqssh: a key
 * restricted to one host logs in there and nowhere else, whichever client (ssh, pqssh ssh) and whichever agent
 * (ssh-agent, pqssh agent) and whichever tool added it (ssh-add -h, pqssh add -h); through an agent forwarded by
 * {@code pqssh ssh -A} it logs in from the hop only to a host the {@code hop>host} rule names. Without pqssh ssh's
 * {@code session-bind@openssh.com} ssh-agent refuses a constrained key on any connection, so the allowed logins
 * prove the binding; the refused ones prove the agent checks it.
 */
class AgentDestinationEndToEndTest {
    private static final Path SSH_ADD = AgentHarness.SSH_ADD;

    @TempDir
    Path dir;

    private ForwardingHarness h;
    private ForwardingHarness h2;
    private Path home;
    private Path key;
    private Path knownHosts;
    private int sshdA;
    private int sshdB;
    private int pqsshServer;
    private AgentHarness agents;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        agents = new AgentHarness(dir, h);
        h2 = new ForwardingHarness(Files.createDirectories(dir.resolve("b")));
        home = Files.createDirectories(dir.resolve("home"));
        key = h.userKey();
        sshdA = h.startSshd(h.authorizedKeys());
        sshdB = h2.startSshd(h.authorizedKeys());
        pqsshServer = h.startServer(h.authorizedKeys());
        // the names ssh-add -h looks up; the agent only ever compares host keys
        knownHosts = dir.resolve("destinations");
        Files.writeString(knownHosts, "hop.example " + Files.readString(pub(dir.resolve("sshd_host_key")))
                + "b.example " + Files.readString(pub(dir.resolve("b").resolve("sshd_host_key")))
                + "pqssh.example " + Files.readString(pub(dir.resolve("ssh_host_ed25519_key"))));
    }

    @AfterEach
    void tearDown() throws Exception {
        agents.close();
        h.close();
        h2.close();
    }

    private Map<String, String> env(Path sock) {
        return AgentHarness.env(sock, home, null);
    }

    private Run run(Map<String, String> env, List<String> cmd) throws Exception {
        return agents.run(env, cmd.toArray(String[]::new));
    }

    private Run pqssh(Map<String, String> env, List<String> args) throws Exception {
        return agents.pqssh(env, args.toArray(String[]::new));
    }

    /** OpenSSH's ssh with no configuration, no identity files: only the agent's keys. */
    private static List<String> ssh(int port, String command) {
        return List.of(CliHarness.SSH.toString(), "-F", "/dev/null", "-o", "IdentityFile=none", "-o",
                "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o",
                "LogLevel=ERROR", "-p", String.valueOf(port), CliHarness.user() + "@127.0.0.1", command);
    }

    private List<String> pqsshSsh(int port, String command, String... extra) {
        List<String> a = new ArrayList<>(List.of("ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts_pqssh"), "-p", String.valueOf(port)));
        a.addAll(List.of(extra));
        a.addAll(List.of(CliHarness.user() + "@127.0.0.1", command));
        return a;
    }

    private static void assertLogin(Run r, String marker) {
        assertEquals(0, r.rc(), r.out());
        assertTrue(r.out().contains(marker), r.out());
    }

    private static void assertRefused(Run r) {
        assertEquals(255, r.rc(), r.out());
        assertTrue(r.out().contains("Permission denied") || r.out().contains("No more authentication methods"),
                r.out());
    }

    @Test
    void sshAddRestrictedKeyInPqsshAgentLogsInOnlyToThePermittedHost() throws Exception {
        Path sock = dir.resolve("pqssh-agent.sock");
        agents.pqsshAgent(sock, env(sock));
        Run add = run(env(sock), List.of(SSH_ADD.toString(), "-h", "hop.example", "-H", knownHosts.toString(),
                key.toString()));
        assertEquals(0, add.rc(), add.out());
        assertEquals(0, run(env(sock), List.of(SSH_ADD.toString(), "-l")).rc(), "local use lists the key");

        assertLogin(run(env(sock), ssh(sshdA, "echo ssh-allowed")), "ssh-allowed");
        assertRefused(run(env(sock), ssh(sshdB, "echo never")));
        assertLogin(pqssh(env(sock), pqsshSsh(sshdA, "echo pqssh-allowed")), "pqssh-allowed");
        assertRefused(pqssh(env(sock), pqsshSsh(pqsshServer, "echo never")));
    }

    @Test
    void pqsshSshBindsItsSessionsForOpensshAgentKeysRestrictedByPqsshAdd() throws Exception {
        Path sock = dir.resolve("openssh-agent.sock");
        agents.opensshAgent(sock, env(sock));
        Run add = pqssh(env(sock), List.of("add", "-h", "pqssh.example", "-h", "b.example", "-H",
                knownHosts.toString(), key.toString()));
        assertEquals(0, add.rc(), add.out());

        assertLogin(pqssh(env(sock), pqsshSsh(pqsshServer, "echo to-pqssh")), "to-pqssh");
        assertLogin(pqssh(env(sock), pqsshSsh(sshdB, "echo to-b")), "to-b");
        assertRefused(pqssh(env(sock), pqsshSsh(sshdA, "echo never")));
        // OpenSSH's ssh agrees about the same key
        assertLogin(run(env(sock), ssh(sshdB, "echo ssh-to-b")), "ssh-to-b");
        assertRefused(run(env(sock), ssh(sshdA, "echo never")));
    }

    @Test
    void restrictedKemKeyInPqsshAgentDecapsulatesOnlyForThePermittedHost() throws Exception {
        Path kem = dir.resolve("id_mlkem768");
        CliHarness.Result kg = CliHarness.pqssh("keygen", "-t", "mlkem768", "-N", "", "-f", kem.toString(), "-q");
        assertEquals(0, kg.rc(), kg.all());
        Files.writeString(h.authorizedKeys(), Files.readString(pub(kem)), StandardOpenOption.APPEND);
        Path sock = dir.resolve("kem.sock");
        Map<String, String> env = env(sock);
        agents.pqsshAgent(sock, env);
        String[] kemOnly = {"-o", "PreferredAuthentications=publickey-kem"};
        assertEquals(0, pqssh(env, List.of("add", "-h", "pqssh.example", "-H", knownHosts.toString(),
                kem.toString())).rc());
        assertLogin(pqssh(env, pqsshSsh(pqsshServer, "echo kem-allowed", kemOnly)), "kem-allowed");
        assertEquals(0, pqssh(env, List.of("add", "-D")).rc());
        assertEquals(0, pqssh(env, List.of("add", "-h", "b.example", "-H", knownHosts.toString(),
                kem.toString())).rc());
        Run refused = pqssh(env, pqsshSsh(pqsshServer, "echo never", kemOnly));
        assertEquals(255, refused.rc(), refused.out());
        assertTrue(!refused.out().contains("never"), refused.out());
    }

    @Test
    void confirmingARestrictedKeyAsksWhatSshAgentAsks() throws Exception {
        Path log = dir.resolve("askpass.log");
        Path askpass = AgentHarness.askpass(dir, log, Files.writeString(dir.resolve("answer"), "yes\n"));
        String[] questions = new String[2];
        for (int i = 0; i < 2; i++) {
            Path sock = dir.resolve("confirm-" + i + ".sock");
            Map<String, String> env = AgentHarness.env(sock, home, askpass);
            if (i == 0) {
                agents.pqsshAgent(sock, env);
            } else {
                agents.opensshAgent(sock, env);
            }
            assertEquals(0, run(env, List.of(SSH_ADD.toString(), "-c", "-h", "hop.example", "-H",
                    knownHosts.toString(), key.toString())).rc());
            assertLogin(run(env, ssh(sshdA, "echo confirmed")), "confirmed");
            questions[i] = CliHarness.read(log);
            Files.delete(log);
        }
        assertTrue(questions[1].contains("\npublic key authentication request for user \"" + CliHarness.user()
                + "\" to listed host"), questions[1]);
        assertEquals(questions[1], questions[0], "pqssh agent's question");
    }

    @Test
    void forwardedByPqsshSshTheKeyReachesOnlyHostsTheHopRuleNames() throws Exception {
        for (boolean pqsshAgent : new boolean[] {true, false}) {
            Path sock = dir.resolve((pqsshAgent ? "pqssh" : "openssh") + "-fwd.sock");
            Process sshAgent = null;
            if (pqsshAgent) {
                agents.pqsshAgent(sock, env(sock));
            } else {
                sshAgent = agents.opensshAgent(sock, env(sock));
            }
            String which = pqsshAgent ? "pqssh agent" : "ssh-agent";
            Run add = run(env(sock), List.of(SSH_ADD.toString(), "-h", "hop.example", "-h", "hop.example>b.example",
                    "-H", knownHosts.toString(), key.toString()));
            assertEquals(0, add.rc(), which + ": " + add.out());
            // on the hop (sshd A), OpenSSH's ssh uses the forwarded agent: to B allowed, to pqssh server not
            String fromHop = String.join(" ", ssh(sshdB, "echo hop-to-b")).replace("echo hop-to-b", "'echo hop-to-b'");
            Run toB = pqssh(env(sock), pqsshSsh(sshdA, fromHop, "-A"));
            assertLogin(toB, "hop-to-b");
            String toPq = String.join(" ", ssh(pqsshServer, "echo never")).replace("echo never", "'echo never'");
            Run refused = pqssh(env(sock), pqsshSsh(sshdA, toPq + "; echo hop-rc=$?", "-A"));
            assertTrue(refused.out().contains("hop-rc=255") && refused.out().contains("Permission denied"),
                    which + ": " + refused.out());
            // without the hop>b rule the hop may use the key for nothing
            assertEquals(0, run(env(sock), List.of(SSH_ADD.toString(), "-D")).rc());
            assertEquals(0, run(env(sock), List.of(SSH_ADD.toString(), "-h", "hop.example", "-H",
                    knownHosts.toString(), key.toString())).rc());
            Run noRule = pqssh(env(sock), pqsshSsh(sshdA, fromHop + "; echo hop-rc=$?", "-A"));
            assertTrue(noRule.out().contains("hop-rc=255"), which + ": " + noRule.out());
            if (sshAgent != null) {
                sshAgent.destroy();
                sshAgent.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
