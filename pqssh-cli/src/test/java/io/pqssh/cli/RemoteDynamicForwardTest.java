package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpServer;

/**
 * {@code pqssh ssh -N -R [bind:]port} (remote dynamic forwarding): the server listens, each connection is a SOCKS4/5
 * request answered by pqssh on the client, which connects from the client's machine; {@code PermitRemoteOpen} limits
 * where. Against Debian's sshd and pqssh server, with curl as the SOCKS client to a loopback HTTP server, and a raw
 * SOCKS client for the refusals. Also: a -R connection's half-close reaches the target and the reply comes back.
 */
class RemoteDynamicForwardTest {
    private static final Path CURL = Path.of("/usr/bin/curl");

    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private HttpServer http;
    private int httpPort;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        CliHarness.requireBinary(CURL, "curl");
        h = new ForwardingHarness(dir);
        key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        http.createContext("/", ex -> {
            byte[] body = ("hello from " + ex.getRequestURI().getPath() + "\n").getBytes(StandardCharsets.US_ASCII);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(body);
            }
        });
        http.start();
        httpPort = http.getAddress().getPort();
    }

    @AfterEach
    void tearDown() throws Exception {
        http.stop(0);
        h.close();
    }

    private Path authorized() throws IOException {
        Path a = dir.resolve("authorized_keys");
        Files.writeString(a, Files.readString(pub(key)));
        return a;
    }

    private ForwardingHarness.Proc client(int serverPort, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("ssh", "-N", "-i", key.toString(), "-F", "none",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts"),
                "-o", "ExitOnForwardFailure=yes", "-p", String.valueOf(serverPort)));
        args.addAll(List.of(extra));
        args.add(CliHarness.user() + "@127.0.0.1");
        return h.startPqssh(Map.of(), args.toArray(String[]::new));
    }

    private CliHarness.Result curl(String proxyOption, int proxyPort, String host, String path) throws Exception {
        return CliHarness.exec(dir, List.of(CURL.toString(), "-sS", "--max-time", "20", proxyOption, "127.0.0.1:" + proxyPort, "http://" + host + ":" + httpPort + path));
    }

    @Test
    void againstOpenSshSshdCurlThroughSocks5And4aAndPermitRemoteOpenLimits() throws Exception {
        int sshd = h.startSshd(authorized());
        int echo = h.startEchoServer();
        int r = CliHarness.freePort();
        checkSocksForwarding(sshd, echo, "-R", r + ":127.0.0.1:" + echo);

        // a half-close on a -R connection: sshd passes the EOF, pqssh shuts the target's input, the reply still
        // comes back (MINA's own forwarder closed the whole connection here)
        byte[] data = new byte[200_000];
        new SecureRandom().nextBytes(data);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), r)) {
            s.setSoTimeout(20_000);
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    out.write(data);
                    out.flush();
                    s.shutdownOutput();
                } catch (IOException e) {
                    // the reader sees the short reply
                }
            }, "half-close-writer");
            writer.setDaemon(true);
            writer.start();
            assertArrayEquals(data, readAll(s.getInputStream()), "echo after a half-close on a -R connection");
        }
    }

    @Test
    void againstPqsshServerCurlThroughSocks5And4aAndPermitRemoteOpenLimits() throws Exception {
        int server = h.startServer(authorized());
        checkSocksForwarding(server, h.startEchoServer());
    }

    /**
     * Three clients at once: no limit (plus {@code extra} forwardings), {@code PermitRemoteOpen} with a literal entry
     * and a wildcard-host entry, and {@code PermitRemoteOpen none}.
     */
    private void checkSocksForwarding(int server, int other, String... extra) throws Exception {
        int socks = CliHarness.freePort();
        int limited = CliHarness.freePort();
        int none = CliHarness.freePort();
        List<String> free = new ArrayList<>(List.of(extra));
        free.addAll(List.of("-R", String.valueOf(socks)));
        ForwardingHarness.Proc c = client(server, free.toArray(String[]::new));
        ForwardingHarness.Proc l = client(server, "-o", "PermitRemoteOpen=127.0.0.1:" + httpPort + " *:" + other,
                "-R", "localhost:" + limited);
        ForwardingHarness.Proc n = client(server, "-o", "PermitRemoteOpen=none", "-R", String.valueOf(none));
        h.awaitListening(c, socks);
        h.awaitListening(l, limited);
        h.awaitListening(n, none);

        CliHarness.Result five = curl("--socks5", socks, "127.0.0.1", "/five");
        assertEquals(0, five.rc(), five.all() + "\n" + c.output());
        assertEquals("hello from /five", five.out().strip());
        // SOCKS4a and SOCKS5 with a host name, resolved on the client's side
        CliHarness.Result fourA = curl("--socks4a", socks, "localhost", "/four-a");
        assertEquals(0, fourA.rc(), fourA.all() + "\n" + c.output());
        assertEquals("hello from /four-a", fourA.out().strip());
        CliHarness.Result fiveHost = curl("--socks5-hostname", socks, "localhost", "/five-hostname");
        assertEquals(0, fiveHost.rc(), fiveHost.all() + "\n" + c.output());
        assertEquals("hello from /five-hostname", fiveHost.out().strip());

        // PermitRemoteOpen: 127.0.0.1 at the HTTP port, any host at the echo port; anything else is refused (SOCKS5
        // reply 2, "not allowed by ruleset": names are compared as given, no DNS) and the client says so
        CliHarness.Result ok = curl("--socks5", limited, "127.0.0.1", "/allowed");
        assertEquals(0, ok.rc(), ok.all() + "\n" + l.output());
        assertEquals("hello from /allowed", ok.out().strip());
        assertEquals(0, socks5Reply(limited, "localhost", other), l.output());
        assertEquals(2, socks5Reply(limited, "localhost", httpPort), l.output());
        int closed = CliHarness.freePort();
        assertEquals(2, socks5Reply(limited, "127.0.0.1", closed), l.output());
        CliHarness.Result refused = curl("--socks5-hostname", limited, "localhost", "/refused");
        assertNotEquals(0, refused.rc(), refused.all());
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(l.err()).contains(
                "remote dynamic forwarding to host 127.0.0.1 port " + closed + " denied by PermitRemoteOpen"),
                l::output);
        // without a limit, a closed port is "connection refused" (SOCKS5 reply 5)
        assertEquals(5, socks5Reply(socks, "127.0.0.1", closed), c.output());

        assertEquals(2, socks5Reply(none, "127.0.0.1", httpPort), n.output());
        assertTrue(c.process().isAlive() && l.process().isAlive() && n.process().isAlive(),
                c.output() + l.output() + n.output());
    }

    /** A raw SOCKS5 CONNECT by host name; returns the reply code (0 granted). */
    private static int socks5Reply(int proxy, String host, int port) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(new byte[] {5, 1, 0});
            byte[] choice = new byte[2];
            in.readFully(choice);
            assertArrayEquals(new byte[] {5, 0}, choice, "SOCKS5 method choice");
            byte[] h = host.getBytes(StandardCharsets.US_ASCII);
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            req.write(new byte[] {5, 1, 0, 3, (byte) h.length});
            req.write(h);
            req.write(new byte[] {(byte) (port >> 8), (byte) port});
            out.write(req.toByteArray());
            byte[] reply = new byte[10];
            in.readFully(reply);
            assertEquals(5, reply[0], "SOCKS5 reply version");
            return reply[1];
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        in.transferTo(got);
        return got.toByteArray();
    }
}
