package io.pqssh.cli;

import static io.pqssh.cli.ForwardingHarness.assertEcho;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unix-domain socket forwarding ({@code direct-streamlocal@openssh.com}, {@code streamlocal-forward@openssh.com},
 * {@code forwarded-streamlocal@openssh.com}): every -L/-R form with a socket path, through one {@code pqssh ssh -N}
 * client, to TCP and Unix echo servers, against Debian's sshd and pqssh server; pqssh server's
 * AllowStreamLocalForwarding and StreamLocalBindMask.
 */
class StreamLocalForwardTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        h = new ForwardingHarness(dir);
        key = h.userKey();
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".sock")).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Sends and reads back through a Unix socket (the writer on its own thread, as in ForwardingHarness). */
    private static byte[] echoThroughUnix(Path socket, byte[] data) throws IOException {
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            Thread w = new Thread(() -> {
                try {
                    ByteBuffer b = ByteBuffer.wrap(data);
                    while (b.hasRemaining()) {
                        c.write(b);
                    }
                } catch (IOException e) {
                    // the reader sees the short answer
                }
            }, "unix-writer");
            w.setDaemon(true);
            w.start();
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            java.io.InputStream in = Channels.newInputStream(c);
            byte[] buf = new byte[16384];
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (got.size() < data.length && System.nanoTime() < deadline) {
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                got.write(buf, 0, n);
            }
            return got.toByteArray();
        }
    }

    @Test
    void everyUnixSocketFormAgainstOpenSshSshd() throws Exception {
        everyForm(h.startSshd(h.authorizedKeys()));
    }

    @Test
    void everyUnixSocketFormAgainstPqsshServer() throws Exception {
        // the server's own -R socket honours its StreamLocalBindMask (here 0117: group may connect too)
        everyForm(h.startServer(h.authorizedKeys(), "-o", "StreamLocalBindMask=0117"));
        Path r4 = dir.resolve("r4.sock");
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(r4)));
    }

    @Test
    void pqsshServerRefusesWhatAllowStreamLocalForwardingForbids() throws Exception {
        int echo = h.startEchoServer();
        Path remoteEcho = h.startUnixEchoServer("remote-echo.sock");
        int none = h.startServer(h.authorizedKeys(), "-o", "AllowStreamLocalForwarding=no");
        int l = CliHarness.freePort();
        Path r = dir.resolve("refused.sock");
        // -L: the listener exists on the client, the server refuses the channel; -R: the server refuses the socket
        ForwardingHarness.Proc c = client(none, "-L", l + ":" + remoteEcho);
        h.awaitListening(c, l);
        byte[] carried;
        try {
            carried = ForwardingHarness.echoThrough(l, ForwardingHarness.random(1000));
        } catch (java.net.SocketException e) {
            carried = new byte[0]; // the client closed the connection at once (reset): nothing went through
        }
        assertEquals(0, carried.length, "refused -L carried bytes");
        ForwardingHarness.Proc strict = client(none, "-o", "ExitOnForwardFailure=yes", "-R", r + ":127.0.0.1:" + echo);
        assertEquals(255, strict.waitFor(Duration.ofSeconds(90)), strict.output());
        assertTrue(CliHarness.read(strict.err()).contains("remote port forwarding failed for listen path " + r),
                strict.output());
        assertTrue(!Files.exists(r), "the refused -R socket exists");
    }

    private ForwardingHarness.Proc client(int server, String... forwards) throws IOException {
        List<String> args = new ArrayList<>(List.of("-F", "none"));
        args.addAll(List.of(forwards));
        return h.startPqsshClient(key, server, args.toArray(String[]::new));
    }

    /** The five forms through one client: -L unix->tcp, tcp->unix, unix->unix; -R unix->tcp, tcp->unix. */
    private void everyForm(int server) throws Exception {
        int echo = h.startEchoServer();
        Path remoteEcho = h.startUnixEchoServer("remote-echo.sock"); // what the server connects to (same machine)
        Path localEcho = h.startUnixEchoServer("local-echo.sock"); // what the client connects to
        Path l1 = dir.resolve("l1.sock");
        int l2 = CliHarness.freePort();
        Path l3 = dir.resolve("l3.sock");
        Path r4 = dir.resolve("r4.sock");
        int r5 = CliHarness.freePort();
        ForwardingHarness.Proc c = client(server, "-o", "ExitOnForwardFailure=yes",
                "-L", l1 + ":127.0.0.1:" + echo,
                "-L", l2 + ":" + remoteEcho,
                "-L", l3 + ":" + remoteEcho,
                "-R", r4 + ":127.0.0.1:" + echo,
                "-R", r5 + ":" + localEcho);
        h.awaitSocket(c, l1);
        h.awaitSocket(c, l3);
        h.awaitSocket(c, r4);
        h.awaitListening(c, l2);
        h.awaitListening(c, r5);

        byte[] data = ForwardingHarness.random(200_000);
        assertEcho(data, echoThroughUnix(l1, data), "-L /local.sock:host:port");
        assertEcho(data, ForwardingHarness.echoThrough(l2, data), "-L port:/remote.sock");
        assertEcho(data, echoThroughUnix(l3, data), "-L /local.sock:/remote.sock");
        assertEcho(data, echoThroughUnix(r4, data), "-R /remote.sock:host:port");
        assertEcho(data, ForwardingHarness.echoThrough(r5, data), "-R port:/local.sock");

        // the client's socket is its owner's only (StreamLocalBindMask 0177), as ssh makes it
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(l1)));
        assertTrue(c.process().isAlive(), c.output());
    }

    @Test
    void anExistingSocketFileIsAnErrorUnlessStreamLocalBindUnlink() throws Exception {
        int sshd = h.startSshd(h.authorizedKeys());
        int echo = h.startEchoServer();
        Path stale = dir.resolve("stale.sock");
        Files.writeString(stale, "not a socket");
        String forward = stale + ":127.0.0.1:" + echo;
        ForwardingHarness.Proc r = client(sshd, "-o", "ExitOnForwardFailure=yes", "-L", forward);
        assertEquals(255, r.waitFor(Duration.ofSeconds(90)), r.output());
        assertTrue(CliHarness.read(r.err()).contains("Address already in use"), r.output());
        assertEquals("not a socket", Files.readString(stale), "the existing file was touched");

        ForwardingHarness.Proc u = client(sshd, "-o", "ExitOnForwardFailure=yes", "-L", forward,
                "-o", "StreamLocalBindUnlink=yes", "-o", "StreamLocalBindMask=0117");
        h.awaitSocket(u, stale);
        byte[] data = ForwardingHarness.random(10_000);
        assertEcho(data, echoThroughUnix(stale, data), "-L over a replaced file");
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(stale)));
    }
}
