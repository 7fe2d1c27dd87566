package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The round-trip options of {@code pqssh ssh} ({@code NoneProbe}, {@code PubkeySignDirectly}, see
 * docs/round-trips.md) against Debian's OpenSSH 9.2 {@code sshd}, with the USERAUTH requests sshd saw counted from
 * its debug log ({@code sshd -e -o LogLevel=DEBUG3}: "userauth-request for user U service S method M" per request,
 * and for publickey "querying" (a PK_OK probe) or "attempting" (a signed request)).
 */
class RoundTripInteropTest {
    private static final Pattern REQUEST = Pattern.compile("userauth-request for user \\S+ service \\S+ method (\\S+)");
    private static final Pattern PUBKEY = Pattern.compile("user \\S+ (querying|attempting) public key \\S+ (\\S+)");

    @TempDir
    Path dir;

    private Path userKey;
    private Path wrongKey;
    private Path hostKey;
    private Path authorizedKeys;
    private Path knownHosts;
    private Process sshd;
    private Path sshdLog;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        CliHarness.ensureSshdPrivsepDir();
        userKey = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        wrongKey = CliHarness.sshKeygen(dir.resolve("id_ed25519_wrong"), "ed25519");
        hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        authorizedKeys = dir.resolve("authorized_keys");
        Files.writeString(authorizedKeys, Files.readString(pub(userKey)));
        knownHosts = dir.resolve("known_hosts");
    }

    @AfterEach
    void tearDown() throws Exception {
        if (sshd != null) {
            sshd.destroy();
            if (!sshd.waitFor(5, TimeUnit.SECONDS)) {
                sshd.destroyForcibly();
                sshd.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /** sshd -D -e on 127.0.0.1 with DEBUG3 logging; {@code authLines} are the first (so winning) auth settings. */
    private int startSshd(List<String> authLines) throws Exception {
        AssertionError last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = CliHarness.freePort();
            List<String> lines = new ArrayList<>(authLines);
            lines.addAll(List.of(
                    "ListenAddress 127.0.0.1",
                    "HostKey " + hostKey.toAbsolutePath(),
                    "AuthorizedKeysFile " + authorizedKeys.toAbsolutePath(),
                    "StrictModes no",
                    "UsePAM no",
                    "PidFile none",
                    "PermitRootLogin yes",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "LogLevel DEBUG3",
                    "AllowUsers " + CliHarness.user(),
                    ""));
            Path config = dir.resolve("sshd_config-" + port);
            Files.writeString(config, String.join("\n", lines));
            sshdLog = dir.resolve("sshd-" + port + ".log");
            sshd = new ProcessBuilder(CliHarness.SSHD.toString(), "-D", "-e", "-f", config.toString(),
                    "-p", String.valueOf(port))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(sshdLog.toFile()).start();
            Process p = sshd;
            CliHarness.waitUntil(Duration.ofSeconds(10), () -> !p.isAlive()
                    || CliHarness.read(sshdLog).contains("Server listening on 127.0.0.1 port " + port),
                    () -> "sshd did not start listening:\n" + CliHarness.read(sshdLog));
            if (p.isAlive() && CliHarness.portOpen(port)) {
                return port;
            }
            last = new AssertionError("sshd on port " + port + " did not come up (exit "
                    + (p.isAlive() ? "-" : p.exitValue()) + "):\n" + CliHarness.read(sshdLog));
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            sshd = null;
        }
        throw last;
    }

    private CliHarness.Result login(int port, List<Path> keys, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("ssh", "-p", String.valueOf(port)));
        for (Path k : keys) {
            args.addAll(List.of("-i", k.toString()));
        }
        args.addAll(List.of("-o", "UserKnownHostsFile=" + knownHosts, "-o", "StrictHostKeyChecking=accept-new",
                "-o", "ConnectTimeout=10"));
        for (String o : options) {
            args.addAll(List.of("-o", o));
        }
        args.addAll(List.of(CliHarness.user() + "@127.0.0.1", "exit 7"));
        return CliHarness.pqssh(args.toArray(String[]::new));
    }

    /** sshd's log lines are written by its per-connection child: wait until the connection's end is logged. */
    private String logAfter(int offset) throws InterruptedException {
        CliHarness.waitUntil(Duration.ofSeconds(10), () -> {
            String s = CliHarness.read(sshdLog).substring(offset);
            return s.contains("Connection closed") || s.contains("Disconnected from") || s.contains("do_cleanup");
        }, () -> "sshd logged no end of the connection:\n" + CliHarness.read(sshdLog).substring(offset));
        return CliHarness.read(sshdLog).substring(offset);
    }

    private static List<String> methods(String log) {
        List<String> m = new ArrayList<>();
        Matcher x = REQUEST.matcher(log);
        while (x.find()) {
            // after the server's EXT_INFO (publickey-hostbound@openssh.com) MINA switches to the host-bound variant
            // for its second request: the same method as far as round trips go
            m.add(x.group(1).equals("publickey-hostbound-v00@openssh.com") ? "publickey" : x.group(1));
        }
        return m;
    }

    private static List<String> pubkeyBlobs(String log) {
        List<String> m = new ArrayList<>();
        Matcher x = PUBKEY.matcher(log);
        while (x.find()) {
            m.add(x.group(2));
        }
        return m;
    }

    private static List<String> pubkeyKinds(String log) {
        List<String> m = new ArrayList<>();
        Matcher x = PUBKEY.matcher(log);
        while (x.find()) {
            m.add(x.group(1));
        }
        return m;
    }

    @Test
    void everyCombinationOfNoneProbeAndPubkeySignDirectlyLogsInWithTheExpectedRequests() throws Exception {
        int port = startSshd(List.of());
        for (boolean noneProbe : new boolean[] {false, true}) {
            for (boolean direct : new boolean[] {false, true}) {
                String label = "NoneProbe=" + (noneProbe ? "yes" : "no") + " PubkeySignDirectly="
                        + (direct ? "yes" : "no");
                int offset = CliHarness.read(sshdLog).length();
                CliHarness.Result r = login(port, List.of(userKey), "NoneProbe=" + (noneProbe ? "yes" : "no"),
                        "PubkeySignDirectly=" + (direct ? "yes" : "no"));
                assertEquals(7, r.rc(), label + ": " + r.all());
                String log = logAfter(offset);
                assertTrue(log.contains("Accepted publickey for " + CliHarness.user()), label + ":\n" + log);
                List<String> expectedMethods = new ArrayList<>();
                if (noneProbe) {
                    expectedMethods.add("none");
                }
                expectedMethods.add("publickey");
                if (!direct) {
                    expectedMethods.add("publickey");
                }
                assertEquals(expectedMethods, methods(log), label + ": USERAUTH requests sshd saw\n" + log);
                assertEquals(direct ? List.of("attempting") : List.of("querying", "attempting"), pubkeyKinds(log),
                        label + ": publickey requests (querying = PK_OK probe, attempting = signed)\n" + log);
            }
        }
    }

    @Test
    void byDefaultAFileKeyIsSignedAtOnceAndAnAgentKeyIsQueriedFirst() throws Exception {
        CliHarness.requireBinary(Path.of("/usr/bin/ssh-agent"), "openssh-client");
        int port = startSshd(List.of());
        int offset = CliHarness.read(sshdLog).length();
        CliHarness.Result r = login(port, List.of(userKey));
        assertEquals(7, r.rc(), r.all());
        String log = logAfter(offset);
        assertEquals(List.of("attempting"), pubkeyKinds(log), "a key file's key, default settings:\n" + log);

        // the same key in OpenSSH's ssh-agent only (an empty HOME, so no key files): query, PK_OK, then signature
        Path home = Files.createDirectories(dir.resolve("agent-home"));
        Path sock = dir.resolve("agent.sock");
        Process agent = new ProcessBuilder("/usr/bin/ssh-agent", "-D", "-a", sock.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
        try {
            CliHarness.waitUntil(Duration.ofSeconds(10), () -> Files.exists(sock), () -> "ssh-agent made no socket");
            CliHarness.Result add = CliHarness.shell(dir, java.util.Map.of("SSH_AUTH_SOCK", sock.toString()),
                    "ssh-add " + userKey);
            assertEquals(0, add.rc(), add.all());
            offset = CliHarness.read(sshdLog).length();
            CliHarness.Result viaAgent = CliHarness.shell(dir, java.util.Map.of("SSH_AUTH_SOCK", sock.toString(),
                    "HOME", home.toString()), "$PQSSH ssh -p " + port + " -o UserKnownHostsFile=" + knownHosts
                    + " -o StrictHostKeyChecking=accept-new -o ConnectTimeout=10 " + CliHarness.user()
                    + "@127.0.0.1 'exit 7'");
            assertEquals(7, viaAgent.rc(), viaAgent.all());
            log = logAfter(offset);
            assertEquals(List.of("querying", "attempting"), pubkeyKinds(log), "the agent's key:\n" + log);
        } finally {
            agent.destroy();
            agent.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theSecondLoginUsesAnSntrup761KeyPairMadeAheadAgainstSshd() throws Exception {
        int port = startSshd(List.of());
        assertEquals(7, login(port, List.of(userKey)).rc()); // records sshd's KEXINIT in pqssh_kex_cache
        // a process of its own: -vvv turns MINA's and pqssh's debug logging on only at a process's start
        CliHarness.Result r = CliHarness.shell(dir, java.util.Map.of(), "$PQSSH ssh -vvv -p " + port + " -i " + userKey
                + " -o UserKnownHostsFile=" + knownHosts + " -o ConnectTimeout=10 " + CliHarness.user()
                + "@127.0.0.1 'exit 7'");
        assertEquals(7, r.rc(), r.all());
        assertTrue(r.err().contains("sntrup761x25519-sha512 with the KEM key pair made ahead"), r.all());
    }

    @Test
    void wrongKeyThenRightKeyWithDirectSigningLogsInWithOneSignedRequestPerKey() throws Exception {
        int port = startSshd(List.of());
        int offset = CliHarness.read(sshdLog).length();
        CliHarness.Result r = login(port, List.of(wrongKey, userKey), "PubkeySignDirectly=yes");
        assertEquals(7, r.rc(), r.all());
        String log = logAfter(offset);
        assertEquals(List.of("publickey", "publickey"), methods(log), log);
        assertEquals(List.of("attempting", "attempting"), pubkeyKinds(log), log);
        assertTrue(log.contains("Accepted publickey for " + CliHarness.user()), log);
        String wrongBlob = Files.readString(pub(wrongKey)).strip().split("\\s+")[1];
        String rightBlob = Files.readString(pub(userKey)).strip().split("\\s+")[1];
        assertEquals(List.of(wrongBlob, rightBlob), pubkeyBlobs(log), "keys in the order sshd saw them\n" + log);
    }

    @Test
    void passwordOnlyServerAndAKeyOnlyClientFailsFastWithAClearMessage() throws Exception {
        int port = startSshd(List.of("AuthenticationMethods password", "PasswordAuthentication yes"));
        for (String direct : List.of("yes", "no")) {
            int offset = CliHarness.read(sshdLog).length();
            long t0 = System.nanoTime();
            CliHarness.Result r = login(port, List.of(userKey), "PubkeySignDirectly=" + direct);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(255, r.rc(), r.all());
            assertTrue(r.err().contains("Permission denied"), r.all());
            assertTrue(ms < 20_000, "took " + ms + " ms: " + r.all());
            String log = logAfter(offset);
            assertFalse(log.contains("Accepted "), log);
            // no `none` probe (default), one publickey request answered by FAILURE(password), then the client stops
            List<String> m = methods(log);
            assertFalse(m.contains("none"), m + "\n" + log);
            assertFalse(m.contains("password"), m + "\n" + log);
            assertEquals(1, m.size(), "PubkeySignDirectly=" + direct + ": " + m + "\n" + log);
        }
        if (!sshd.isAlive()) {
            fail("sshd died:\n" + CliHarness.read(sshdLog));
        }
    }

    /**
     * {@code GuessKex} against OpenSSH 9.2: sshd logs the client's flag ("first_kex_follows 1") and, for a wrong
     * guess, the packet it drops ("skipped packet"). The first login knows nothing about the server and does not
     * guess; it records sshd's lists in {@code pqssh_kex_cache} beside known_hosts, and later logins guess right
     * (the default list's pick, sntrup761x25519, moved first). Knowledge gone stale (the cache claims a KEX 9.2 does
     * not have) costs one wrong guess, and the login after it guesses right again.
     */
    @Test
    void kexGuessRightAndWrongAgainstOpenSsh() throws Exception {
        int port = startSshd(List.of());
        record Case(String label, List<String> options, boolean flag, boolean skipped) {
        }
        Path cache = knownHosts.resolveSibling("pqssh_kex_cache");
        List<Case> cases = List.of(
                new Case("first login: nothing known", List.of(), false, false),
                new Case("later login: right guess", List.of(), true, false),
                new Case("client list starting with sshd's first",
                        List.of("KexAlgorithms=sntrup761x25519-sha512,curve25519-sha256"), true, false),
                new Case("stale cache: wrong guess", List.of(), true, true),
                new Case("after the wrong guess: right again", List.of(), true, false),
                new Case("GuessKex=no", List.of("GuessKex=no"), false, false));
        for (Case c : cases) {
            if (c.skipped()) {
                Files.writeString(cache, "[127.0.0.1]:" + port + " mlkem768x25519-sha256 ssh-ed25519\n");
            }
            int offset = CliHarness.read(sshdLog).length();
            List<String> opts = new ArrayList<>(c.options());
            opts.add("PubkeySignDirectly=yes");
            CliHarness.Result r = login(port, List.of(userKey), opts.toArray(String[]::new));
            assertEquals(7, r.rc(), c.label() + ": " + r.all());
            String log = logAfter(offset);
            assertTrue(log.contains("first_kex_follows " + (c.flag() ? 1 : 0)), c.label() + ":\n" + log);
            assertEquals(c.skipped(), log.contains("skipped packet (type 30)"), c.label() + ": dropped guess?\n" + log);
            assertEquals(c.skipped(), log.contains("proposal mismatch"), c.label() + ": mismatch logged?\n" + log);
            assertTrue(log.contains("Accepted publickey for " + CliHarness.user()), c.label() + ":\n" + log);
        }
    }
}
