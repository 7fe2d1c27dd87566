package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.daemon.DefaultHostKey;

/**
 * {@code pqssh server} as a daemon: default host key location (never the current directory), PidFile, -d, and
 * SIGHUP reload of configuration and host keys that keeps open connections, checked with OpenSSH's ssh-keyscan.
 */
class ServerDaemonTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Path KEYSCAN = Path.of("/usr/bin/ssh-keyscan");

    @Test
    void defaultHostKeyDirectoryIsEtcPqsshForRootAndXdgConfigOtherwise(@TempDir Path dir) throws Exception {
        assertEquals(Path.of("/etc/pqssh"), DefaultHostKey.directory(true, Map.of(), "/root"));
        assertEquals(Path.of("/home/u/.config/pqssh"), DefaultHostKey.directory(false, Map.of(), "/home/u"));
        assertEquals(Path.of("/x/cfg/pqssh"),
                DefaultHostKey.directory(false, Map.of("XDG_CONFIG_HOME", "/x/cfg"), "/home/u"));
        assertEquals(Path.of("/home/u/.config/pqssh"),
                DefaultHostKey.directory(false, Map.of("XDG_CONFIG_HOME", "relative"), "/home/u"));
        assertEquals(Path.of("/srv/pq"), DefaultHostKey.directory(true, Map.of("PQSSH_CONFIG_DIR", "/srv/pq"), "/r"));
        Path d = dir.resolve("cfg").resolve("pqssh");
        DefaultHostKey.Location first = DefaultHostKey.ensure(d);
        assertTrue(first.generated());
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(d)));
        String key = Files.readString(first.file());
        DefaultHostKey.Location second = DefaultHostKey.ensure(d);
        assertFalse(second.generated());
        assertEquals(key, Files.readString(second.file()), "an existing host key must be reused");
    }

    private static Process server(Path dir, Path stderr, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), "io.pqssh.cli.Main", "server"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.resolve("cwd").toFile())
                .redirectOutput(dir.resolve("server.out").toFile()).redirectError(stderr.toFile());
        // never /etc/pqssh or the real ~/.config: the documented override points into this test's directory
        pb.environment().put("PQSSH_CONFIG_DIR", dir.resolve("home/.config/pqssh").toString());
        return pb.start();
    }

    private static String keyscan(Path dir, int port) throws Exception {
        CliHarness.requireBinary(KEYSCAN, "openssh-client");
        CliHarness.Result r = CliHarness.exec(dir, List.of(KEYSCAN.toString(), "-T", "20", "-t", "ed25519",
                "-p", Integer.toString(port), "127.0.0.1"));
        return r.out().strip();
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void writesNoKeyIntoTheCurrentDirectoryAndSaysWhereItIs(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("cwd"));
        Files.createDirectories(dir.resolve("home"));
        Path err = dir.resolve("server.err");
        Path portFile = dir.resolve("port");
        Process p = server(dir, err, "-D", "-d", "-p", "0", "--port-file", portFile.toString(),
                "-o", "AuthorizedKEMKeysFile=none", "-o", "AuthorizedKeysFile=none");
        try {
            CliHarness.waitUntil(WAIT, () -> Files.exists(portFile) && CliHarness.read(portFile).endsWith("\n"),
                    () -> "server did not start:\n" + CliHarness.read(err));
            Path key = dir.resolve("home/.config/pqssh/ssh_host_ed25519_key");
            assertTrue(Files.exists(key), CliHarness.read(err));
            assertTrue(CliHarness.read(err).contains("pqssh server: host key " + key + " (generated)"),
                    CliHarness.read(err));
            try (var s = Files.list(dir.resolve("cwd"))) {
                assertEquals(0, s.count(), "the server wrote into its current directory");
            }
            int port = Integer.parseInt(CliHarness.read(portFile).strip());
            String scanned = keyscan(dir, port);
            assertTrue(scanned.contains(Files.readString(CliHarness.pub(key)).split(" ")[1]), scanned);
            assertTrue(CliHarness.read(err).contains("DEBUG"), "-d gave no debug log:\n" + CliHarness.read(err));
        } finally {
            stop(p);
        }
    }

    @Test
    void sighupReloadsHostKeysKeepsOpenConnectionsAndSurvivesABadConfig(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("cwd"));
        Files.createDirectories(dir.resolve("home"));
        Path a = CliHarness.sshKeygen(dir.resolve("key_a"), "ed25519");
        Path b = CliHarness.sshKeygen(dir.resolve("key_b"), "ed25519");
        Path pid = dir.resolve("pqssh.pid");
        Path conf = dir.resolve("sshd_config");
        String common = "ListenAddress 127.0.0.1\nPidFile " + pid + "\nAuthorizedKeysFile none\nAuthorizedKEMKeysFile none\n";
        Files.writeString(conf, "HostKey " + a + "\n" + common);
        Path err = dir.resolve("server.err");
        Path portFile = dir.resolve("port");
        Process p = server(dir, err, "-D", "-f", conf.toString(), "-p", "0", "--port-file", portFile.toString());
        try {
            CliHarness.waitUntil(WAIT, () -> Files.exists(pid),
                    () -> "no PidFile written:\n" + CliHarness.read(err));
            assertEquals(Long.toString(p.pid()), Files.readString(pid).strip());
            int port = Integer.parseInt(CliHarness.read(portFile).strip());
            String keyA = Files.readString(CliHarness.pub(a)).split(" ")[1];
            String keyB = Files.readString(CliHarness.pub(b)).split(" ")[1];
            assertTrue(keyscan(dir, port).contains(keyA));
            try (Socket open = new Socket(InetAddress.getLoopbackAddress(), port)) {
                open.setSoTimeout(20_000);
                InputStream in = open.getInputStream();
                assertTrue(readLine(in).startsWith("SSH-2.0-"));
                Files.writeString(conf, "HostKey " + b + "\n" + common);
                hangup(dir, p);
                CliHarness.waitUntil(WAIT, () -> CliHarness.read(err).contains("pqssh server: reloaded"),
                        () -> "no reload:\n" + CliHarness.read(err));
                assertTrue(keyscan(dir, port).contains(keyB), "the new host key is not served");
                // the connection opened before the reload still talks SSH
                OutputStream out = open.getOutputStream();
                out.write("SSH-2.0-reload-test\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                byte[] head = in.readNBytes(6);
                assertEquals(6, head.length, "the open connection was cut by the reload");
                assertEquals(20, head[5], "expected KEXINIT from the old server");
            }
            Files.writeString(conf, "HostKey " + a + "\nNoSuchKeyword yes\n" + common);
            hangup(dir, p);
            CliHarness.waitUntil(WAIT, () -> CliHarness.read(err).contains("reload failed"),
                    () -> "a bad config was not reported:\n" + CliHarness.read(err));
            assertTrue(p.isAlive(), "a bad config on reload killed the server");
            assertTrue(keyscan(dir, port).contains(keyB), "a failed reload changed the running server");
        } finally {
            stop(p);
        }
        assertFalse(Files.exists(pid), "PidFile left behind after a clean stop");
    }

    private static void hangup(Path dir, Process p) throws Exception {
        CliHarness.Result k = CliHarness.exec(dir, List.of("/bin/kill", "-HUP", Long.toString(p.pid())));
        assertEquals(0, k.rc(), k.all());
    }

    private static String readLine(InputStream in) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int c; (c = in.read()) != -1 && c != '\n';) {
            sb.append((char) c);
        }
        return sb.toString();
    }
}
