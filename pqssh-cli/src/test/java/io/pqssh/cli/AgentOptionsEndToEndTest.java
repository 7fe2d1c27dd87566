package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.cli.AgentHarness.Run;

/**
 * The ssh-agent and ssh-add options beyond keys and constraints, compared with OpenSSH 9.2's tools where they
 * exist there: {@code pqssh add -T} (a signature, or an ML-KEM decapsulation, checked), {@code -k}, {@code -C},
 * {@code -S}, the refused PKCS#11/FIDO options {@code -s}, {@code -e}, {@code -K}; {@code pqssh agent -d} (request
 * types on stderr, no key material), {@code -E md5} in the confirmation question, and {@code -E}, {@code -O},
 * {@code -P}, {@code -d}/{@code -D} checked with ssh-agent's messages and exit statuses.
 */
class AgentOptionsEndToEndTest {
    private static final String SSH_ADD = AgentHarness.SSH_ADD.toString();
    private static final String SSH_AGENT = AgentHarness.SSH_AGENT.toString();

    @TempDir
    Path dir;

    private ForwardingHarness h;
    private AgentHarness agents;
    private Path home;
    private Path askpass;
    private Path askpassLog;

    @BeforeEach
    void setUp() throws Exception {
        h = new ForwardingHarness(dir);
        agents = new AgentHarness(dir, h);
        home = Files.createDirectories(dir.resolve("home"));
        askpassLog = dir.resolve("askpass.log");
        Path answer = Files.writeString(dir.resolve("answer"), "yes\n");
        askpass = AgentHarness.askpass(dir, askpassLog, answer);
    }

    @AfterEach
    void tearDown() throws Exception {
        agents.close();
        h.close();
    }

    private Map<String, String> env(Path sock) {
        return AgentHarness.env(sock, home, askpass);
    }

    /** OpenSSH's error lines end in CR LF (log.c); pqssh's in LF. */
    private static Run lf(Run r) {
        return new Run(r.rc(), r.out().replace("\r\n", "\n"));
    }

    @Test
    void addTestChecksSignaturesAndKemDecapsulationsAsSshAddDoes() throws Exception {
        Path ed = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path absent = CliHarness.sshKeygen(dir.resolve("id_absent"), "ed25519");
        Path kem = dir.resolve("id_mlkem768");
        CliHarness.Result kg = CliHarness.pqssh("keygen", "-t", "mlkem768", "-N", "", "-f", kem.toString(), "-q");
        assertEquals(0, kg.rc(), kg.all());
        Path psock = dir.resolve("pqssh.sock");
        agents.pqsshAgent(psock, env(psock));
        Map<String, String> p = env(psock);
        assertEquals(0, agents.run(p, SSH_ADD, ed.toString()).rc());
        assertEquals(0, agents.pqssh(p, "add", kem.toString()).rc());

        assertEquals(new Run(0, ""), agents.pqssh(p, "add", "-T", pub(ed).toString()));
        assertEquals(agents.run(p, SSH_ADD, "-T", pub(ed).toString()), agents.pqssh(p, "add", "-T",
                pub(ed).toString()));
        Run refused = agents.pqssh(p, "add", "-T", pub(absent).toString());
        assertEquals(new Run(1, "Agent signature failed for " + pub(absent) + ": agent refused operation\n"),
                refused);
        assertEquals(lf(agents.run(p, SSH_ADD, "-T", pub(absent).toString())), refused);
        assertEquals(new Run(0, ""), agents.pqssh(p, "add", "-T", pub(kem).toString()), "the agent decapsulated");
        assertEquals(0, agents.pqssh(p, "add", "-d", kem.toString()).rc());
        assertEquals(1, agents.pqssh(p, "add", "-T", pub(kem).toString()).rc(), "no KEM key held any more");
        assertEquals(new Run(255, "no keys to test\n"), agents.pqssh(p, "add", "-T"));

        Path osock = dir.resolve("openssh.sock");
        agents.opensshAgent(osock, env(osock));
        Map<String, String> o = env(osock);
        assertEquals(0, agents.run(o, SSH_ADD, ed.toString()).rc());
        assertEquals(new Run(0, ""), agents.pqssh(o, "add", "-T", pub(ed).toString()), "ssh-agent's signature");
    }

