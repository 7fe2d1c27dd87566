package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
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

/** pqssh's client ({@code pqssh ssh}, in process) against Debian's OpenSSH 9.2 server on a private config. */
class OpenSshServerFromPqsshClientTest {
    private static final String WEAK_WARNING = "WARNING: connection is not using a post-quantum key exchange";

    @TempDir
    Path dir;

    private Path userKey;
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
        authorizedKeys = dir.resolve("authorized_keys");
        Files.writeString(authorizedKeys, Files.readString(pub(userKey)));
        knownHosts = dir.resolve("known_hosts");
    }

    @AfterEach
    void tearDown() throws Exception {
        stopSshd();
    }

    private void stopSshd() throws InterruptedException {
        if (sshd != null) {
            sshd.destroy();
            if (!sshd.waitFor(5, TimeUnit.SECONDS)) {
                sshd.destroyForcibly();
                sshd.waitFor(5, TimeUnit.SECONDS);
            }
            sshd = null;
        }
    }

    /** Starts {@code sshd -D -e} on 127.0.0.1:PORT with its own config and host key; waits until it listens. */
    private void startSshd(Path hostKey, int port, String extraConfig) throws Exception {
        Path config = dir.resolve("sshd_config-" + port + "-" + hostKey.getFileName());
        Files.writeString(config, String.join("\n",
                "ListenAddress 127.0.0.1",
                "HostKey " + hostKey.toAbsolutePath(),
                "AuthorizedKeysFile " + authorizedKeys.toAbsolutePath(),
                "StrictModes no",
                "UsePAM no",
                "PidFile none",
                "PermitRootLogin yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "AllowUsers " + CliHarness.user(),
                extraConfig,
                ""));
        sshdLog = dir.resolve("sshd-" + port + "-" + System.nanoTime() + ".log");
        sshd = new ProcessBuilder(CliHarness.SSHD.toString(), "-D", "-e", "-f", config.toString(),
                "-p", String.valueOf(port))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(sshdLog.toFile()).start();
        Process p = sshd;
        CliHarness.waitUntil(Duration.ofSeconds(10),
                () -> !p.isAlive() || CliHarness.read(sshdLog).contains("Server listening on 127.0.0.1 port " + port),
                () -> "sshd did not start listening:\n" + CliHarness.read(sshdLog));
        if (!p.isAlive()) {
            fail("sshd exited with " + p.exitValue() + ":\n" + CliHarness.read(sshdLog));
        }
        assertTrue(CliHarness.portOpen(port), "sshd says it listens but port " + port + " is closed");
    }

    private int startSshdOnFreePort(Path hostKey, String extraConfig) throws Exception {
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = CliHarness.freePort();
            try {
                startSshd(hostKey, port, extraConfig);
                return port;
            } catch (AssertionError e) {
                stopSshd(); // the port was taken in between: pick another
                last = new IOException(e.getMessage());
            }
        }
        throw new AssertionError("could not start sshd", last);
    }

    private CliHarness.Result pqsshSsh(int port, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("ssh", "-p", String.valueOf(port), "-i", userKey.toString(),
                "-o", "UserKnownHostsFile=" + knownHosts, "-o", "ConnectTimeout=10"));
        args.addAll(List.of(extra));
        return CliHarness.pqssh(args.toArray(String[]::new));
    }

    private static String hostKeyBlob(Path hostKey) throws IOException {
        return Files.readString(pub(hostKey)).strip().split("\\s+")[1];
    }

    @Test
    void acceptNewRecordsHostKeyStrictThenPassesAndAChangedKeyIsRefused() throws Exception {
        Path host1 = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        int port = startSshdOnFreePort(host1, "");
        String dest = CliHarness.user() + "@127.0.0.1";

        CliHarness.Result first = pqsshSsh(port, "-o", "StrictHostKeyChecking=accept-new", dest,
                "echo from-openssh; exit 5");
        assertEquals(5, first.rc(), first.all());
        assertEquals("from-openssh", first.out().strip(), first.all());
        // OpenSSH 9.2 has sntrup761, so pqssh's PQ-first list gets a PQ exchange and must not warn
        assertFalse(first.err().contains(WEAK_WARNING), first.all());
        String recorded = CliHarness.read(knownHosts);
        assertTrue(recorded.contains("[127.0.0.1]:" + port + " ssh-ed25519 " + hostKeyBlob(host1)),
                "known_hosts after accept-new:\n" + recorded);

        CliHarness.Result strict = pqsshSsh(port, "-o", "StrictHostKeyChecking=yes",
                "-o", "RequirePostQuantumKex=yes", dest, "exit 5");
        assertEquals(5, strict.rc(), strict.all());
        assertEquals(recorded, CliHarness.read(knownHosts), "known_hosts changed on a strict login");
        assertTrue(CliHarness.read(sshdLog).contains("Accepted publickey for " + CliHarness.user()),
                CliHarness.read(sshdLog));

        // same address, new host key: strict checking and accept-new both refuse, known_hosts stays as it was
        stopSshd();
        Path host2 = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key_new"), "ed25519");
        startSshd(host2, port, "");
        for (String mode : List.of("yes", "accept-new")) {
            CliHarness.Result changed = pqsshSsh(port, "-o", "StrictHostKeyChecking=" + mode, dest,
                    "echo SHOULD-NOT-RUN; exit 5");
            assertEquals(255, changed.rc(), mode + ": " + changed.all());
            assertFalse(changed.out().contains("SHOULD-NOT-RUN"), changed.all());
            assertTrue(changed.err().contains("REMOTE HOST IDENTIFICATION HAS CHANGED")
                    && changed.err().contains("Host key verification failed"), mode + ": " + changed.all());
            assertEquals(recorded, CliHarness.read(knownHosts), "known_hosts was changed by " + mode);
        }
        assertFalse(CliHarness.read(sshdLog).contains("Accepted publickey"), CliHarness.read(sshdLog));
    }

    @Test
    void exitStatusDoesNotCutOffOutputStillInFlight() throws Exception {
        // sshd sends exit-status when the child exits, possibly before it has sent the rest of the child's output:
        // pqssh ssh must keep reading until the channel closes (it used to return at exit-status and lose data)
        Path host = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        int port = startSshdOnFreePort(host, "");
        for (int i = 0; i < 4; i++) {
            CliHarness.Result r = pqsshSsh(port, "-o", "StrictHostKeyChecking=" + (i == 0 ? "accept-new" : "yes"),
                    CliHarness.user() + "@127.0.0.1", "seq 1 200000; seq 1 30000 >&2; exit 3");
            assertEquals(3, r.rc(), r.all());
            List<String> out = r.out().lines().toList();
            assertEquals(200000, out.size(), "stdout lines, run " + i);
            assertEquals("200000", out.get(out.size() - 1));
            List<String> err = r.err().lines().filter(l -> l.matches("\\d+")).toList();
            assertEquals(30000, err.size(), "stderr lines, run " + i);
        }
    }

    @Test
    void classicalOnlyServerIsRefusedWithRequirePostQuantumKexAndWarnedAboutOtherwise() throws Exception {
        Path host = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        int port = startSshdOnFreePort(host, "KexAlgorithms curve25519-sha256");
        String dest = CliHarness.user() + "@127.0.0.1";

        CliHarness.Result refused = pqsshSsh(port, "-o", "StrictHostKeyChecking=accept-new",
                "-o", "RequirePostQuantumKex=yes", dest, "echo SHOULD-NOT-RUN; exit 5");
        assertEquals(255, refused.rc(), refused.all());
        assertFalse(refused.out().contains("SHOULD-NOT-RUN"), refused.all());
        assertTrue(refused.err().matches("(?is).*post-?quantum.*") && refused.err().contains("curve25519-sha256"),
                refused.all());

        CliHarness.Result warned = pqsshSsh(port, "-o", "StrictHostKeyChecking=accept-new", dest,
                "echo classical; exit 5");
        assertEquals(5, warned.rc(), warned.all());
        assertEquals("classical", warned.out().strip(), warned.all());
        assertTrue(warned.err().contains(WEAK_WARNING + " algorithm (curve25519-sha256)"), warned.all());

        CliHarness.Result quiet = pqsshSsh(port, "-o", "WarnWeakCrypto=no", dest, "exit 5");
        assertEquals(5, quiet.rc(), quiet.all());
        assertFalse(quiet.err().contains(WEAK_WARNING), quiet.all());
    }
}
