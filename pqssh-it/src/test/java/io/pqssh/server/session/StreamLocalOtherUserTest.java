package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.PqsshServer;
import io.pqssh.server.login.SystemAccounts;

/**
 * A root pqssh server listens on a Unix-domain socket for another account as sshd does, as that account: OpenSSH's
 * {@code ssh -R /path:host:port} as a fresh account creates the socket owned by the account with mode 0600
 * (StreamLocalBindMask 0177) in a directory the account may write; a connection to it reaches the forwarded TCP
 * port and back; another account (nobody) cannot connect; the socket is gone when ssh ends. In a directory only root
 * may write the request fails with ssh's own message and no socket appears (root's rights are not used).
 */
class StreamLocalOtherUserTest {
    private static final String USER = KeyLoginAccount.uniqueName("pqsl");

    @TempDir
    Path dir;

    @Test
    void aRootServerListensForAnotherAccountAsThatAccount() throws Exception {
        KeyLoginAccount account = KeyLoginAccount.create(dir, USER, "StreamLocalOtherUserTest");
        Path err = dir.resolve("err.txt");
        PqsshServer server = null;
        Process client = null;
        java.net.ServerSocket echo = null;
        Path userDir = null;
        try {
            server = KeyLoginAccount.rootServer();
            List<String> ssh = account.ssh(server.port());
            // root's own directory: the user may not create anything there, so neither may the forwarding
            Path rootOnly = dir.resolve("other-user.sock");
            List<String> refused = new java.util.ArrayList<>(ssh);
            refused.addAll(List.of("-R", rootOnly + ":127.0.0.1:9", USER + "@127.0.0.1", "exit 7"));
            assertEquals(255, KeyLoginAccount.run(dir, refused, err), Files.readString(err));
            assertTrue(Files.readString(err).contains("remote port forwarding failed for listen path " + rootOnly),
                    Files.readString(err));
            assertFalse(Files.exists(rootOnly), "the socket was created with root's rights");

            // a directory the user owns (0755, so another account can reach the socket's own mode)
            userDir = Files.createTempDirectory("pqsl-");
            assertEquals(0, KeyLoginAccount.run(dir, List.of("chown", USER + ":", userDir.toString()), err));
            Files.setPosixFilePermissions(userDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            Path socket = userDir.resolve("fwd.sock");
            echo = new java.net.ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress());
            java.net.ServerSocket echoServer = echo;
            Thread echoThread = new Thread(() -> echoOnce(echoServer), "echo");
            echoThread.setDaemon(true);
            echoThread.start();
            List<String> forward = new java.util.ArrayList<>(ssh);
            forward.addAll(List.of("-N", "-R", socket + ":127.0.0.1:" + echo.getLocalPort(), USER + "@127.0.0.1"));
            client = new ProcessBuilder(forward).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(dir.resolve("fwd-out.txt").toFile()).redirectError(dir.resolve("fwd-err.txt")
                            .toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS) && client.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS),
                    "no socket: " + Files.readString(dir.resolve("fwd-err.txt")));
            int uid = SystemAccounts.INSTANCE.byName(USER).orElseThrow().uid();
            assertEquals(uid, Files.getAttribute(socket, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS),
                    "the socket must be the user's");
            assertEquals(0140600, Files.getAttribute(socket, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS),
                    "a socket, mode 0600 (StreamLocalBindMask 0177)");
            // the helper runs as the user, who may ptrace it: like a session, it must not share the server's
            // controlling terminal or session (issue 20: TIOCSTI into root's terminal)
            List<ProcessHandle> helpers = ProcessHandle.allProcesses().filter(h -> h.info().user()
                    .map(USER::equals).orElse(false) && h.info().command().map(c -> c.endsWith("perl")).orElse(false))
                    .toList();
            assertEquals(1, helpers.size(), "the listener helper running as " + USER + ": " + helpers);
            long helper = helpers.get(0).pid();
            String stat = Files.readString(Path.of("/proc/" + helper + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            assertEquals(Long.toString(helper), f[3], "the helper leads its own session (setsid): " + stat);
            assertEquals("0", f[4], "the helper has no controlling terminal: " + stat);

            try (java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(
                    java.net.UnixDomainSocketAddress.of(socket))) {
                c.write(java.nio.ByteBuffer.wrap("through-the-user\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                c.shutdownOutput();
                java.nio.ByteBuffer got = java.nio.ByteBuffer.allocate(64);
                while (c.read(got) > 0) {
                    // to the end: the echo closes after answering
                }
                assertEquals("through-the-user\n", new String(got.array(), 0, got.position(),
                        java.nio.charset.StandardCharsets.UTF_8));
            }

            // the socket's mode, not root's relay, decides who else may connect
            Path nobodyErr = dir.resolve("nobody.txt");
            int rc = KeyLoginAccount.run(dir, List.of("/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup",
                    "--clear-groups",
                    "/usr/bin/perl", "-e", "use Socket; socket(my $s, AF_UNIX, SOCK_STREAM, 0) or exit 4;"
                            + " connect($s, pack_sockaddr_un($ARGV[0])) or do { print STDERR \"$!\\n\"; exit 3 };"
                            + " exit 0", socket.toString()), nobodyErr);
            assertEquals(3, rc, "nobody connected to the user's 0600 socket: " + Files.readString(nobodyErr));
            assertTrue(Files.readString(nobodyErr).contains("Permission denied"), Files.readString(nobodyErr));

            client.destroy();
            assertTrue(client.waitFor(20, TimeUnit.SECONDS), "ssh did not end");
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertFalse(Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS),
                    "the socket outlived the connection");
        } finally {
            if (client != null) {
                client.destroyForcibly();
                client.waitFor(10, TimeUnit.SECONDS);
            }
            if (echo != null) {
                echo.close();
            }
            if (server != null) {
                server.close();
            }
            TestAccounts.remove(USER);
            if (userDir != null) {
                KeyLoginAccount.run(dir, List.of("rm", "-rf", userDir.toString()), err);
            }
        }
    }

    /** Answers one connection with what it sent, then closes it. */
    private static void echoOnce(java.net.ServerSocket server) {
        try (java.net.Socket s = server.accept()) {
            byte[] all = s.getInputStream().readAllBytes();
            s.getOutputStream().write(all);
            s.shutdownOutput();
        } catch (java.io.IOException e) {
            // the test's assertion reports a missing echo
        }
    }
}
