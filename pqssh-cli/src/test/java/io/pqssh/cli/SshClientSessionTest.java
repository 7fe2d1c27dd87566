package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.PasswordFile;

/**
 * {@code pqssh ssh} against a {@code pqssh server} on loopback, as a user runs it: stdin into the remote command
 * (pipes, tar, EOF, {@code -n}), error messages, {@code -v}/{@code -q}, {@code StrictHostKeyChecking no} with a
 * changed host key, passphrase prompts through SSH_ASKPASS and BatchMode, {@code -f} and {@code -N}. Runs that need a
 * real process (pipes, environment) start {@code pqssh} as one; the rest run in this JVM.
 */
class SshClientSessionTest {
    private static final String PASSWORD = "correct horse 42";

    @TempDir
    Path dir;

    private Thread server;
    private int port;
    private Path key;
    private Path knownHosts;
    private Path hostKey;

    @BeforeEach
    void startServer() throws Exception {
        key = dir.resolve("id_mlkem768");
        assertEquals(0, CliHarness.pqssh("keygen", "-q", "-t", "mlkem768", "-N", "", "-f", key.toString()).rc());
        Path authorized = dir.resolve("authorized_keys");
        Files.writeString(authorized, Files.readString(pub(key)));
        hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        Path passwords = dir.resolve("passwords");
        Files.writeString(passwords, PasswordFile.hashLine(CliHarness.user(), PASSWORD.toCharArray()) + "\n");
        Files.setPosixFilePermissions(passwords, PosixFilePermissions.fromString("rw-------"));
        Path portFile = dir.resolve("port");
        List<String> args = List.of("server", "-D", "-p", "0", "--port-file", portFile.toString(),
                "-o", "AuthorizedKeysFile=" + authorized, "-o", "AuthorizedKEMKeysFile=none",
                "-o", "HostKey=" + hostKey, "-o", "PasswordAuthentication=yes", "-o", "PasswordFile=" + passwords);
        AtomicInteger rc = new AtomicInteger(Integer.MIN_VALUE);
        server = new Thread(() -> rc.set(Main.run(args.toArray(String[]::new))), "pqssh-server-under-test");
        server.setDaemon(true);
        server.start();
        CliHarness.waitUntil(Duration.ofSeconds(15),
                () -> !server.isAlive() || CliHarness.read(portFile).matches("\\d+\\n"),
                () -> "pqssh server wrote no port file");
        assertTrue(server.isAlive(), "pqssh server exited with " + rc.get());
        port = Integer.parseInt(CliHarness.read(portFile).strip());
        knownHosts = dir.resolve("known_hosts");
        Files.writeString(knownHosts, "[127.0.0.1]:" + port + " " + Files.readString(pub(hostKey)));
    }

    @AfterEach
    void stopServer() throws Exception {
        server.interrupt();
        server.join(10_000);
        assertFalse(server.isAlive(), "pqssh server thread did not stop");
    }

    /** The options every run here shares: no ~/.ssh/config, this test's known_hosts. */
    private List<String> base(String... extra) {
        List<String> a = new ArrayList<>(List.of("ssh", "-F", "none", "-o", "UserKnownHostsFile=" + knownHosts,
                "-o", "ConnectTimeout=10", "-p", String.valueOf(port)));
        a.addAll(List.of(extra));
        return a;
    }

    private String shellBase(String... extra) {
        StringBuilder b = new StringBuilder("$PQSSH");
        for (String s : base(extra)) {
            b.append(" '").append(s.replace("'", "'\\''")).append("'");
        }
        return b.toString();
    }

    /**
     * The client's stderr: the in-process server logs its sshd-style INFO lines to the same System.err, so they are
     * left out here.
     */
    private static String clientErr(CliHarness.Result r) {
        StringBuilder b = new StringBuilder();
        r.err().lines().filter(l -> !l.matches("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\w+ io\\.pqssh\\.sshd - .*"))
                .forEach(l -> b.append(l).append('\n'));
        return b.toString();
    }

    private String dest() {
        return CliHarness.user() + "@127.0.0.1";
    }

