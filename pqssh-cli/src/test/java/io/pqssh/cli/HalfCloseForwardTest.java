package io.pqssh.cli;

import static io.pqssh.cli.ForwardingHarness.assertEcho;
import static io.pqssh.cli.ForwardingHarness.random;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forwarded connection whose client sends a request, shuts down its sending side ({@code nc -N}) and waits for the
 * reply, to a loopback server that answers only after that end of input: through {@code pqssh ssh -L} to Debian's
 * sshd and to {@code pqssh server}, through {@code pqssh server}'s {@code -R} listener, and through OpenSSH's
 * {@code ssh -L} to {@code pqssh server}, and through {@code -L} of a session reached with {@code -J}. The whole
 * reply must arrive. The other way round too: a target that greets, shuts down its sending side and then reads must
 * still get what the client sends after the greeting ({@code pqssh server}'s {@code direct-tcpip} channel).
 */
class HalfCloseForwardTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private Path authorized;
    private int replier;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        h = new ForwardingHarness(dir);
        key = h.userKey();
        authorized = h.authorizedKeys();
        replier = h.startReplyAfterEofServer();
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private ForwardingHarness.Proc pqsshClient(int serverPort, String... forwards) throws IOException {
        return h.startPqsshClient(key, serverPort, forwards);
    }

    /** OpenSSH's {@code ssh -N} with the test key to the server on {@code serverPort}, plus {@code forwards}. */
    private ForwardingHarness.Proc openSshClient(int serverPort, String... forwards) throws IOException {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH.toString(), "-N", "-F", "none",
                "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts_openssh"),
                "-i", key.toString(), "-p", String.valueOf(serverPort)));
        cmd.addAll(List.of(forwards));
        cmd.add(CliHarness.user() + "@127.0.0.1");
        return h.startProcess(cmd, Map.of(), String.join(" ", cmd));
    }

    /** Two requests on two connections: a short one and one of several channel packets. */
    private void requestsComeBackWhole(int port, ForwardingHarness.Proc client, String what) throws Exception {
        for (int size : new int[] {11, 200_000}) {
            byte[] request = random(size);
            assertEcho(request, ForwardingHarness.requestThenHalfClose(port, request), what + " (" + size
                    + " bytes)\n" + client.output());
        }
        assertTrue(client.process().isAlive(), client.output());
    }

    @Test
    void pqsshLocalForwardToSshd() throws Exception {
        int sshd = h.startSshd(authorized);
        int l = CliHarness.freePort();
        ForwardingHarness.Proc c = pqsshClient(sshd, "-L", l + ":127.0.0.1:" + replier);
        h.awaitListening(c, l);
        requestsComeBackWhole(l, c, "pqssh ssh -L through sshd");
    }

    @Test
    void pqsshLocalAndRemoteForwardsToPqsshServer() throws Exception {
        int server = h.startServer(authorized);
        int l = CliHarness.freePort();
        int r = CliHarness.freePort();
        ForwardingHarness.Proc c = pqsshClient(server, "-L", l + ":127.0.0.1:" + replier,
                "-R", r + ":127.0.0.1:" + replier);
        h.awaitListening(c, l);
        h.awaitListening(c, r); // pqssh server's listener for -R
        requestsComeBackWhole(l, c, "pqssh ssh -L through pqssh server");
        requestsComeBackWhole(r, c, "pqssh server's -R listener");
    }

    /** -L of a session reached through a jump host: its listener is an ordinary socket, its SSH is a channel. */
    @Test
    void pqsshLocalForwardOfASessionThroughAJumpHost() throws Exception {
        int hop = h.startServer(authorized);
        int sshd = h.startSshd(authorized);
        Path config = dir.resolve("ssh_config");
        Files.writeString(config, String.join("\n", "Host *", "    IdentityFile " + key,
                "    StrictHostKeyChecking no", "    UserKnownHostsFile " + dir.resolve("known_hosts"),
                "    User " + CliHarness.user(), ""));
        int l = CliHarness.freePort();
        ForwardingHarness.Proc c = h.startPqssh(Map.of(), "ssh", "-N", "-F", config.toString(), "-J",
                "127.0.0.1:" + hop, "-L", l + ":127.0.0.1:" + replier, "-p", String.valueOf(sshd), "127.0.0.1");
        h.awaitListening(c, l);
        requestsComeBackWhole(l, c, "pqssh ssh -J -L through sshd");
    }

    @Test
    void aTargetThatHalfClosesFirstStillGetsTheRequest() throws Exception {
        java.util.concurrent.BlockingQueue<byte[]> received = new java.util.concurrent.LinkedBlockingQueue<>();
        byte[] greeting = "hello, then my side is done\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int greeter = h.startGreetThenReadServer(greeting, received);
        int server = h.startServer(authorized);
        int l = CliHarness.freePort();
        int o = CliHarness.freePort();
        ForwardingHarness.Proc c = pqsshClient(server, "-L", l + ":127.0.0.1:" + greeter);
        ForwardingHarness.Proc openssh = openSshClient(server, "-L", o + ":127.0.0.1:" + greeter);
        h.awaitListening(c, l);
        h.awaitListening(openssh, o);
        for (ForwardingHarness.Proc p : List.of(c, openssh)) {
            int port = p == c ? l : o;
            byte[] request = random(150_000);
            assertEcho(greeting, ForwardingHarness.readToEndThenSend(port, request), "greeting via " + p.label());
            // awaitListening's probe connections reach the target too, and send nothing: skip those
            byte[] got = received.poll(20, java.util.concurrent.TimeUnit.SECONDS);
            while (got != null && got.length == 0) {
                got = received.poll(20, java.util.concurrent.TimeUnit.SECONDS);
            }
            assertTrue(got != null, "the target never finished reading, via " + p.output());
            assertEcho(request, got, "what the target read after its half-close, via " + p.label());
        }
    }

    @Test
    void openSshLocalForwardToPqsshServer() throws Exception {
        int server = h.startServer(authorized);
        int l = CliHarness.freePort();
        ForwardingHarness.Proc c = openSshClient(server, "-L", l + ":127.0.0.1:" + replier);
        h.awaitListening(c, l);
        requestsComeBackWhole(l, c, "OpenSSH ssh -L through pqssh server");
    }
}
