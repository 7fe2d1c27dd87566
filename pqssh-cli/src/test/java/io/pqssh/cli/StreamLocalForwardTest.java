package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static io.pqssh.cli.ForwardingHarness.assertEcho;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    private final List<ServerSocketChannel> unixServers = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        h = new ForwardingHarness(dir);
        key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
        for (ServerSocketChannel s : unixServers) {
            s.close();
        }
        try (var files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".sock")).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private Path authorized() throws IOException {
        Path a = dir.resolve("authorized_keys");
        Files.writeString(a, Files.readString(pub(key)));
        return a;
    }

    /** A Unix-socket echo server at {@code path}. */
    private Path unixEcho(String name) throws IOException {
        Path p = dir.resolve(name);
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(p));
        unixServers.add(s);
        Thread t = new Thread(() -> {
            while (s.isOpen()) {
                try {
                    SocketChannel c = s.accept();
                    Thread e = new Thread(() -> {
                        try (c) {
                            ByteBuffer b = ByteBuffer.allocate(16384);
                            while (c.read(b) >= 0) {
                                b.flip();
                                while (b.hasRemaining()) {
                                    c.write(b);
                                }
                                b.clear();
                            }
                        } catch (IOException ex) {
                            // dropped
                        }
                    }, "unix-echo-conn");
                    e.setDaemon(true);
                    e.start();
                } catch (IOException ex) {
                    return;
                }
            }
        }, "unix-echo");
        t.setDaemon(true);
        t.start();
        return p;
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
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

    private static void awaitSocket(ForwardingHarness.Proc p, Path socket) throws InterruptedException {
        CliHarness.waitUntil(Duration.ofSeconds(90), () -> !p.process().isAlive() || connectable(socket), p::output);
        assertTrue(p.process().isAlive(), p.output());
    }

    private static boolean connectable(Path socket) {
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void everyUnixSocketFormAgainstOpenSshSshd() throws Exception {
        everyForm(h.startSshd(authorized()));
    }

    @Test
    void everyUnixSocketFormAgainstPqsshServer() throws Exception {
        // the server's own -R socket honours its StreamLocalBindMask (here 0117: group may connect too)
        everyForm(h.startServer(authorized(), "-o", "StreamLocalBindMask=0117"));
        Path r4 = dir.resolve("r4.sock");
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(r4)));
    }

    @Test
    void pqsshServerRefusesWhatAllowStreamLocalForwardingForbids() throws Exception {
        int echo = h.startEchoServer();
        Path remoteEcho = unixEcho("remote-echo.sock");
        int none = h.startServer(authorized(), "-o", "AllowStreamLocalForwarding=no");
        int l = CliHarness.freePort();
        Path r = dir.resolve("refused.sock");
        // -L: the listener exists on the client, the server refuses the channel; -R: the server refuses the socket
        ForwardingHarness.Proc c = client(none, "-L", l + ":" + remoteEcho);
        h.awaitListening(c, l);
        byte[] carried;
        try {
            carried = ForwardingHarness.echoThrough(l, random(1000));
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
        List<String> args = new ArrayList<>(List.of("ssh", "-N", "-F", "none", "-i", key.toString(),
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts"),
                "-p", String.valueOf(server)));
        args.addAll(List.of(forwards));
        args.add(CliHarness.user() + "@127.0.0.1");
        return h.startPqssh(Map.of(), args.toArray(String[]::new));
    }

    /** The five forms through one client: -L unix->tcp, tcp->unix, unix->unix; -R unix->tcp, tcp->unix. */
    private void everyForm(int server) throws Exception {
        int echo = h.startEchoServer();
        Path remoteEcho = unixEcho("remote-echo.sock"); // what the server connects to (same machine)
        Path localEcho = unixEcho("local-echo.sock"); // what the client connects to
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
        awaitSocket(c, l1);
        awaitSocket(c, l3);
        awaitSocket(c, r4);
        h.awaitListening(c, l2);
        h.awaitListening(c, r5);

        byte[] data = random(200_000);
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
        int sshd = h.startSshd(authorized());
        int echo = h.startEchoServer();
        Path stale = dir.resolve("stale.sock");
        Files.writeString(stale, "not a socket");
        List<String> base = List.of("ssh", "-N", "-F", "none", "-i", key.toString(),
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts"),
                "-o", "ExitOnForwardFailure=yes", "-p", String.valueOf(sshd), "-L", stale + ":127.0.0.1:" + echo);
        List<String> refused = new ArrayList<>(base);
        refused.add(CliHarness.user() + "@127.0.0.1");
        ForwardingHarness.Proc r = h.startPqssh(Map.of(), refused.toArray(String[]::new));
        assertEquals(255, r.waitFor(Duration.ofSeconds(90)), r.output());
        assertTrue(CliHarness.read(r.err()).contains("Address already in use"), r.output());
        assertEquals("not a socket", Files.readString(stale), "the existing file was touched");

        List<String> unlink = new ArrayList<>(base);
        unlink.addAll(List.of("-o", "StreamLocalBindUnlink=yes", "-o", "StreamLocalBindMask=0117",
                CliHarness.user() + "@127.0.0.1"));
        ForwardingHarness.Proc u = h.startPqssh(Map.of(), unlink.toArray(String[]::new));
        awaitSocket(u, stale);
        byte[] data = random(10_000);
        assertEcho(data, echoThroughUnix(stale, data), "-L over a replaced file");
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(stale)));
    }
}
