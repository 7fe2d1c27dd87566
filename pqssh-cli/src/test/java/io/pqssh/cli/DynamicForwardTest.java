package io.pqssh.cli;

import static io.pqssh.cli.ForwardingHarness.assertEcho;
import static io.pqssh.cli.ForwardingHarness.random;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * {@code pqssh ssh -D [bind:]port} and {@code DynamicForward} (pqssh's own SOCKS4/4a/5 listener, a {@code direct-tcpip}
 * channel per connection) against Debian's sshd and pqssh server: curl through SOCKS5, SOCKS5 with a host name and
 * SOCKS4a to a loopback HTTP server; a client that sends its request, shuts down its sending side and then reads the
 * whole reply from a target that answers only after that end of input; a target that half-closes first and still
 * reads what follows; an unreachable target answered with a SOCKS failure; a malformed greeting dropped and a client gone
 * before its answer, while other connections go on; ssh's {@code -v} lines (and those of a TCP {@code -L}); {@code ExitOnForwardFailure} for a port already taken.
 */
class DynamicForwardTest extends SocksForwardFixture {
    @Test
    void againstOpenSshSshd() throws Exception {
        // LogLevel DEBUG1: sshd logs each direct-tcpip request's originator, which must be the SOCKS client's socket
        int sshd = h.startSshd(h.authorizedKeys(), "LogLevel DEBUG1");
        int origin = checkDynamicForwarding(sshd);
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(h.sshdLog())
                .contains("originator 127.0.0.1 port " + origin + ","), () -> CliHarness.read(h.sshdLog()));
    }

    @Test
    void againstPqsshServerAndExitOnForwardFailure() throws Exception {
        int server = h.startServer(h.authorizedKeys());
        checkDynamicForwarding(server);

        // a -D port that cannot be bound ends the client with 255 under ExitOnForwardFailure yes, as ssh
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ForwardingHarness.Proc strict = h.startPqsshClient(key, server, "-F", "none", "-o",
                    "ExitOnForwardFailure=yes", "-D", "127.0.0.1:" + taken.getLocalPort());
            assertEquals(255, strict.waitFor(Duration.ofSeconds(90)), strict.output());
            assertTrue(CliHarness.read(strict.err()).contains("Address already in use"), strict.output());
        }
    }

    /**
     * One client with {@code -D 127.0.0.1:port} on the command line and {@code DynamicForward localhost:port2} in its
     * config file; returns the local port of the half-closing SOCKS client's socket (the channel's originator).
     */
    private int checkDynamicForwarding(int server) throws Exception {
        int d = CliHarness.freePort();
        int fromConfig = CliHarness.freePort();
        Path config = dir.resolve("ssh_config");
        Files.writeString(config, "Host *\n    DynamicForward localhost:" + fromConfig + "\n");
        int local = CliHarness.freePort(); // a -L beside them, for its -v lines
        ForwardingHarness.Proc c = h.startPqsshClient(key, server, "-vv", "-F", config.toString(),
                "-o", "ExitOnForwardFailure=yes", "-D", "127.0.0.1:" + d, "-L", local + ":127.0.0.1:" + httpPort);
        h.awaitListening(c, d);
        h.awaitListening(c, fromConfig);
        h.awaitListening(c, local);

        // curl: SOCKS5 with an address, SOCKS5 with a host name and SOCKS4a (both resolved by the server's side)
        String url = "http://127.0.0.1:" + httpPort;
        assertHello(h.curl("--socks5", d, url + "/five"), "/five", c);
        assertHello(h.curl("--socks5-hostname", d, "http://localhost:" + httpPort + "/five-hostname"),
                "/five-hostname", c);
        assertHello(h.curl("--socks4a", d, "http://localhost:" + httpPort + "/four-a"), "/four-a", c);
        assertHello(h.curl("--socks5", fromConfig, url + "/config"), "/config", c);

        // half-close: the request, then EOF; the target answers only after that EOF, and the whole answer arrives
        int replier = h.startReplyAfterEofServer();
        byte[] request = random(200_000);
        int origin;
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), d)) {
            origin = s.getLocalPort();
            assertEquals(0, ForwardingHarness.socks5Connect(s, "127.0.0.1", replier), c.output());
            assertEcho(request, ForwardingHarness.requestThenHalfClose(s, request), "SOCKS5 request then half-close\n" + c.output());
        }
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), d)) {
            assertEquals(0x5a, socks4aConnect(s, "localhost", replier), c.output());
            byte[] small = random(11);
            assertEcho(small, ForwardingHarness.requestThenHalfClose(s, small), "SOCKS4a request then half-close\n" + c.output());
        }

        // the other way round: the target greets and shuts down its side first, then still reads what follows
        BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        byte[] greeting = "hello, then my side is done\n".getBytes(StandardCharsets.UTF_8);
        int greeter = h.startGreetThenReadServer(greeting, received);
        byte[] after = random(150_000);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), d)) {
            assertEquals(0, ForwardingHarness.socks5Connect(s, "127.0.0.1", greeter), c.output());
            assertEcho(greeting, s.getInputStream().readAllBytes(), "greeting through -D");
            s.getOutputStream().write(after);
            s.shutdownOutput();
            byte[] got = received.poll(20, TimeUnit.SECONDS);
            assertTrue(got != null, "the target never finished reading\n" + c.output());
            assertEcho(after, got, "what the target read after its half-close\n" + c.output());
        }

        // a target nobody listens on: the refused channel is SOCKS5 reply 5 ("connection refused") or SOCKS4 0x5b,
        // then the connection closes; ssh's line says why
        int closed = CliHarness.freePort();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), d)) {
            assertEquals(5, ForwardingHarness.socks5Connect(s, "127.0.0.1", closed), c.output());
            assertEquals(-1, s.getInputStream().read(), "the refused SOCKS5 connection stays open");
        }
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), d)) {
            assertEquals(0x5b, socks4aConnect(s, "localhost", closed), c.output());
        }
        CliHarness.waitUntil(Duration.ofSeconds(20),
                () -> CliHarness.read(c.err()).contains(": open failed: connect failed: "), c::output);

        // a malformed greeting is dropped without a reply; a connection stalled mid-greeting and the others go on
        try (Socket stalled = new Socket(InetAddress.getLoopbackAddress(), d);
                Socket bad = new Socket(InetAddress.getLoopbackAddress(), d)) {
            stalled.getOutputStream().write(new byte[] {5, 2});
            bad.setSoTimeout(20_000);
            bad.getOutputStream().write(new byte[] {9, 1, 0});
            int answer;
            try {
                answer = bad.getInputStream().read();
            } catch (java.net.SocketException e) {
                answer = -1; // reset: closed before it read all three bytes, dropped all the same
            }
            assertEquals(-1, answer, "a malformed SOCKS greeting got an answer");
            // a client that asks and goes away before the answer costs only its own channel
            try (Socket gone = new Socket(InetAddress.getLoopbackAddress(), d)) {
                gone.getOutputStream().write(new byte[] {5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, (byte) (httpPort >> 8),
                    (byte) httpPort});
            }
            assertHello(h.curl("--socks5", d, url + "/after-bad"), "/after-bad", c);
        }

        String err = CliHarness.read(c.err());
        for (String line : List.of("debug1: Local connections to 127.0.0.1:" + d
                + " forwarded to remote address socks:0", "debug1: Local forwarding listening on 127.0.0.1 port " + d
                + ".", "debug1: Local connections to localhost:" + fromConfig + " forwarded to remote address socks:0",
                "debug1: Connection to port " + d + " forwarding to socks port 0 requested.",
                "debug1: Local connections to LOCALHOST:" + local + " forwarded to remote address 127.0.0.1:"
                        + httpPort, "debug1: Local forwarding listening on 127.0.0.1 port " + local + ".",
                ": dynamic request: socks5 host localhost port " + httpPort + " command 1",
                ": dynamic request: socks4 host localhost port " + replier + " command 1")) {
            assertTrue(err.contains(line), "missing -v line '" + line + "'\n" + c.output());
        }
        assertTrue(!err.contains("Exception"), "a stack trace or exception text on stderr\n" + c.output());
        assertTrue(c.process().isAlive(), c.output());
        return origin;
    }

    private static void assertHello(CliHarness.Result r, String path, ForwardingHarness.Proc client) {
        assertEquals(0, r.rc(), r.all() + "\n" + client.output());
        assertEquals("hello from " + path, r.out().strip(), client.output());
    }

    /** SOCKS4a CONNECT to {@code host}; returns the reply's status byte (0x5a granted, 0x5b rejected). */
    private static int socks4aConnect(Socket s, String host, int port) throws IOException {
        s.setSoTimeout(20_000);
        OutputStream out = s.getOutputStream();
        out.write(new byte[] {4, 1, (byte) (port >> 8), (byte) port, 0, 0, 0, 1, 'u', 0});
        out.write((host + "\0").getBytes(StandardCharsets.US_ASCII));
        byte[] reply = new byte[8];
        new DataInputStream(s.getInputStream()).readFully(reply);
        assertEquals(0, reply[0], "SOCKS4 reply version");
        return reply[1] & 0xff;
    }
}
