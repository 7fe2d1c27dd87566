package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static io.pqssh.cli.ForwardingHarness.assertEcho;
import static io.pqssh.cli.ForwardingHarness.random;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh -N -L/-R/-D} (a client process) through {@code pqssh server} (in process) to a loopback echo
 * server, and the server's refusals: {@code AllowTcpForwarding no}, {@code PermitOpen}, the key option
 * {@code no-port-forwarding}.
 */
class ForwardingEndToEndTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private int echo;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        h = new ForwardingHarness(dir);
        key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        echo = h.startEchoServer();
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private Path authorized(String options) throws IOException {
        Path a = dir.resolve("authorized_keys");
        Files.writeString(a, (options.isEmpty() ? "" : options + " ") + Files.readString(pub(key)));
        return a;
    }

    private ForwardingHarness.Proc client(int serverPort, String... forwards) throws IOException {
        return h.startPqsshClient(key, serverPort, forwards);
    }

    @Test
    void localRemoteAndDynamicForwardsCarryBytesToTheEchoServer() throws Exception {
        int server = h.startServer(authorized(""));
        int l = CliHarness.freePort();
        int r = CliHarness.freePort();
        int d = CliHarness.freePort();
        ForwardingHarness.Proc c = client(server, "-L", l + ":127.0.0.1:" + echo, "-R", r + ":127.0.0.1:" + echo,
                "-D", "127.0.0.1:" + d);
        h.awaitListening(c, l);
        h.awaitListening(c, d);
        h.awaitListening(c, r); // the server's listener for -R (loopback: GatewayPorts no)

        byte[] data = random(300_000);
        assertEcho(data, ForwardingHarness.echoThrough(l, data), "-L");
        assertEcho(data, ForwardingHarness.echoThrough(r, data), "-R");

        // SOCKS5: no authentication, CONNECT to 127.0.0.1:echo by IPv4 address
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), d)) {
            assertEquals(0, ForwardingHarness.socks5ConnectIpv4(s, new byte[] {127, 0, 0, 1}, echo),
                    "SOCKS5 CONNECT succeeded");
            byte[] small = random(50_000);
            assertEcho(small, ForwardingHarness.roundTrip(s, small), "-D SOCKS5");
        }
        // SOCKS4 too
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), d)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(new byte[] {4, 1, (byte) (echo >> 8), (byte) echo, 127, 0, 0, 1, 'u', 0});
            byte[] reply = new byte[8];
            in.readFully(reply);
            assertEquals(0x5a, reply[1] & 0xff, "SOCKS4 request granted");
            byte[] small = random(10_000);
            assertEcho(small, ForwardingHarness.roundTrip(s, small), "-D SOCKS4");
        }
        assertTrue(c.process().isAlive(), c.output());
    }

    @Test
    void allowTcpForwardingNoRefusesLocalAndRemote() throws Exception {
        int server = h.startServer(authorized(""), "-o", "AllowTcpForwarding=no");
        assertRefused(server);

        // ExitOnForwardFailure yes: the refused -R ends the client with 255, as ssh
        ForwardingHarness.Proc strict = client(server, "-o", "ExitOnForwardFailure=yes",
                "-R", CliHarness.freePort() + ":127.0.0.1:" + echo);
        assertEquals(255, strict.waitFor(Duration.ofSeconds(90)), strict.output());
    }

    @Test
    void keyOptionNoPortForwardingRefusesLocalAndRemote() throws Exception {
        int server = h.startServer(authorized("no-port-forwarding"));
        assertRefused(server);
    }

    @Test
    void permitOpenAndAllowTcpForwardingLocalLimitWhatIsForwarded() throws Exception {
        int other = h.startEchoServer();
        int server = h.startServer(authorized(""), "-o", "AllowTcpForwarding=local",
                "-o", "PermitOpen=127.0.0.1:" + other);
        int allowed = CliHarness.freePort();
        int denied = CliHarness.freePort();
        int r = CliHarness.freePort();
        ForwardingHarness.Proc c = client(server, "-L", allowed + ":127.0.0.1:" + other,
                "-L", denied + ":127.0.0.1:" + echo, "-R", r + ":127.0.0.1:" + echo);
        h.awaitListening(c, allowed);
        h.awaitListening(c, denied);
        byte[] data = random(1000);
        assertEcho(data, ForwardingHarness.echoThrough(allowed, data), "-L to a PermitOpen destination");
        assertEquals(0, ForwardingHarness.echoThrough(denied, data).length, "-L outside PermitOpen carried bytes");
        CliHarness.waitUntil(Duration.ofSeconds(60),
                () -> CliHarness.read(c.err()).contains("remote port forwarding failed for listen port " + r),
                c::output);
        assertTrue(!CliHarness.portOpen(r), "-R listener exists although AllowTcpForwarding is local");
    }

    /** -L: the listener exists locally but the server refuses the channel; -R: the server refuses the listener. */
    private void assertRefused(int server) throws Exception {
        int l = CliHarness.freePort();
        int r = CliHarness.freePort();
        ForwardingHarness.Proc c = client(server, "-L", l + ":127.0.0.1:" + echo, "-R", r + ":127.0.0.1:" + echo);
        h.awaitListening(c, l);
        byte[] data = random(1000);
        assertEquals(0, ForwardingHarness.echoThrough(l, data).length, "refused -L carried bytes: " + c.output());
        CliHarness.waitUntil(Duration.ofSeconds(60),
                () -> CliHarness.read(c.err()).contains("Warning: remote port forwarding failed for listen port " + r),
                c::output);
        assertTrue(!CliHarness.portOpen(r), "refused -R listens anyway");
    }
}
