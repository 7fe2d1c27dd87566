package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * {@code pqssh ssh -N -R [bind:]port} (remote dynamic forwarding): the server listens, each connection is a SOCKS4/5
 * request answered by pqssh on the client, which connects from the client's machine; {@code PermitRemoteOpen} limits
 * where. Against Debian's sshd and pqssh server, with curl as the SOCKS client to a loopback HTTP server, and a raw
 * SOCKS client for the refusals. Also: a -R connection's half-close reaches the target and the reply comes back.
 */
class RemoteDynamicForwardTest extends SocksForwardFixture {
    private ForwardingHarness.Proc client(int serverPort, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("-F", "none", "-o", "ExitOnForwardFailure=yes"));
        args.addAll(List.of(extra));
        return h.startPqsshClient(key, serverPort, args.toArray(String[]::new));
    }

    private CliHarness.Result curl(String proxyOption, int proxyPort, String host, String path) throws Exception {
        return h.curl(proxyOption, proxyPort, "http://" + host + ":" + httpPort + path);
    }

    @Test
    void againstOpenSshSshdCurlThroughSocks5And4aAndPermitRemoteOpenLimits() throws Exception {
        int sshd = h.startSshd(h.authorizedKeys());
        int echo = h.startEchoServer();
        int r = CliHarness.freePort();
        checkSocksForwarding(sshd, echo, "-R", r + ":127.0.0.1:" + echo);

        // a half-close on a -R connection: sshd passes the EOF, pqssh shuts the target's input, the reply still
        // comes back (MINA's own forwarder closed the whole connection here)
        byte[] data = ForwardingHarness.random(200_000);
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
        int server = h.startServer(h.authorizedKeys());
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
        assertEquals(0, ForwardingHarness.socks5Reply(limited, "localhost", other), l.output());
        assertEquals(2, ForwardingHarness.socks5Reply(limited, "localhost", httpPort), l.output());
        int closed = CliHarness.freePort();
        assertEquals(2, ForwardingHarness.socks5Reply(limited, "127.0.0.1", closed), l.output());
        CliHarness.Result refused = curl("--socks5-hostname", limited, "localhost", "/refused");
        assertNotEquals(0, refused.rc(), refused.all());
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(l.err()).contains(
                "remote dynamic forwarding to host 127.0.0.1 port " + closed + " denied by PermitRemoteOpen"),
                l::output);
        // without a limit, a closed port is "connection refused" (SOCKS5 reply 5)
        assertEquals(5, ForwardingHarness.socks5Reply(socks, "127.0.0.1", closed), c.output());

        assertEquals(2, ForwardingHarness.socks5Reply(none, "127.0.0.1", httpPort), n.output());
        assertTrue(c.process().isAlive() && l.process().isAlive() && n.process().isAlive(),
                c.output() + l.output() + n.output());
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        in.transferTo(got);
        return got.toByteArray();
    }
}