    @Test
    void certificateAndProviderOptionsAsSshAddWithoutPkcs11OrFido() throws Exception {
        Path osock = dir.resolve("openssh.sock");
        agents.opensshAgent(osock, env(osock));
        Map<String, String> o = env(osock);
        Path ed = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        for (List<String> args : List.of(List.of("-s", "/usr/lib/x.so"), List.of("-e", "/usr/lib/x.so"),
                List.of("-K"))) {
            String[] a = new String[args.size() + 1];
            a[0] = "add";
            for (int i = 0; i < args.size(); i++) {
                a[i + 1] = args.get(i);
            }
            Run r = agents.pqssh(o, a);
            assertEquals(1, r.rc(), args + ": " + r.out());
            assertTrue(r.out().contains("not supported"), r.out());
        }
        Run certOnly = agents.pqssh(o, "add", "-C", ed.toString());
        assertEquals(1, certOnly.rc(), certOnly.out());
        assertEquals(new Run(1, "The agent has no identities.\n"), agents.run(o, SSH_ADD, "-l"));
        assertEquals(0, agents.pqssh(o, "add", "-k", "-S", "/usr/lib/x.so", ed.toString()).rc());
        assertEquals(0, agents.run(o, SSH_ADD, "-l").rc(), "-k and -S still add a plain key");
        assertEquals(agents.run(o, SSH_ADD, "-q", "-D"), agents.pqssh(o, "add", "-q", "-D"), "-q -D is silent");
    }

    @Test
    void agentOptionErrorsAsSshAgent() throws Exception {
        Path sock = dir.resolve("never.sock");
        for (List<String> bad : List.of(List.of("-E", "sha1x"), List.of("-O", "bogus"),
                List.of("-P", "/a", "-P", "/b"))) {
            String[] ours = new String[bad.size() + 4];
            String[] theirs = new String[bad.size() + 4];
            ours[0] = "agent";
            theirs[0] = SSH_AGENT;
            for (int i = 0; i < bad.size(); i++) {
                ours[i + 1] = bad.get(i);
                theirs[i + 1] = bad.get(i);
            }
            for (String[] a : List.of(ours, theirs)) {
                a[bad.size() + 1] = "-D";
                a[bad.size() + 2] = "-a";
                a[bad.size() + 3] = sock.toString();
            }
            Run expected = lf(agents.run(Map.of(), theirs));
            assertEquals(255, expected.rc(), expected.out());
            assertEquals(expected, agents.pqssh(Map.of(), ours), bad.toString());
        }
        // OpenSSH 10's websafe-allow (9.2 has none): once only, as ssh-agent.c says
        assertEquals(new Run(255, "websafe-allow already set\n"), agents.pqssh(Map.of(), "agent", "-O",
                "websafe-allow=a", "-O", "websafe-allow=b", "-D", "-a", sock.toString()));
        assertEquals(agents.run(Map.of(), SSH_AGENT, "-d", "-D").rc(), agents.pqssh(Map.of(), "agent", "-d", "-D")
                .rc());
        assertFalse(Files.exists(sock));
        Path ok = dir.resolve("ok.sock");
        agents.pqsshAgent(ok, env(ok), "-O", "allow-remote-pkcs11", "-O", "no-restrict-websafe", "-P", "/usr/lib*/*");
        assertEquals(new Run(1, "The agent has no identities.\n"), agents.run(env(ok), SSH_ADD, "-l"));
    }

    @Test
    void debugModeLogsRequestTypesAndMd5FingerprintsReachTheQuestion() throws Exception {
        Path ed = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        String md5 = agents.run(Map.of(), CliHarness.SSH_KEYGEN.toString(), "-l", "-E", "md5", "-f",
                pub(ed).toString()).out().split(" ")[1];
        Path sock = dir.resolve("debug.sock");
        ForwardingHarness.Proc agent = h.startPqssh(env(sock), "agent", "-d", "-E", "md5", "-a", sock.toString());
        AgentHarness.awaitListening(sock, agent);
        Map<String, String> e = env(sock);
        assertEquals(0, agents.run(e, SSH_ADD, "-c", ed.toString()).rc());
        assertEquals(new Run(0, ""), agents.run(e, SSH_ADD, "-T", pub(ed).toString()));
        assertEquals("confirm|Allow use of key pqssh-test-id_ed25519?\nKey fingerprint " + md5 + ".\n",
                CliHarness.read(askpassLog));
        String log = CliHarness.read(agent.err());
        assertTrue(log.contains("ADD_ID_CONSTRAINED -> SUCCESS"), log);
        assertTrue(log.contains("SIGN_REQUEST -> SIGN_RESPONSE"), log);
        String publicBase64 = Files.readString(pub(ed)).split(" ")[1];
        assertFalse(log.contains(publicBase64.substring(20, 60)), "key material in the debug log: " + log);
        assertTrue(agent.process().isAlive(), "-d stays in the foreground");
    }
}
