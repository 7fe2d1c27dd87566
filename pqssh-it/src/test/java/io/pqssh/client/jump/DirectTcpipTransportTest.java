package io.pqssh.client.jump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.channel.ChannelListener;
import org.apache.sshd.common.channel.exception.SshChannelOpenException;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.pqssh.mina.EchoCommand;
import io.pqssh.mina.TestKeys;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.forward.ForwardingPolicy;

/**
 * A client whose SSH connection runs inside a hop's {@code direct-tcpip} channel: the login and a command work, the
 * hop sees exactly one such channel to the destination, closing the hop ends the tunnelled session, and a
 * destination the hop cannot reach fails the login with the hop's refusal.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DirectTcpipTransportTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();
    private static final Duration T = Duration.ofSeconds(20);

    private static PqsshServer server(String prefix) throws IOException {
        return PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> k.equals(USER.getPublic())).forwarding(ForwardingPolicy.DEFAULT)
                .commandFactory((channel, command) -> new EchoCommand(prefix, command)).start();
    }

    private static PqsshClient.Builder client() {
        return PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE).warningSink(w -> { })
                .timeout(T).identity(USER);
    }

    @Test
    void loginAndCommandThroughTheHopsChannel() throws Exception {
        try (PqsshServer hop = server("hop: "); PqsshServer dest = server("dest: ");
                PqsshClient first = client().start()) {
            List<String> opened = new CopyOnWriteArrayList<>();
            hop.sshd().addChannelListener(new ChannelListener() {
                @Override
                public void channelOpenSuccess(Channel channel) {
                    opened.add(channel.getClass().getSimpleName());
                }
            });
            ClientSession hopSession = first.login("alice", "127.0.0.1", hop.port());
            try (PqsshClient second = client().through(hopSession).start()) {
                ClientSession s = second.login("alice", "127.0.0.1", dest.port());
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                assertEquals(0, PqsshClient.exec(s, "hello", out, new ByteArrayOutputStream(), T));
                assertEquals("dest: hello\n", out.toString(StandardCharsets.UTF_8));
                assertTrue(s.getIoSession() instanceof ChannelIoSession, "not tunnelled: " + s.getIoSession());
                assertEquals(1, opened.size(), "channels the hop opened: " + opened);
                // the hop going away takes the tunnelled session with it
                hopSession.close(true).await(T);
                assertTrue(s.waitFor(java.util.EnumSet.of(ClientSession.ClientSessionEvent.CLOSED),
                        T).contains(ClientSession.ClientSessionEvent.CLOSED), "tunnelled session still open");
            }
        }
    }

    @Test
    void anUnreachableDestinationFailsWithTheHopsRefusal() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        try (PqsshServer hop = server("hop: "); PqsshClient first = client().start()) {
            ClientSession hopSession = first.login("alice", "127.0.0.1", hop.port());
            try (PqsshClient second = client().through(hopSession).start()) {
                IOException e = assertThrows(IOException.class, () -> second.login("alice", "127.0.0.1", closed));
                Throwable t = e;
                while (t != null && !(t instanceof SshChannelOpenException)) {
                    t = t.getCause();
                }
                assertTrue(t != null, "not a channel open refusal: " + e);
            }
            assertTrue(hopSession.isOpen(), "the hop session survives a refused channel");
        }
    }
}
