package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pqssh keygen}, {@code pqssh server} + {@code pqssh ssh} with ML-KEM credentials, and {@code pqssh demo}. */
class CliEndToEndTest {
    @TempDir
    Path dir;

    private final List<Thread> servers = new ArrayList<>();

    @AfterEach
    void stopServers() throws Exception {
        for (Thread t : servers) {
            t.interrupt(); // ServerCommand waits on a latch; the interrupt ends it and closes the server
            t.join(10_000);
            assertFalse(t.isAlive(), "pqssh server thread did not stop");
        }
    }

    private Path keygen(String type, String name, String passphrase) throws Exception {
        Path f = dir.resolve(name);
        CliHarness.Result r = CliHarness.pqssh("keygen", "-t", type, "-N", passphrase, "-f", f.toString(), "-q",
                "-C", name + "@test");
        assertEquals(0, r.rc(), r.all());
        return f;
    }

    private static String perms(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void keygenWritesMlkemKeyFilesAndReadsThemBack() throws Exception {
        Path key = keygen("mlkem768", "id_mlkem768", "");
        assertEquals("rw-------", perms(key));
        assertEquals("rw-r--r--", perms(pub(key)));
        String pubLine = Files.readString(pub(key)).strip();
        assertTrue(pubLine.startsWith("mlkem768 "), pubLine);
        assertTrue(Files.readString(key).startsWith("-----BEGIN OPENSSH PRIVATE KEY-----"));

        CliHarness.Result y = CliHarness.pqssh("keygen", "-y", "-f", key.toString());
        assertEquals(0, y.rc(), y.all());
        assertEquals(pubLine, y.out().strip());

        // fingerprint: SHA256 over the public key blob, unpadded base64, as ssh-keygen -l prints it
        byte[] blob = Base64.getDecoder().decode(pubLine.split(" ")[1]);
        byte[] blobPrefix = new byte[4 + "mlkem768".length()];
        System.arraycopy(blob, 0, blobPrefix, 0, blobPrefix.length);
        assertEquals("\0\0\0\bmlkem768", new String(blobPrefix, java.nio.charset.StandardCharsets.US_ASCII));
        String expected = "SHA256:" + Base64.getEncoder().withoutPadding()
                .encodeToString(MessageDigest.getInstance("SHA-256").digest(blob));
        for (Path f : List.of(key, pub(key))) {
            CliHarness.Result l = CliHarness.pqssh("keygen", "-l", "-f", f.toString());
            assertEquals(0, l.rc(), l.all());
            assertEquals("768 " + expected + " id_mlkem768@test (MLKEM768)", l.out().strip(), l.all());
        }

        CliHarness.Result again = CliHarness.pqssh("keygen", "-t", "mlkem768", "-N", "", "-f", key.toString(), "-q");
        assertNotEquals(0, again.rc(), "keygen overwrote a key: " + again.all());
        assertEquals(pubLine, Files.readString(pub(key)).strip());
    }

    @Test
    void encryptedKeyNeedsTheRightPassphrase() throws Exception {
        Path key = keygen("mlkem768", "id_enc", "s3cret pass");
        assertTrue(Files.readString(key).contains("-----BEGIN OPENSSH PRIVATE KEY-----"));
        String pubLine = Files.readString(pub(key)).strip();

        CliHarness.Result wrong = CliHarness.pqssh("keygen", "-y", "-P", "wrong", "-f", key.toString());
        assertNotEquals(0, wrong.rc(), wrong.all());
        assertEquals("", wrong.out(), wrong.all());
        assertTrue(wrong.err().toLowerCase().contains("incorrect passphrase"), wrong.all());

        CliHarness.Result none = CliHarness.pqssh("keygen", "-y", "-f", key.toString());
        assertNotEquals(0, none.rc(), none.all());
        assertTrue(none.err().contains("encrypted") && none.err().contains("-P"), none.all());

        CliHarness.Result right = CliHarness.pqssh("keygen", "-y", "-P", "s3cret pass", "-f", key.toString());
        assertEquals(0, right.rc(), right.all());
        assertEquals(pubLine, right.out().strip());
    }

    @Test
    void privateKeyReadableByOthersIsRefused() throws Exception {
        Path key = keygen("mlkem768", "id_open", "");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        CliHarness.Result y = CliHarness.pqssh("keygen", "-y", "-f", key.toString());
        assertNotEquals(0, y.rc(), y.all());
        assertEquals("", y.out(), y.all());
        assertTrue(y.err().contains("too open"), y.all());

        CliHarness.Result ssh = CliHarness.pqssh("ssh", "-i", key.toString(), "-o", "StrictHostKeyChecking=no",
                "-p", String.valueOf(CliHarness.freePort()), "nobody@127.0.0.1", "true");
        assertEquals(255, ssh.rc(), ssh.all());
        assertTrue(ssh.err().contains("too open"), ssh.all());
    }

    /** Runs {@code pqssh server} (ServerCommand) on a thread; returns the port it wrote to --port-file. */
    private int startServer(Path authorizedKeys, String... extra) throws Exception {
        Path hostKey = dir.resolve("ssh_host_ed25519_key");
        if (!Files.exists(hostKey)) {
            CliHarness.sshKeygen(hostKey, "ed25519");
        }
        Path portFile = dir.resolve("port-" + servers.size());
        List<String> args = new ArrayList<>(List.of("server", "-D", "-p", "0", "--port-file", portFile.toString(),
                "-o", "AuthorizedKeysFile=" + authorizedKeys.toAbsolutePath(),
                "-o", "AuthorizedKEMKeysFile=none", // never the real ~/.ssh of whoever runs the tests
                "-o", "HostKey=" + hostKey.toAbsolutePath()));
        args.addAll(List.of(extra));
        AtomicInteger rc = new AtomicInteger(Integer.MIN_VALUE);
        Thread t = new Thread(() -> rc.set(Main.run(args.toArray(String[]::new))), "pqssh-server-" + servers.size());
        t.setDaemon(true);
        servers.add(t);
        t.start();
        CliHarness.waitUntil(Duration.ofSeconds(15),
                () -> !t.isAlive() || CliHarness.read(portFile).matches("\\d+\\n"),
                () -> "pqssh server wrote no port file");
        assertTrue(t.isAlive(), "pqssh server exited with " + rc.get());
        int port = Integer.parseInt(CliHarness.read(portFile).strip());
        assertTrue(port > 0 && CliHarness.portOpen(port), "pqssh server not listening on " + port);
        return port;
    }

    private CliHarness.Result login(int port, Path knownHosts, Path key, String command) throws Exception {
        return CliHarness.pqssh("ssh", "-i", key.toString(), "-o", "UserKnownHostsFile=" + knownHosts,
                "-o", "ConnectTimeout=10", "-o", "RequirePostQuantumKex=yes",
                "-p", String.valueOf(port), CliHarness.user() + "@127.0.0.1", command);
    }

    @Test
    void serverAndClientLogInWithMlkemAndEnforceAuthorizedKeysOptions() throws Exception {
        Path key = keygen("mlkem768", "id_mlkem768", "");
        Path stranger = keygen("mlkem768", "id_stranger", "");
        String line = Files.readString(pub(key)).strip();
        Path authorized = dir.resolve("authorized_keys");
        Files.writeString(authorized, line + "\n");
        Path knownHosts = dir.resolve("known_hosts");
        int port = startServer(authorized);

        CliHarness.Result first = CliHarness.pqssh("ssh", "-i", key.toString(),
                "-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile=" + knownHosts,
                "-p", String.valueOf(port), CliHarness.user() + "@127.0.0.1", "exit 4");
        assertEquals(4, first.rc(), first.all());
        assertFalse(first.err().contains("WARNING"), first.all());
        String hostBlob = Files.readString(pub(dir.resolve("ssh_host_ed25519_key"))).split("\\s+")[1];
        assertTrue(CliHarness.read(knownHosts).contains("[127.0.0.1]:" + port + " ssh-ed25519 " + hostBlob),
                CliHarness.read(knownHosts));

        // from here on the recorded host key is required (StrictHostKeyChecking defaults to yes)
        CliHarness.Result echo = login(port, knownHosts, key, "echo via-kem; exit 0");
        assertEquals(0, echo.rc(), echo.all());
        assertEquals("via-kem", echo.out().strip());

        // the early channel open (pqssh servers): same output and exit status
        CliHarness.Result early = CliHarness.pqssh("ssh", "-i", key.toString(), "-o", "UserKnownHostsFile=" + knownHosts,
                "-o", "EarlyChannelOpen=yes", "-p", String.valueOf(port), CliHarness.user() + "@127.0.0.1",
                "echo early; exit 6");
        assertEquals(6, early.rc(), early.all());
        assertEquals("early", early.out().strip());
        CliHarness.Result earlyStranger = CliHarness.pqssh("ssh", "-i", stranger.toString(), "-o",
                "UserKnownHostsFile=" + knownHosts, "-o", "EarlyChannelOpen=yes", "-p", String.valueOf(port),
                CliHarness.user() + "@127.0.0.1", "echo SHOULD-NOT-RUN");
        assertEquals(255, earlyStranger.rc(), earlyStranger.all());
        assertFalse(earlyStranger.out().contains("SHOULD-NOT-RUN"), earlyStranger.all());

        CliHarness.Result unauthorized = login(port, knownHosts, stranger, "echo SHOULD-NOT-RUN");
        assertEquals(255, unauthorized.rc(), unauthorized.all());
        assertFalse(unauthorized.out().contains("SHOULD-NOT-RUN"), unauthorized.all());

        // authorized_keys is read at each login: options apply at once
        Files.writeString(authorized, "from=\"10.9.9.9\" " + line + "\n");
        assertEquals(255, login(port, knownHosts, key, "exit 4").rc(), "from=10.9.9.9 let 127.0.0.1 in");
        Files.writeString(authorized, "from=\"127.0.0.1\" " + line + "\n");
        assertEquals(4, login(port, knownHosts, key, "exit 4").rc(), "from=127.0.0.1 refused 127.0.0.1");

        Files.writeString(authorized, "expiry-time=\"20000101\" " + line + "\n");
        assertEquals(255, login(port, knownHosts, key, "exit 4").rc(), "expired key accepted");
        Files.writeString(authorized, "expiry-time=\"29991231\" " + line + "\n");
        assertEquals(4, login(port, knownHosts, key, "exit 4").rc(), "unexpired key refused");

        // command= is enforced (issue 11): the forced command runs instead, the request in SSH_ORIGINAL_COMMAND
        Files.writeString(authorized, "command=\"exit $((${#SSH_ORIGINAL_COMMAND} + 20))\" " + line + "\n");
        assertEquals(26, login(port, knownHosts, key, "exit 4").rc(), "command= not forced");
    }

    @Test
    void mlkem1024IsRefusedUnlessKemAuthAlgorithmsAllowsIt() throws Exception {
        Path key768 = keygen("mlkem768", "id_mlkem768", "");
        Path key1024 = keygen("mlkem1024", "id_mlkem1024", "");
        assertTrue(Files.readString(pub(key1024)).startsWith("mlkem1024 "));
        Path authorized = dir.resolve("authorized_keys");
        Files.writeString(authorized, Files.readString(pub(key768)) + Files.readString(pub(key1024)));
        Path knownHosts = dir.resolve("known_hosts");

        int only768 = startServer(authorized); // KEMAuthAlgorithms defaults to mlkem768
        Files.writeString(knownHosts, "[127.0.0.1]:" + only768 + " "
                + Files.readString(pub(dir.resolve("ssh_host_ed25519_key"))));
        CliHarness.Result refused = login(only768, knownHosts, key1024, "exit 4");
        assertEquals(255, refused.rc(), "ML-KEM-1024 accepted by a server allowing only mlkem768: " + refused.all());
        assertEquals(4, login(only768, knownHosts, key768, "exit 4").rc());

        int both = startServer(authorized, "-o", "KEMAuthAlgorithms=mlkem768,mlkem1024");
        Files.writeString(knownHosts, "[127.0.0.1]:" + both + " "
                + Files.readString(pub(dir.resolve("ssh_host_ed25519_key"))));
        CliHarness.Result allowed = login(both, knownHosts, key1024, "exit 4");
        assertEquals(4, allowed.rc(), allowed.all());
    }

    @Test
    void demoLogsInWithEveryMethod() throws Exception {
        CliHarness.Result r = CliHarness.pqssh("demo");
        assertEquals(0, r.rc(), r.all());
        List<String> rows = r.out().lines().toList();
        assertTrue(rows.get(0).startsWith("method"), r.out());
        for (String method : List.of("publickey-kem", "publickey-kem-and", "publickey", "password")) {
            List<String> mine = rows.stream().filter(l -> l.startsWith(method + " ")).toList();
            assertFalse(mine.isEmpty(), "no '" + method + "' row:\n" + r.out());
            for (String row : mine) {
                assertTrue(row.strip().endsWith(" ok"), "row not ok: " + row);
                assertTrue(row.contains("mlkem768x25519-sha256"), "row without PQ kex: " + row);
            }
        }
        // one publickey-kem row per ML-KEM parameter set
        for (String cred : List.of("mlkem512", "mlkem768", "mlkem1024")) {
            assertTrue(rows.stream().anyMatch(l -> l.matches("publickey-kem\\s+" + cred + "\\s.*\\sok")),
                    "no publickey-kem " + cred + " row:\n" + r.out());
        }
    }
}