    @Test
    void stdinReachesTheCommandWithEofAndMinusNGivesNone() throws Exception {
        CliHarness.Result wc = CliHarness.shell(dir, Map.of(),
                "printf 'a\\nb\\n' | " + shellBase("-i", key.toString(), dest(), "wc -l"));
        assertEquals(0, wc.rc(), wc.all());
        assertEquals("2", wc.out().strip(), wc.all());

        // tar through the connection (stdin given in this JVM): 2 MB of random bytes and a small file arrive
        Path src = dir.resolve("src/tree");
        Files.createDirectories(src);
        byte[] big = new byte[2 << 20];
        new SecureRandom().nextBytes(big);
        Files.write(src.resolve("big.bin"), big);
        Files.writeString(src.resolve("small.txt"), "small\n");
        Path dest = Files.createDirectories(dir.resolve("dest"));
        Process tarC = new ProcessBuilder("tar", "c", "-C", dir.resolve("src").toString(), "tree")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] archive = tarC.getInputStream().readAllBytes();
        assertEquals(0, tarC.waitFor());
        CliHarness.Result tar = CliHarness.pqsshWithStdin(archive, base("-i", key.toString(), dest(),
                "tar x -C " + dest + " && echo unpacked").toArray(String[]::new));
        assertEquals(0, tar.rc(), tar.all());
        assertEquals("unpacked", tar.out().strip(), tar.all());
        assertArrayEquals(big, Files.readAllBytes(dest.resolve("tree/big.bin")));
        assertEquals("small\n", Files.readString(dest.resolve("tree/small.txt")));

        CliHarness.Result n = CliHarness.pqsshWithStdin("SHOULD-NOT-ARRIVE".getBytes(StandardCharsets.UTF_8),
                base("-n", "-i", key.toString(), dest(), "cat; echo done").toArray(String[]::new));
        assertEquals(0, n.rc(), n.all());
        assertEquals("done", n.out().strip(), n.all());

