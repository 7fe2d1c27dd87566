package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.cli.AgentHarness.Run;
import io.pqssh.core.agent.Agent;
import io.pqssh.core.agent.AgentClient;
import io.pqssh.client.agent.AgentSocketServer;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/**
 * What ssh-agent/ssh-add users rely on, both ways between OpenSSH 9.2 and pqssh: key lifetimes ({@code -t}, and
 * {@code pqssh agent -t} as the default), confirmation of each use through an SSH_ASKPASS script this test writes
 * (for a signature and for an ML-KEM decapsulation during a {@code publickey-kem} login), lock/unlock ({@code -x} /
 * {@code -X}), {@code -d}/{@code -D}, and the agent's refusal of peers that are neither root nor its own user.
 */
class AgentConstraintsEndToEndTest {
    private static final Path SSH_ADD = AgentHarness.SSH_ADD;
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");

    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path home;
    private Path askpass;
    private Path askpassLog;
    private Path answer;
    private AgentHarness agents;

    @BeforeEach
    void setUp() throws Exception {
        h = new ForwardingHarness(dir);
        agents = new AgentHarness(dir, h);
        home = Files.createDirectories(dir.resolve("home"));
        askpassLog = dir.resolve("askpass.log");
        answer = dir.resolve("answer");
        askpass = AgentHarness.askpass(dir, askpassLog, answer);
        answer("yes");
    }

    @AfterEach
    void tearDown() throws Exception {
        agents.close();
        h.close();
    }

    private void answer(String s) throws IOException {
        Files.writeString(answer, s + "\n");
    }

    private Map<String, String> env(Path sock) {
        return AgentHarness.env(sock, home, askpass);
    }

    private Run run(Map<String, String> env, String... cmd) throws Exception {
        return agents.run(env, cmd);
    }

    private Run pqssh(Map<String, String> env, String... args) throws Exception {
        return agents.pqssh(env, args);
    }

    private ForwardingHarness.Proc pqsshAgent(Path sock, String... extra) throws Exception {
        return agents.pqsshAgent(sock, env(sock), extra);
    }

    private void opensshAgent(Path sock) throws Exception {
        agents.opensshAgent(sock, env(sock));
    }

    private static String fingerprint(Path key) throws IOException {
        return KeyFingerprints.sha256(blob(key));
    }

    private static byte[] blob(Path key) throws IOException {
        return Base64.getDecoder().decode(Files.readString(pub(key)).strip().split("\\s+")[1]);
    }

    /** ssh-agent's question, as its askpass receives it. */
    private static String expectedQuestion(Path key) throws IOException {
        return "confirm|Allow use of key pqssh-test-" + key.getFileName() + "?\nKey fingerprint " + fingerprint(key)
                + ".\n";
    }

    private static byte[] sign(Path sock, Path key) throws IOException {
        try (AgentClient a = AgentClient.connect(sock)) {
            return a.sign(blob(key), "to be signed".getBytes(StandardCharsets.US_ASCII), 0);
        }
    }

    private String takeAskpassLog() throws IOException {
        String s = CliHarness.read(askpassLog);
        Files.deleteIfExists(askpassLog);
        return s;
    }

    private void waitUntilGone(Map<String, String> env, Path key) throws Exception {
        String fp = fingerprint(key);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (run(env, SSH_ADD.toString(), "-l").out().contains(fp)) {
            assertTrue(System.nanoTime() < deadline, key + " still listed 15 s after its lifetime");
            Thread.sleep(100);
        }
    }

