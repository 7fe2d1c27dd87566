package io.pqssh.common.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.session.forward.ExplicitPortForwardingTracker;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.pqssh.mina.TestKeys;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.forward.ForwardingPolicy;

/**
 * Half-close through a pqssh client's local forward and a pqssh server's {@code direct-tcpip} channel, both on
 * {@link HalfCloseTransport}: a request followed by shutdownOutput gets its whole reply, and a target that shuts
 * down its sending side first still receives what the client sends afterwards.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HalfCloseTransportTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();
    private static final Duration T = Duration.ofSeconds(20);

    /** A loopback server running {@code conversation} on each connection (on its own thread) until closed. */
    private static ServerSocket target(BiConsumer<InputStream, Socket> conversation) throws IOException {
        ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!ss.isClosed()) {
                try {
                    Socket s = ss.accept();
                    Thread c = new Thread(() -> {
                        try (s; InputStream in = s.getInputStream()) {
                            conversation.accept(in, s);
                        } catch (IOException e) {
                            // the test sees what is missing
                        }
                    });
                    c.setDaemon(true);
                    c.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return ss;
    }

    /** Runs {@code use} with a local forward (pqssh client to pqssh server) to {@code targetPort}. */
    private static void throughLocalForward(int targetPort, ForwardUser use) throws Exception {
        try (PqsshServer srv = PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> k.equals(USER.getPublic())).forwarding(ForwardingPolicy.DEFAULT).start();
                PqsshClient cli = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                        .warningSink(w -> { }).timeout(T).identity(USER).start();
                ClientSession s = cli.login("alice", "127.0.0.1", srv.port());
                ExplicitPortForwardingTracker fwd = s.createLocalPortForwardingTracker(
                        new SshdSocketAddress("127.0.0.1", 0), new SshdSocketAddress("127.0.0.1", targetPort))) {
            use.use(fwd.getBoundAddress().getPort());
        }
    }

    private interface ForwardUser {
        void use(int port) throws Exception;
    }

    @Test
    void aRequestThenShutdownOutputGetsTheWholeReply() throws Exception {
        try (ServerSocket replier = target((in, s) -> {
            try {
                byte[] request = in.readAllBytes();
                s.getOutputStream().write(request);
            } catch (IOException e) {
                // no reply
            }
        })) {
            byte[] request = new byte[300_000];
            new Random(7).nextBytes(request);
            throughLocalForward(replier.getLocalPort(), port -> {
                try (Socket c = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    c.setSoTimeout(20_000);
                    c.getOutputStream().write(request);
                    c.shutdownOutput();
                    assertArrayEquals(request, c.getInputStream().readAllBytes());
                }
            });
        }
    }

    @Test
    void aTargetThatShutsDownFirstStillReceives() throws Exception {
        byte[] greeting = "greeting, then this side is done".getBytes(StandardCharsets.UTF_8);
        BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        try (ServerSocket greeter = target((in, s) -> {
            try {
                OutputStream out = s.getOutputStream();
                out.write(greeting);
                s.shutdownOutput();
                received.add(in.readAllBytes());
            } catch (IOException e) {
                received.add(new byte[0]);
            }
        })) {
            byte[] request = new byte[200_000];
            new Random(8).nextBytes(request);
            throughLocalForward(greeter.getLocalPort(), port -> {
                try (Socket c = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    c.setSoTimeout(20_000);
                    assertArrayEquals(greeting, c.getInputStream().readAllBytes());
                    c.getOutputStream().write(request);
                    c.shutdownOutput();
                    byte[] got = received.poll(20, TimeUnit.SECONDS);
                    assertNotNull(got, "the target never finished reading");
                    assertArrayEquals(request, got);
                }
            });
        }
    }
}
