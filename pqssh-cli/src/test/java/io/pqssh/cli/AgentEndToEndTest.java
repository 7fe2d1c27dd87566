package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.agent.AgentClient;
import io.pqssh.core.agent.AgentProtocol;
import io.pqssh.core.wire.SshWriter;

/**
 * Agents end to end: {@code pqssh ssh} with OpenSSH's ssh-agent (SSH_AUTH_SOCK, no -i), {@code pqssh agent} +
 * {@code pqssh add} holding an ML-KEM key that logs in by {@code publickey-kem} with the secret only in the agent,
 * the same through {@code -A} to a second hop, OpenSSH's {@code ssh-add -l} against {@code pqssh agent}, and the
 * agent's refusals. Client processes get an empty home ({@code -Duser.home}) so no real ~/.ssh key is used.
 */
class AgentEndToEndTest {
    private static final Path SSH_AGENT = Path.of("/usr/bin/ssh-agent");
    private static final Path SSH_ADD = Path.of("/usr/bin/ssh-add");

    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path home;
    private Process sshAgent;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        h = new ForwardingHarness(dir);
        home = Files.createDirectories(dir.resolve("home"));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (sshAgent != null && sshAgent.isAlive()) {
            sshAgent.destroy();
            sshAgent.waitFor(5, TimeUnit.SECONDS);
        }
        h.close();
    }

    private Map<String, String> env(Path sock) {
        return AgentHarness.env(sock, home, null);
    }

    private String[] ssh(int port, String... command) {
        List<String> a = new java.util.ArrayList<>(List.of("ssh", "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts"), "-p", String.valueOf(port)));
        a.addAll(List.of(command));
        return a.toArray(String[]::new);
    }

    private Path mlkemKey(String name) throws Exception {
        Path f = dir.resolve(name);
        CliHarness.Result r = CliHarness.pqssh("keygen", "-t", "mlkem768", "-N", "", "-f", f.toString(), "-q");
        assertEquals(0, r.rc(), r.all());
        return f;
    }

    private ForwardingHarness.Proc pqsshAgent(Path sock) throws Exception {
        ForwardingHarness.Proc agent = h.startPqssh(Map.of(), "agent", "-D", "-a", sock.toString());
        AgentHarness.awaitListening(sock, agent);
        return agent;
    }

    private void pqsshAdd(Path sock, Path key) throws Exception {
        ForwardingHarness.Proc add = h.startPqssh(env(sock), "add", key.toString());
        assertEquals(0, add.waitFor(Duration.ofSeconds(90)), add.output());
    }

    @Test
    void opensshAgentKeyLogsInWithoutIdentityFile() throws Exception {
        CliHarness.requireBinary(SSH_AGENT, "openssh-client");
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path authorized = dir.resolve("authorized_keys");
        Files.writeString(authorized, Files.readString(pub(key)));
        int port = h.startServer(authorized);
        Path sock = dir.resolve("openssh-agent.sock");
        sshAgent = new ProcessBuilder(SSH_AGENT.toString(), "-a", sock.toString(), "-D")
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(dir.resolve("ssh-agent.out").toFile()).redirectErrorStream(true).start();
        CliHarness.waitUntil(Duration.ofSeconds(10), () -> Files.exists(sock) || !sshAgent.isAlive(),
                () -> "ssh-agent did not start: " + CliHarness.read(dir.resolve("ssh-agent.out")));
        ProcessBuilder add = new ProcessBuilder(SSH_ADD.toString(), key.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("ssh-add.out").toFile());
        add.environment().put("SSH_AUTH_SOCK", sock.toString());
        assertEquals(0, add.start().waitFor(), CliHarness.read(dir.resolve("ssh-add.out")));
        Files.delete(key); // only the agent has it now

        ForwardingHarness.Proc c = h.startPqssh(env(sock),
                ssh(port, CliHarness.user() + "@127.0.0.1", "echo via-openssh-agent"));
        assertEquals(0, c.waitFor(Duration.ofSeconds(90)), c.output());
        assertEquals("via-openssh-agent", CliHarness.read(c.out()).strip(), c.output());
    }

    @Test
    void pqsshAgentHoldsTheKemKeyForALoginAndThroughForwardingToASecondHop() throws Exception {
        Path kem = mlkemKey("id_mlkem768");
        Path ed = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path authorized = dir.resolve("authorized_keys");
        Files.writeString(authorized, Files.readString(pub(kem))); // only the KEM key may log in
        int hop1 = h.startServer(authorized);
        int hop2 = h.startServer(authorized);
        Path sock = dir.resolve("pqssh-agent.sock");
        pqsshAgent(sock);
        pqsshAdd(sock, kem);
        pqsshAdd(sock, ed);

        // ssh-add -l lists the Ed25519 key (base protocol interop); pqssh add -l lists both
        CliHarness.requireBinary(SSH_ADD, "openssh-client");
        ProcessBuilder list = new ProcessBuilder(SSH_ADD.toString(), "-l").redirectErrorStream(true)
                .redirectOutput(dir.resolve("ssh-add-l.out").toFile());
        list.environment().put("SSH_AUTH_SOCK", sock.toString());
        assertEquals(0, list.start().waitFor(), CliHarness.read(dir.resolve("ssh-add-l.out")));
        String edFp = CliHarness.exec(dir, List.of(CliHarness.SSH_KEYGEN.toString(), "-l", "-f", pub(ed).toString()))
                .out().strip();
        assertEquals(edFp, CliHarness.read(dir.resolve("ssh-add-l.out")).strip(), "ssh-add -l against pqssh agent");
        ForwardingHarness.Proc l = h.startPqssh(env(sock), "add", "-l");
        assertEquals(0, l.waitFor(Duration.ofSeconds(90)), l.output());
        String listed = CliHarness.read(l.out());
        assertTrue(listed.contains(edFp) && listed.contains("(MLKEM768)"), l.output());

        // the key files are gone: the secret exists only in the agent
        Files.delete(kem);
        Files.delete(ed);

        ForwardingHarness.Proc one = h.startPqssh(env(sock), ssh(hop1, "-o", "PreferredAuthentications=publickey-kem",
                CliHarness.user() + "@127.0.0.1", "echo via-agent-kem"));
        assertEquals(0, one.waitFor(Duration.ofSeconds(90)), one.output());
        assertEquals("via-agent-kem", CliHarness.read(one.out()).strip(), one.output());

        // -A: on hop 1 a second pqssh ssh logs in to hop 2 with the forwarded agent (its KEM extension included)
        String java = ProcessHandle.current().info().command().orElseThrow();
        String inner = "JAVA_TOOL_OPTIONS=-Duser.home=" + home + " " + java + " -cp '"
                + System.getProperty("java.class.path") + "' io.pqssh.cli.Main ssh -o StrictHostKeyChecking=no"
                + " -o UserKnownHostsFile=" + dir.resolve("known_hosts2") + " -o PreferredAuthentications=publickey-kem"
                + " -p " + hop2 + " " + CliHarness.user() + "@127.0.0.1 'echo hop2 $SSH_CONNECTION'";
        ForwardingHarness.Proc two = h.startPqssh(env(sock), ssh(hop1, "-A", CliHarness.user() + "@127.0.0.1",
                "test -S \"$SSH_AUTH_SOCK\" && " + inner));
        assertEquals(0, two.waitFor(Duration.ofSeconds(120)), two.output());
        assertTrue(CliHarness.read(two.out()).strip().matches("hop2 127\\.0\\.0\\.1 \\d+ 127\\.0\\.0\\.1 " + hop2),
                two.output());

        // without -A the inner login has no agent and no key: it fails
        ForwardingHarness.Proc noA = h.startPqssh(env(sock), ssh(hop1, CliHarness.user() + "@127.0.0.1",
                "test -z \"$SSH_AUTH_SOCK\" && echo no-agent"));
        assertEquals(0, noA.waitFor(Duration.ofSeconds(90)), noA.output());
        assertEquals("no-agent", CliHarness.read(noA.out()).strip(), noA.output());
    }

    /** ssh-add's output against the same agent, stdout and stderr together. */
    private static String sshAdd(AgentHarness agents, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(SSH_ADD.toString()));
        cmd.addAll(List.of(args));
        return agents.run(env, cmd.toArray(String[]::new)).out();
    }

    @Test
    void addListsAndRemovesCertificatesInOpensshAgentAsSshAdd() throws Exception {
        try (AgentHarness agents = new AgentHarness(dir, h)) {
            Path sock = dir.resolve("openssh-agent.sock");
            Map<String, String> env = env(sock);
            agents.opensshAgent(sock, env);
            Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
            for (String type : List.of("ed25519", "rsa", "ecdsa", "dsa")) {
                Path key = CliHarness.sshKeygen(dir.resolve("id_" + type), type);
                CliHarness.sshKeygenSign(ca, key, "-I", "id-" + type, "-n", "alice");
                AgentHarness.Run added = agents.run(env, SSH_ADD.toString(), key.toString());
                assertEquals(0, added.rc(), added.out());
                assertTrue(added.out().contains("Certificate added: "), added.out());
            }
            // a FIDO key as ssh-add adds one (ssh-agent keeps it without the token, which only signing needs)
            try (AgentClient a = AgentClient.connect(sock)) {
                byte[] add = new SshWriter().putByte(AgentProtocol.SSH_AGENTC_ADD_IDENTITY)
                        .putString("sk-ssh-ed25519@openssh.com").putString(new byte[32]).putString("ssh:")
                        .putByte((byte) 1).putString(new byte[] {1, 2, 3, 4}).putString(new byte[0])
                        .putString("fido key").toByteArray();
                assertArrayEquals(new byte[] {AgentProtocol.SSH_AGENT_SUCCESS}, a.request(add));
            }

            String theirs = sshAdd(agents, env, "-l");
            assertEquals(9, theirs.lines().count(), theirs);
            assertTrue(theirs.contains("(ED25519-CERT)") && theirs.contains("(RSA-CERT)")
                    && theirs.contains("(ECDSA-CERT)") && theirs.contains("(DSA-CERT)")
                    && theirs.contains("(ED25519-SK)"), theirs);
            AgentHarness.Run ours = agents.pqssh(env, "add", "-l");
            assertEquals(0, ours.rc(), ours.out());
            assertEquals(theirs, ours.out(), "pqssh add -l against ssh-agent");
            AgentHarness.Run md5 = agents.pqssh(env, "add", "-l", "-E", "md5");
            assertEquals(sshAdd(agents, env, "-l", "-E", "md5"), md5.out());
            AgentHarness.Run pub = agents.pqssh(env, "add", "-L");
            assertEquals(sshAdd(agents, env, "-L"), pub.out());
            assertTrue(pub.out().contains(Files.readString(dir.resolve("id_ed25519-cert.pub")).strip()), pub.out());

            // -d FILE: the key and FILE-cert.pub, as ssh-add -d
            Path ed = dir.resolve("id_ed25519");
            AgentHarness.Run d = agents.pqssh(env, "add", "-d", ed.toString());
            assertEquals(0, d.rc(), d.out());
            assertEquals("Identity removed: " + ed + " ED25519 (pqssh-test-id_ed25519)\nIdentity removed: " + ed
                    + "-cert.pub ED25519-CERT (pqssh-test-id_ed25519)\n", d.out());
            String left = sshAdd(agents, env, "-l");
            assertEquals(7, left.lines().count(), left);
            assertFalse(left.contains("ED25519)") || left.contains("ED25519-CERT"), left);
            assertEquals(left, agents.pqssh(env, "add", "-l").out());
            // again: both are gone, the same messages and status as ssh-add -d
            AgentHarness.Run again = agents.pqssh(env, "add", "-d", ed.toString());
            AgentHarness.Run sshAgain = agents.run(env, SSH_ADD.toString(), "-d", ed.toString());
            assertEquals(1, again.rc(), again.out());
            assertEquals(sshAgain.rc(), again.rc());
            assertEquals(sshAgain.out(), again.out());
            // -k: the plain key only
            Path rsa = dir.resolve("id_rsa");
            AgentHarness.Run k = agents.pqssh(env, "add", "-d", "-k", rsa.toString());
            assertEquals(0, k.rc(), k.out());
            String afterK = sshAdd(agents, env, "-l");
            assertTrue(afterK.contains("(RSA-CERT)") && !afterK.contains("(RSA)"), afterK);
        }
    }

    @Test
    void pqsshAgentListsAndRemovesPostQuantumCertificates() throws Exception {
        Path sock = dir.resolve("pqssh-agent.sock");
        pqsshAgent(sock);
        Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
        List<String> fingerprints = new java.util.ArrayList<>();
        List<String> lines = new java.util.ArrayList<>();
        for (String type : List.of("mldsa65", "mldsa44-ed25519", "mlkem768")) {
            Path key = dir.resolve("id_" + type);
            CliHarness.Result gen = CliHarness.pqssh("keygen", "-q", "-t", type, "-N", "", "-f", key.toString());
            assertEquals(0, gen.rc(), gen.all());
            CliHarness.Result sign = CliHarness.pqssh("keygen", "-q", "-s", ca.toString(), "-I", "id-" + type, "-n",
                    "alice", pub(key).toString());
            assertEquals(0, sign.rc(), sign.all());
            Path cert = dir.resolve("id_" + type + "-cert.pub");
            for (Path f : List.of(pub(key), cert)) {
                fingerprints.add(CliHarness.pqssh("keygen", "-l", "-f", f.toString()).out().strip());
                lines.add(Files.readString(f).strip());
            }
            pqsshAdd(sock, key);
        }
        assertTrue(fingerprints.stream().anyMatch(l -> l.endsWith("(MLKEM768-CERT)")), fingerprints.toString());
        ForwardingHarness.Proc l = h.startPqssh(env(sock), "add", "-l");
        assertEquals(0, l.waitFor(Duration.ofSeconds(90)), l.output());
        assertEquals(fingerprints.stream().sorted().toList(),
                CliHarness.read(l.out()).lines().sorted().toList(), l.output());
        ForwardingHarness.Proc big = h.startPqssh(env(sock), "add", "-L");
        assertEquals(0, big.waitFor(Duration.ofSeconds(90)), big.output());
        assertEquals(lines.stream().sorted().toList(), CliHarness.read(big.out()).lines().sorted().toList());

        for (String type : List.of("mlkem768", "mldsa65")) {
            ForwardingHarness.Proc d = h.startPqssh(env(sock), "add", "-d", dir.resolve("id_" + type).toString());
            assertEquals(0, d.waitFor(Duration.ofSeconds(90)), d.output());
            assertTrue(d.output().contains("-cert.pub " + (type.equals("mlkem768") ? "MLKEM768" : "MLDSA-65")
                    + "-CERT ("), d.output());
        }
        try (AgentClient a = AgentClient.connect(sock)) {
            assertTrue(a.kemIdentities().isEmpty(), "the ML-KEM key or its certificate is still held");
            List<String> left = new java.util.ArrayList<>();
            for (AgentClient.Identity i : a.identities()) {
                left.add(io.pqssh.core.keys.PublicKeyLine.blobKeyType(i.blob()));
            }
            assertEquals(List.of("ssh-mldsa44-ed25519", "ssh-mldsa44-ed25519-cert"), left);
        }
    }

    @Test
    void backgroundAgentPrintsItsEnvironmentKeepsItsDefaultLifetimeAndMinusKStopsIt() throws Exception {
        ForwardingHarness.Proc start = h.startPqssh(Map.of(), "agent", "-t", "1"); // -t reaches the background copy
        assertEquals(0, start.waitFor(Duration.ofSeconds(90)), start.output());
        String out = CliHarness.read(start.out());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "SSH_AUTH_SOCK=(\\S+); export SSH_AUTH_SOCK;\nSSH_AGENT_PID=(\\d+); export SSH_AGENT_PID;\necho Agent pid \\2;\n")
                .matcher(out);
        assertTrue(m.matches(), out);
        Path sock = Path.of(m.group(1));
        long pid = Long.parseLong(m.group(2));
        try {
            assertTrue(Files.exists(sock), "no socket " + sock);
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(sock)));
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(sock.getParent())));
            try (AgentClient a = AgentClient.connect(sock)) {
                assertTrue(a.identities().isEmpty());
                assertTrue(a.add(io.pqssh.core.sig.SshSigningKey.generate(io.pqssh.core.sig.SignatureKeyType.ED25519,
                        new java.security.SecureRandom()), "short-lived"));
                assertEquals(1, a.identities().size());
                long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                while (!a.identities().isEmpty()) {
                    assertTrue(System.nanoTime() < deadline, "the key outlived the agent's -t 1 by 15 s");
                    Thread.sleep(100);
                }
            }
            ForwardingHarness.Proc kill = h.startPqssh(Map.of("SSH_AGENT_PID", String.valueOf(pid)), "agent", "-k");
            assertEquals(0, kill.waitFor(Duration.ofSeconds(90)), kill.output());
            CliHarness.waitUntil(Duration.ofSeconds(30), () -> ProcessHandle.of(pid).isEmpty()
                    && !Files.exists(sock.getParent()), () -> "agent " + pid + " still running or " + sock
                    + " left behind");
        } finally {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy); // ours: started by this test
        }
    }

    @Test
    void agentRefusesUnknownExtensionsAndBadKemRequests() throws Exception {
        Path sock = dir.resolve("pqssh-agent.sock");
        pqsshAgent(sock);
        pqsshAdd(sock, mlkemKey("id_mlkem768"));
        try (AgentClient a = AgentClient.connect(sock)) {
            byte[] unknown = new SshWriter().putByte(AgentProtocol.SSH_AGENTC_EXTENSION)
                    .putString("no-such-extension@example.com").toByteArray();
            assertArrayEquals(new byte[] {AgentProtocol.SSH_AGENT_FAILURE}, a.request(unknown));
            byte[] truncated = new SshWriter().putByte(AgentProtocol.SSH_AGENTC_EXTENSION)
                    .putString("kem-auth-response@pqssh.io").putString(new byte[] {1, 2, 3}).toByteArray();
            assertArrayEquals(new byte[] {AgentProtocol.SSH_AGENT_EXTENSION_FAILURE}, a.request(truncated));
            assertEquals(1, a.kemIdentities().size());
            assertTrue(a.identities().isEmpty(), "a KEM key appeared in SSH_AGENT_IDENTITIES_ANSWER");
            assertTrue(a.removeAll());
            assertTrue(a.kemIdentities().isEmpty());
            assertFalse(a.remove(new byte[] {0, 0, 0, 1, 'x'}), "removing an unknown key succeeded");
        }
    }
}