    @Test
    void opensshSshAddDrivesPqsshAgentConstraintsLockAndRemoval() throws Exception {
        Path sock = dir.resolve("pqssh-agent.sock");
        pqsshAgent(sock, "-t", "2"); // default lifetime 2 s
        Map<String, String> env = env(sock);
        Path byDefault = CliHarness.sshKeygen(dir.resolve("id_default"), "ed25519");
        Path short1 = CliHarness.sshKeygen(dir.resolve("id_short"), "ed25519");
        Path confirm = CliHarness.sshKeygen(dir.resolve("id_confirm"), "ed25519");

        Run add = run(env, SSH_ADD.toString(), "-c", "-t", "60", confirm.toString());
        assertEquals(0, add.rc(), add.out());
        assertTrue(add.out().contains("Lifetime set to 60 seconds\nThe user must confirm each use of the key"),
                add.out());
        assertEquals(0, run(env, SSH_ADD.toString(), "-t", "1", short1.toString()).rc());
        assertEquals(0, run(env, SSH_ADD.toString(), byDefault.toString()).rc());
        Run listed = run(env, SSH_ADD.toString(), "-l");
        assertTrue(listed.out().contains(fingerprint(confirm)), listed.out());

        // confirm: asked each time through SSH_ASKPASS with SSH_ASKPASS_PROMPT=confirm; "no" or a failing askpass refuses
        assertTrue(sign(sock, confirm).length > 64);
        assertEquals(expectedQuestion(confirm), takeAskpassLog());
        answer("no");
        assertThrows(IOException.class, () -> sign(sock, confirm));
        answer("FAIL");
        assertThrows(IOException.class, () -> sign(sock, confirm));
        assertEquals(expectedQuestion(confirm) + expectedQuestion(confirm), takeAskpassLog());

        // lifetimes: -t 1 and the agent's default 2 s end; -t 60 outlives both
        waitUntilGone(env, short1);
        waitUntilGone(env, byDefault);
        assertTrue(run(env, SSH_ADD.toString(), "-l").out().contains(fingerprint(confirm)));

        // lock: no keys listed, no signatures; a wrong passphrase does not unlock
        answer("s3cret");
        Run lock = run(env, SSH_ADD.toString(), "-x");
        assertEquals(0, lock.rc(), lock.out());
        assertTrue(lock.out().contains("Agent locked."), lock.out());
        Run locked = run(env, SSH_ADD.toString(), "-l");
        assertEquals(1, locked.rc(), locked.out());
        assertTrue(locked.out().contains("The agent has no identities."), locked.out());
        answer("yes");
        assertThrows(IOException.class, () -> sign(sock, confirm));
        assertEquals("", takeAskpassLog().replaceAll("\\|Enter lock password: \n|\\|Again: \n", ""),
                "a locked agent asked to confirm a use");
        answer("wrong");
        Run bad = run(env, SSH_ADD.toString(), "-X");
        assertEquals(1, bad.rc(), bad.out());
        assertTrue(bad.out().contains("Failed to unlock agent: agent refused operation"), bad.out());
        answer("s3cret");
        Run unlock = run(env, SSH_ADD.toString(), "-X");
        assertEquals(0, unlock.rc(), unlock.out());
        assertTrue(run(env, SSH_ADD.toString(), "-l").out().contains(fingerprint(confirm)));

        // -d by file, -D
        Run del = run(env, SSH_ADD.toString(), "-d", confirm.toString());
        assertEquals("Identity removed: " + confirm + " ED25519 (pqssh-test-id_confirm)\n", del.out());
        assertEquals(1, run(env, SSH_ADD.toString(), "-d", confirm.toString()).rc());
        assertEquals(0, run(env, SSH_ADD.toString(), short1.toString()).rc());
        assertEquals(0, run(env, SSH_ADD.toString(), "-D").rc());
        assertEquals(1, run(env, SSH_ADD.toString(), "-l").rc());
    }

