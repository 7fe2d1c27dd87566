package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code first_kex_packet_follows} hit rate of {@code pqssh ssh} against an sshd with a default host key set:
 * Debian's OpenSSH 9.2 with RSA, ECDSA and Ed25519 host keys (in sshd_config's default order), which lists
 * {@code rsa-sha2-512} first, so a client preferring {@code ssh-ed25519} that always guessed would always guess
 * wrong and waste its ~1.2 KB KEX init. Counted from sshd's DEBUG3 log: "first_kex_follows 1" per guess,
 * "skipped packet" per wrong guess. pqssh must never guess wrong here, and once it knows the server and holds all
 * its host keys (as after {@code ssh-keyscan} or OpenSSH's UpdateHostKeys), guess right.
 */
class KexGuessHitRateTest {
    private static final int LOGINS = 5;

    @TempDir
    Path dir;

    private Process sshd;
    private Path sshdLog;
    private Path userKey;
    private final List<Path> hostKeys = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        CliHarness.ensureSshdPrivsepDir();
        userKey = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        for (String t : List.of("rsa", "ecdsa", "ed25519")) {
            hostKeys.add(CliHarness.sshKeygen(dir.resolve("ssh_host_" + t + "_key"), t));
        }
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

    private int startSshd() throws Exception {
        AssertionError last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = CliHarness.freePort();
            List<String> lines = new ArrayList<>();
            for (Path k : hostKeys) {
                lines.add("HostKey " + k.toAbsolutePath());
            }
            lines.addAll(List.of("ListenAddress 127.0.0.1",
                    "AuthorizedKeysFile " + pub(userKey).toAbsolutePath(), "StrictModes no", "UsePAM no",
                    "PidFile none", "PermitRootLogin yes", "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no", "LogLevel DEBUG3", "AllowUsers " + CliHarness.user(), ""));
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
            last = new AssertionError("sshd on port " + port + " did not come up:\n" + CliHarness.read(sshdLog));
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            sshd = null;
        }
        throw last;
    }

    /** One login per element; returns per login: [guessed, wrong guess, negotiated host key algorithm]. */
    private List<String[]> logins(int port, Path knownHosts) throws Exception {
        List<String[]> out = new ArrayList<>();
        for (int i = 0; i < LOGINS; i++) {
            int offset = CliHarness.read(sshdLog).length();
            CliHarness.Result r = CliHarness.pqssh("ssh", "-p", String.valueOf(port), "-i", userKey.toString(),
                    "-o", "UserKnownHostsFile=" + knownHosts, "-o", "StrictHostKeyChecking=accept-new",
                    "-o", "PubkeySignDirectly=yes", "-o", "ConnectTimeout=10", CliHarness.user() + "@127.0.0.1",
                    "exit 7");
            assertEquals(7, r.rc(), "login " + i + ": " + r.all());
            CliHarness.waitUntil(Duration.ofSeconds(10), () -> {
                String s = CliHarness.read(sshdLog).substring(offset);
                return s.contains("Connection closed") || s.contains("Disconnected from") || s.contains("do_cleanup");
            }, () -> "sshd logged no end of the connection");
            String log = CliHarness.read(sshdLog).substring(offset);
            assertTrue(log.contains("first_kex_follows"), log);
            java.util.regex.Matcher hk = java.util.regex.Pattern.compile("kex: host key algorithm: (\\S+)")
                    .matcher(log);
            out.add(new String[] {String.valueOf(log.contains("first_kex_follows 1")),
                    String.valueOf(log.contains("skipped packet")), hk.find() ? hk.group(1) : "?"});
        }
        return out;
    }

    private static String summary(String label, List<String[]> r) {
        long guesses = r.stream().filter(x -> x[0].equals("true")).count();
        long wrong = r.stream().filter(x -> x[1].equals("true")).count();
        StringBuilder s = new StringBuilder(label + ": " + r.size() + " logins, " + guesses + " guesses, "
                + (guesses - wrong) + " right, " + wrong + " wrong; host key algorithms");
        r.forEach(x -> s.append(' ').append(x[2]));
        return s.toString();
    }

    @Test
    void neverGuessesWrongAndGuessesRightOnceItKnowsTheServer() throws Exception {
        int port = startSshd();

        // a known_hosts that pqssh's accept-new filled: only the Ed25519 key. The server's first host key algorithm
        // (rsa-sha2-512) is not verifiable, so a right guess is impossible: pqssh does not guess at all
        List<String[]> edOnly = logins(port, dir.resolve("a").resolve("known_hosts"));
        System.err.println(summary("known_hosts with the Ed25519 key only", edOnly));
        for (String[] x : edOnly) {
            assertEquals(List.of("false", "false", "ssh-ed25519"), List.of(x), summary("ed25519 only", edOnly));
        }

        // a known_hosts holding all three host keys (ssh-keyscan, or OpenSSH's UpdateHostKeys)
        Path b = dir.resolve("b");
        Files.createDirectories(b);
        StringBuilder kh = new StringBuilder();
        for (Path k : hostKeys) {
            String[] f = Files.readString(pub(k)).strip().split("\\s+");
            kh.append("[127.0.0.1]:").append(port).append(' ').append(f[0]).append(' ').append(f[1]).append('\n');
        }
        Files.writeString(b.resolve("known_hosts"), kh);
        List<String[]> all = logins(port, b.resolve("known_hosts"));
        System.err.println(summary("known_hosts with all three host keys", all));
        assertEquals(List.of("false", "false"), List.of(all.get(0)).subList(0, 2),
                "first connection: nothing known about the server, no guess; " + summary("all", all));
        for (String[] x : all.subList(1, all.size())) {
            assertEquals(List.of("true", "false", "rsa-sha2-512"), List.of(x),
                    "later connections guess right; " + summary("all", all));
        }
        assertTrue(Files.readString(b.resolve("pqssh_kex_cache")).contains("[127.0.0.1]:" + port + " sntrup761x25519-sha512,"),
                Files.readString(b.resolve("pqssh_kex_cache")));
    }
}