        // in this JVM too (CliHarness gives System.in), with the remote exit status
        CliHarness.Result cat = CliHarness.pqsshWithStdin("hello\nworld\n".getBytes(StandardCharsets.UTF_8),
                base("-i", key.toString(), dest(), "cat; exit 3").toArray(String[]::new));
        assertEquals(3, cat.rc(), cat.all());
        assertEquals("hello\nworld\n", cat.out(), cat.all());
    }

    @Test
    void errorsAreOneLineInSshWords() throws Exception {
        int closed = CliHarness.freePort();
        CliHarness.Result refused = CliHarness.pqssh("ssh", "-F", "none", "-p", String.valueOf(closed),
                "127.0.0.1", "true");
        assertEquals(255, refused.rc(), refused.all());
        assertEquals("pqssh: connect to host 127.0.0.1 port " + closed + ": Connection refused\n", clientErr(refused),
                refused.all());

        Path missing = dir.resolve("no-such-key");
        CliHarness.Result m = CliHarness.pqssh(base("-i", missing.toString(), "-i", key.toString(), dest(),
                "echo in").toArray(String[]::new));
        assertEquals(0, m.rc(), m.all());
        assertEquals("in", m.out().strip());
        assertEquals("Warning: Identity file " + missing + " not accessible: No such file or directory.\n", clientErr(m),
                m.all());
        CliHarness.Result kem = CliHarness.pqssh(base("-o", "IdentityKEMFile=" + missing, "-i", key.toString(), dest(),
                "true").toArray(String[]::new));
        assertTrue(kem.err().contains("KEM identity file (IdentityKEMFile) " + missing + " not accessible"),
                kem.all());

        CliHarness.Result denied = CliHarness.pqssh(base("-o", "BatchMode=yes", "-i",
                hostKey.toString(), dest(), "true").toArray(String[]::new));
        assertEquals(255, denied.rc(), denied.all());
        for (CliHarness.Result r : List.of(refused, m, kem, denied)) {
            assertFalse(clientErr(r).contains("DefaultConnectFuture") || clientErr(r).contains("WARN")
                    || clientErr(r).contains("Exception"), r.all());
            assertTrue(clientErr(r).lines().count() <= 2, r.all());
        }
    }

    @Test
    void verboseShowsKexHostKeyAndMethodsQuietShowsNothing() throws Exception {
        CliHarness.Result v = CliHarness.pqssh(base("-v", "-i", key.toString(), dest(), "true")
                .toArray(String[]::new));
        assertEquals(0, v.rc(), v.all());
        for (String line : List.of("debug1: Connecting to 127.0.0.1 port " + port + ".",
                "debug1: kex: algorithm: mlkem768x25519-sha256", "debug1: kex: host key algorithm: ssh-ed25519",
                "debug1: Server host key: ssh-ed25519 SHA256:", "debug1: Next authentication method: publickey-kem",
                "debug1: Authenticated to 127.0.0.1 ([127.0.0.1]:" + port + ") using \"publickey-kem\".",
                "debug1: Exit status 0")) {
            assertTrue(v.err().contains(line), "missing '" + line + "'\n" + v.all());
        }
        assertFalse(v.err().contains("debug2:"), v.all());
        CliHarness.Result vv = CliHarness.pqssh(base("-vv", "-i", key.toString(), dest(), "true")
                .toArray(String[]::new));
        assertTrue(vv.err().contains("debug2: peer server KEXINIT proposal"), vv.all());

        Path kh = dir.resolve("kh-new");
        CliHarness.Result q = CliHarness.pqssh("ssh", "-q", "-F", "none", "-o", "UserKnownHostsFile=" + kh, "-o",
                "StrictHostKeyChecking=accept-new", "-p", String.valueOf(port), "-i", key.toString(), dest(), "true");
        assertEquals(0, q.rc(), q.all());
        assertEquals("", clientErr(q), q.all());
        assertTrue(CliHarness.read(kh).contains("ssh-ed25519"));
        CliHarness.Result loud = CliHarness.pqssh("ssh", "-F", "none", "-o", "UserKnownHostsFile=" + dir.resolve("kh2"),
                "-o", "StrictHostKeyChecking=accept-new", "-p", String.valueOf(port), "-i", key.toString(), dest(),
                "true");
        assertEquals("Warning: Permanently added '[127.0.0.1]:" + port + "' (ED25519) to the list of known hosts.\n",
                clientErr(loud), loud.all());
    }

    private Path askpass(String answer) throws Exception {
        Path script = dir.resolve("askpass.sh");
        Files.writeString(script, "#!/bin/sh\necho \"$1\" >> " + dir.resolve("askpass.asked") + "\nprintf '%s\\n' '"
                + answer + "'\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    @Test
    void changedHostKeyUnderNoWarnsAndDisablesPasswordAuthentication() throws Exception {
        Map<String, String> env = Map.of("SSH_ASKPASS", askpass(PASSWORD).toString(), "SSH_ASKPASS_REQUIRE", "force");
        Path asked = dir.resolve("askpass.asked");
        // control: the right host key, password authentication through SSH_ASKPASS logs in
        CliHarness.Result ok = CliHarness.shell(dir, env, shellBase("-o", "StrictHostKeyChecking=no", "-o",
                "PreferredAuthentications=password", dest(), "echo by-password") + " </dev/null");
        assertEquals(0, ok.rc(), ok.all());
        assertEquals("by-password", ok.out().strip(), ok.all());
        assertTrue(CliHarness.read(asked).contains(CliHarness.user() + "@127.0.0.1's password:"), ok.all());
        Files.delete(asked);

        // the known key is another one: the banner, and no password is ever asked for or sent
        Path other = CliHarness.sshKeygen(dir.resolve("other_host_key"), "ed25519");
        Files.writeString(knownHosts, "[127.0.0.1]:" + port + " " + Files.readString(pub(other)));
        CliHarness.Result changed = CliHarness.shell(dir, env, shellBase("-o", "StrictHostKeyChecking=no", "-o",
                "PreferredAuthentications=password", dest(), "echo SHOULD-NOT-RUN") + " </dev/null");
        assertEquals(255, changed.rc(), changed.all());
        assertFalse(changed.out().contains("SHOULD-NOT-RUN"), changed.all());
        assertTrue(changed.err().contains("@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @"),
                changed.all());
        assertTrue(changed.err().contains("Password authentication is disabled to avoid man-in-the-middle attacks."),
                changed.all());
        assertFalse(Files.exists(asked), "askpass was run: " + CliHarness.read(asked));

        // keys still work under "no" (as OpenSSH); under accept-new the changed key is refused outright
        CliHarness.Result withKey = CliHarness.pqssh(base("-o", "StrictHostKeyChecking=no", "-i", key.toString(),
                dest(), "echo by-key").toArray(String[]::new));
        assertEquals(0, withKey.rc(), withKey.all());
        assertTrue(withKey.err().contains("REMOTE HOST IDENTIFICATION HAS CHANGED"), withKey.all());
        CliHarness.Result strict = CliHarness.pqssh(base("-o", "StrictHostKeyChecking=accept-new", "-i",
                key.toString(), dest(), "echo SHOULD-NOT-RUN").toArray(String[]::new));
        assertEquals(255, strict.rc(), strict.all());
        assertTrue(strict.err().contains("Host key verification failed."), strict.all());
        assertTrue(Files.readString(knownHosts).contains(Files.readString(pub(other)).split(" ")[1]),
                "known_hosts was rewritten");
    }

    @Test
    void encryptedKeyPassphraseThroughAskpassNeverInBatchMode() throws Exception {
        Path enc = dir.resolve("id_enc");
        assertEquals(0, CliHarness.pqssh("keygen", "-q", "-t", "mlkem768", "-N", "pass phrase", "-f",
                enc.toString()).rc());
        Files.writeString(dir.resolve("authorized_keys"), Files.readString(pub(enc)));
        Path asked = dir.resolve("askpass.asked");
        Map<String, String> env = Map.of("SSH_ASKPASS", askpass("pass phrase").toString(),
                "SSH_ASKPASS_REQUIRE", "force");
        CliHarness.Result ok = CliHarness.shell(dir, env, shellBase("-i", enc.toString(), dest(), "echo unlocked"));
        assertEquals(0, ok.rc(), ok.all());
        assertEquals("unlocked", ok.out().strip(), ok.all());
        assertTrue(CliHarness.read(asked).contains("Enter passphrase for key '" + enc + "':"), CliHarness.read(asked));
        Files.delete(asked);

        CliHarness.Result batch = CliHarness.shell(dir, env, shellBase("-o", "BatchMode=yes", "-i", enc.toString(),
                dest(), "echo SHOULD-NOT-RUN"));
        assertEquals(255, batch.rc(), batch.all());
        assertFalse(Files.exists(asked), "BatchMode asked: " + CliHarness.read(asked));

        // a wrong answer three times: the key is not used, and the run says why
        Map<String, String> wrong = Map.of("SSH_ASKPASS", askpass("wrong").toString(), "SSH_ASKPASS_REQUIRE", "force");
        CliHarness.Result bad = CliHarness.shell(dir, wrong, shellBase("-o", "PasswordAuthentication=no", "-o",
                "KbdInteractiveAuthentication=no", "-i", enc.toString(), dest(), "true"));
        assertEquals(255, bad.rc(), bad.all());
        assertEquals(3, CliHarness.read(asked).lines().count(), CliHarness.read(asked));
        // as ssh: no message after a wrong passphrase, the prompt comes again (PassphrasePromptTest); the run says
        // why it failed
        assertFalse(bad.err().contains("Bad passphrase"), bad.all());
        assertTrue(bad.err().contains("Permission denied"), bad.all());
    }

    @Test
    void forkAfterAuthenticationAndNoCommand() throws Exception {
        Path marker = dir.resolve("from-background");
        long t0 = System.nanoTime();
        CliHarness.Result f = CliHarness.shell(dir, Map.of(), shellBase("-f", "-i", key.toString(), dest(),
                "sleep 3; echo bg > " + marker));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(0, f.rc(), f.all());
        assertFalse(Files.exists(marker), "pqssh -f returned only after the remote command (" + ms + " ms)");
        CliHarness.waitUntil(Duration.ofSeconds(30), () -> Files.exists(marker),
                () -> "the backgrounded session never ran its command");

        // -N: authenticated, then it stays connected (no session channel) until killed
        Path err = dir.resolve("n.err");
        CliHarness.Result noCmd = CliHarness.shell(dir, Map.of(), shellBase("-N", "-v", "-i", key.toString(), dest())
                + " 2>" + err + " & pid=$!; for i in $(seq 300); do grep -q 'Authenticated to' " + err
                + " && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done; sleep 1;"
                + " if kill -0 $pid 2>/dev/null; then echo still-connected; kill $pid; else echo exited; fi; wait $pid");
        assertEquals("still-connected", noCmd.out().strip(), noCmd.all() + "\n" + CliHarness.read(err));
        assertTrue(CliHarness.read(err).contains("Authenticated to 127.0.0.1"), CliHarness.read(err));
        assertFalse(CliHarness.read(err).contains("Requesting shell") || CliHarness.read(err).contains("Sending command"),
                CliHarness.read(err));
    }
}