    @Test
    void pqsshAddDrivesOpensshAgentConstraintsAndLock() throws Exception {
        Path sock = dir.resolve("openssh-agent.sock");
        opensshAgent(sock);
        Map<String, String> env = env(sock);
        Path confirm = CliHarness.sshKeygen(dir.resolve("id_confirm"), "ed25519");
        Path short2 = CliHarness.sshKeygen(dir.resolve("id_short"), "ed25519");

        Run add = pqssh(env, "add", "-t", "2", short2.toString());
        assertEquals(0, add.rc(), add.out());
        assertEquals("Identity added: " + short2 + " (pqssh-test-id_short)\nLifetime set to 2 seconds\n", add.out());
        assertTrue(run(env, SSH_ADD.toString(), "-l").out().contains(fingerprint(short2)));
        Run addC = pqssh(env, "add", "-c", confirm.toString());
        assertEquals(0, addC.rc(), addC.out());
        assertTrue(addC.out().endsWith("The user must confirm each use of the key\n"), addC.out());
        waitUntilGone(env, short2); // ssh-agent honoured pqssh's lifetime constraint

        // ssh-agent asks the same question pqssh agent asks (the other test checks pqssh's)
        assertTrue(sign(sock, confirm).length > 64);
        answer("no");
        assertThrows(IOException.class, () -> sign(sock, confirm));
        assertEquals(expectedQuestion(confirm) + expectedQuestion(confirm), takeAskpassLog());

        answer("s3cret");
        Run lock = pqssh(env, "add", "-x");
        assertEquals(0, lock.rc(), lock.out());
        assertTrue(lock.out().contains("Agent locked."), lock.out());
        assertEquals("|Enter lock password: \n|Again: \n", takeAskpassLog(), "the lock passphrase came from askpass");
        assertEquals(1, run(env, SSH_ADD.toString(), "-l").rc());
        answer("wrong");
        Run bad = pqssh(env, "add", "-X");
        assertEquals(1, bad.rc(), bad.out());
        assertTrue(bad.out().contains("Failed to unlock agent: agent refused operation"), bad.out());
        answer("s3cret");
        Run ok = pqssh(env, "add", "-X");
        assertEquals(0, ok.rc(), ok.out());
        assertTrue(ok.out().contains("Agent unlocked."), ok.out());
        assertTrue(run(env, SSH_ADD.toString(), "-l").out().contains(fingerprint(confirm)));

        // listing, removal: the same output and status as ssh-add against the same agent
        Run md5 = run(env, SSH_ADD.toString(), "-l", "-E", "md5");
        assertTrue(md5.out().contains("MD5:"), md5.out());
        assertEquals(md5, pqssh(env, "add", "-l", "-E", "md5"));
        assertEquals(run(env, SSH_ADD.toString(), "-L"), pqssh(env, "add", "-L"));
        Run del = pqssh(env, "add", "-d", confirm.toString());
        assertEquals(new Run(0, "Identity removed: " + confirm + " ED25519 (pqssh-test-id_confirm)\n"), del);
        assertEquals(0, run(env, SSH_ADD.toString(), short2.toString()).rc());
        assertEquals(new Run(0, "All identities removed.\n"), pqssh(env, "add", "-D"));
        assertEquals(new Run(1, "The agent has no identities.\n"), run(env, SSH_ADD.toString(), "-l"));
    }

    @Test
    void confirmGuardsLoginsWithOpensshAgentSignatureKeysAndPqsshAgentKemKeys() throws Exception {
        Path ed = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path kem = dir.resolve("id_mlkem768");
        CliHarness.Result kg = CliHarness.pqssh("keygen", "-t", "mlkem768", "-N", "", "-C", "pqssh-test-id_mlkem768",
                "-f", kem.toString(), "-q");
        assertEquals(0, kg.rc(), kg.all());
        Path authorized = dir.resolve("authorized_keys");
        Files.writeString(authorized, Files.readString(pub(ed)) + Files.readString(pub(kem)));
        int port = h.startServer(authorized);
        List<String> ssh = List.of("ssh", "-o", "StrictHostKeyChecking=no", "-o", "BatchMode=yes",
                "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts"), "-p", String.valueOf(port));

        // OpenSSH's agent holds the Ed25519 key added by pqssh add -c: pqssh ssh's publickey needs a "yes"
        Path osock = dir.resolve("openssh-agent.sock");
        opensshAgent(osock);
        assertEquals(0, pqssh(env(osock), "add", "-c", ed.toString()).rc());
        List<String> login = new ArrayList<>(ssh);
        login.addAll(List.of(CliHarness.user() + "@127.0.0.1", "echo agent-signed"));
        Run yes = pqssh(env(osock), login.toArray(String[]::new));
        assertEquals(0, yes.rc(), yes.out());
        assertTrue(yes.out().contains("agent-signed"), yes.out());
        assertTrue(takeAskpassLog().contains(expectedQuestion(ed)));

