package io.pqssh.common.forward;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.exception.SshChannelOpenException;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.server.forward.AcceptAllForwardingFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.pqssh.mina.TestKeys;

/**
 * The client side of -R ({@link RemoteForwards}) against a plain MINA server: a requested listener's connections reach
 * the client's target; a {@code forwarded-tcpip} or {@code forwarded-streamlocal@openssh.com} channel the server
 * opens on its own (a port or path the client never asked for) is refused as administratively prohibited, so a server
 * cannot make the client connect anywhere.
 */
class RemoteForwardsTest {
    private SshServer sshd;
    private SshClient client;
    private ClientSession session;
    private ServerSocket echo;

    @BeforeEach
    void start() throws Exception {
        sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(0);
        sshd.setKeyPairProvider(KeyPairProvider.wrap(TestKeys.ed25519()));
        sshd.setPasswordAuthenticator((u, p, s) -> "bob".equals(u) && "secret".equals(p));
        sshd.setUserAuthFactories(List.of(UserAuthPasswordFactory.INSTANCE));
        sshd.setForwardingFilter(AcceptAllForwardingFilter.INSTANCE);
        sshd.start();
        client = SshClient.setUpDefaultClient();
        client.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
        client.setChannelFactories(RemoteForwards.CHANNEL_FACTORIES);
        client.start();
        session = client.connect("bob", "127.0.0.1", sshd.getPort()).verify(Duration.ofSeconds(30)).getSession();
        session.addPasswordIdentity("secret");
        session.auth().verify(Duration.ofSeconds(30));
        echo = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!echo.isClosed()) {
                try (Socket s = echo.accept(); InputStream in = s.getInputStream();
                        OutputStream out = s.getOutputStream()) {
                    in.transferTo(out);
                } catch (IOException e) {
                    return;
                }
            }
        }, "echo");
        t.setDaemon(true);
        t.start();
    }

    @AfterEach
    void stop() throws Exception {
        echo.close();
        session.close(true);
        client.stop();
        sshd.stop(true);
    }

    private org.apache.sshd.common.session.Session serverSession() {
        return sshd.getActiveSessions().get(0);
    }

    /** The server opens {@code opening} towards the client; returns the open future, completed. */
    private OpenFuture serverOpens(LocalForwardListener.Opening opening) throws Exception {
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel local = SocketChannel.open(ss.getLocalAddress());
            ss.accept().close();
            OutgoingRelayChannel ch = new OutgoingRelayChannel(opening.type(), opening::write, local);
            serverSession().getService(ConnectionService.class).registerChannel(ch);
            OpenFuture f = ch.open();
            assertTrue(f.await(20, TimeUnit.SECONDS), "no answer to the channel open");
            return f;
        }
    }

    private static int reason(OpenFuture f) {
        assertFalse(f.isOpened(), "the client opened a channel it never asked for");
        assertTrue(f.getException() instanceof SshChannelOpenException, String.valueOf(f.getException()));
        return ((SshChannelOpenException) f.getException()).getReasonCode();
    }

    @Test
    void aRequestedListenerReachesTheTargetAndAnUnrequestedChannelIsRefused() throws Exception {
        int bound = RemoteForwards.listenTcp(session, "localhost", 0,
                RelayChannel.Route.to(LocalTarget.tcp("127.0.0.1", echo.getLocalPort())), Duration.ofSeconds(20));
        assertTrue(bound > 0);
        byte[] data = new byte[100_000];
        new java.util.Random(7).nextBytes(data);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), bound)) {
            s.setSoTimeout(20_000);
            Thread w = new Thread(() -> {
                try {
                    s.getOutputStream().write(data); // no half-close: plain MINA's server side would drop the rest
                } catch (IOException e) {
                    // the reader sees the short answer
                }
            }, "writer");
            w.setDaemon(true);
            w.start();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            int n;
            while (got.size() < data.length && (n = in.read(buf)) > 0) {
                got.write(buf, 0, n);
            }
            assertArrayEquals(data, got.toByteArray(), "echo through the requested -R listener");
        }

        // the server names a port nobody requested, then a socket path nobody requested
        int unrequested = bound == 65535 ? 1 : bound + 1;
        OpenFuture tcp = serverOpens(LocalForwardListener.Opening.forwardedTcpip("localhost", unrequested));
        assertEquals(SshConstants.SSH_OPEN_ADMINISTRATIVELY_PROHIBITED, reason(tcp));
        OpenFuture unix = serverOpens(LocalForwardListener.Opening.forwardedStreamLocal("/tmp/never-requested"));
        assertEquals(SshConstants.SSH_OPEN_ADMINISTRATIVELY_PROHIBITED, reason(unix));
        assertTrue(session.isOpen(), "a refused channel ended the session");
    }
}