        // pqssh agent holds the ML-KEM key added with -c: the agent asks before it decapsulates
        Path psock = dir.resolve("pqssh-agent.sock");
        pqsshAgent(psock);
        Run addKem = pqssh(env(psock), "add", "-c", kem.toString());
        assertEquals(0, addKem.rc(), addKem.out());
        List<String> kemLogin = new ArrayList<>(ssh);
        kemLogin.addAll(List.of("-o", "PreferredAuthentications=publickey-kem", CliHarness.user() + "@127.0.0.1",
                "echo agent-decapsulated"));
        Run kemYes = pqssh(env(psock), kemLogin.toArray(String[]::new));
        assertEquals(0, kemYes.rc(), kemYes.out());
        assertTrue(kemYes.out().contains("agent-decapsulated"), kemYes.out());
        assertEquals(expectedQuestion(kem), takeAskpassLog());
        answer("no");
        Run kemNo = pqssh(env(psock), kemLogin.toArray(String[]::new));
        assertEquals(255, kemNo.rc(), kemNo.out());
        assertEquals(expectedQuestion(kem), takeAskpassLog());
    }

    @Test
    void badLifetimesAndActionCombinationsFailAsInOpenssh() throws Exception {
        // ssh-add 9.2: "Invalid lifetime" exit 1; "Invalid combination of actions" exit 255 (fatal)
        CliHarness.Result addT = CliHarness.pqssh("add", "-t", "1x", "key");
        assertEquals(1, addT.rc(), addT.all());
        assertEquals("Invalid lifetime\n", addT.err());
        CliHarness.Result agentT = CliHarness.pqssh("agent", "-D", "-t", "soon", "-a", dir.resolve("s").toString());
        assertEquals(1, agentT.rc(), agentT.all());
        assertEquals("Invalid lifetime\n", agentT.err());
        assertTrue(Files.notExists(dir.resolve("s")), "an agent with a bad -t started anyway");
        for (String[] combo : List.of(new String[] {"-l", "-D"}, new String[] {"-x", "-X"}, new String[] {"-L", "-x"})) {
            List<String> args = new ArrayList<>(List.of("add"));
            args.addAll(List.of(combo));
            CliHarness.Result r = CliHarness.pqssh(args.toArray(String[]::new));
            assertEquals(255, r.rc(), r.all());
            assertEquals("Invalid combination of actions\n", r.err());
        }
    }

    @Test
    void agentSocketRefusesPeersThatAreNeitherRootNorItsOwnUser() throws Exception {
        assertEquals("root", CliHarness.user(), "this test needs root: it connects as uid 65534 with setpriv");
        CliHarness.requireBinary(SETPRIV, "util-linux");
        // a directory and socket anyone may reach, so only the agent's own check stands in the way
        Path open = Files.createTempDirectory(Path.of("/tmp"), "pqssh-peercred-");
        Path sock = open.resolve("agent.sock");
        Agent agent = new Agent();
        agent.add(SshSigningKey.generate(SignatureKeyType.ED25519, new java.security.SecureRandom()), "peer-test");
        try (AgentSocketServer server = AgentSocketServer.start(sock, agent)) {
            Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(sock, PosixFilePermissions.fromString("rw-rw-rw-"));
            Map<String, String> env = Map.of("SSH_AUTH_SOCK", sock.toString());
            Run asRoot = run(env, SSH_ADD.toString(), "-l");
            assertEquals(0, asRoot.rc(), asRoot.out());
            assertTrue(asRoot.out().contains("peer-test"), asRoot.out());
            Run asNobody = run(env, SETPRIV.toString(), "--reuid=65534", "--regid=65534", "--clear-groups",
                    SSH_ADD.toString(), "-l");
            assertNotEquals(0, asNobody.rc(), asNobody.out());
            assertFalse(asNobody.out().contains("peer-test"), asNobody.out());
            // the agent closes the connection at once: ssh-add then reads end of file ("error fetching identities")
            // or, if the close came before its request was written, dies of SIGPIPE (128 + 13) without a word
            assertTrue(asNobody.out().contains("error fetching identities") || asNobody.rc() == 141,
                    "rc " + asNobody.rc() + ": " + asNobody.out());
        } finally {
            Files.deleteIfExists(sock);
            Files.deleteIfExists(open);
        }
    }
}
