package io.pqssh.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.junit.jupiter.api.Test;

import io.pqssh.mina.EchoCommand;
import io.pqssh.mina.TestKeys;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/** The TCP connection started before the client: MINA takes it over for that address only, once. */
class EarlyConnectionTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();

    private static PqsshServer server() throws Exception {
        return PqsshServer.builder().commandFactory((ch, cmd) -> new EchoCommand("ran: ", cmd))
                .host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> "alice".equals(u) && k.equals(USER.getPublic())).start();
    }

    private static PqsshClient.Builder client(EarlyConnection early) {
        return PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE).warningSink(w -> { })
                .timeout(Duration.ofSeconds(20)).preferredAuthentications(List.of("publickey")).identity(USER)
                .earlyConnection(early);
    }

    private static String exec(ClientSession s, String command) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (var ch = s.createExecChannel(command)) {
            ch.setOut(out);
            ch.open().verify(20, TimeUnit.SECONDS);
            ch.waitFor(List.of(ClientChannelEvent.CLOSED), TimeUnit.SECONDS.toMillis(20));
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void aGroupMadeAheadIsTheNextConnectionsAndADiscardedOneEnds() throws Exception {
        try (PqsshServer srv = server()) {
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), srv.port());
            EarlyConnection.prepareGroup();
            EarlyConnection early = EarlyConnection.start(target);
            EarlyConnection.discardPreparedGroup(); // nothing left to discard: the connection took the group
            assertFalse(early.group().isShutdown(), "the group made ahead carries the connection");
            try (PqsshClient cli = client(early).start();
                    ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
                assertTrue(early.claimed());
                assertEquals("ran: echo ahead", exec(s, "echo ahead").strip());
            }
            assertTrue(early.group().awaitTermination(10, TimeUnit.SECONDS), "the client's close ended the group");
            // after a discard the next connection makes a group of its own
            EarlyConnection.prepareGroup();
            EarlyConnection.discardPreparedGroup();
            EarlyConnection other = EarlyConnection.start(target);
            try {
                assertFalse(other.group().isShutdown());
            } finally {
                other.close();
            }
            assertTrue(other.group().awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void theLoginRunsOnTheEarlySocket() throws Exception {
        try (PqsshServer srv = server()) {
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), srv.port());
            EarlyConnection early = EarlyConnection.start(target);
            try (PqsshClient cli = client(early).start();
                    ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
                assertTrue(early.claimed(), "the connector took the early socket");
                assertEquals(early.localAddress(), s.getIoSession().getLocalAddress(),
                        "the SSH session's socket is the early one");
                assertEquals("ran: echo hi", exec(s, "echo hi").strip());
                // a second login of the same client to the same address connects anew
                try (ClientSession again = cli.login("alice", "127.0.0.1", srv.port())) {
                    assertTrue(again.isAuthenticated());
                    assertFalse(again.getIoSession().getLocalAddress().equals(s.getIoSession().getLocalAddress()));
                }
            }
            assertTrue(early.group().awaitTermination(10, TimeUnit.SECONDS), "the client's close ended the group");
        }
    }

    @Test
    void anotherAddressConnectsAsUsualAndCloseReleasesTheEarlySocket() throws Exception {
        try (PqsshServer srv = server(); ServerSocket other = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            EarlyConnection early = EarlyConnection.start(new InetSocketAddress(other.getInetAddress(),
                    other.getLocalPort()));
            try (Socket accepted = other.accept()) {
                try (PqsshClient cli = client(early).start();
                        ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
                    assertTrue(s.isAuthenticated());
                    assertFalse(early.claimed(), "an early socket to another address is not used");
                }
                early.close();
                accepted.setSoTimeout(10_000);
                try (InputStream in = accepted.getInputStream()) {
                    assertEquals(-1, in.read(), "nothing was sent on the unused early socket, and it is closed");
                }
            }
        }
    }

    @Test
    void aRefusedEarlyConnectionFailsTheLoginAsARefusedConnection() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        EarlyConnection early = EarlyConnection.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        try (PqsshClient cli = client(early).start()) {
            Exception e = assertThrows(Exception.class, () -> cli.login("alice", "127.0.0.1", port));
            String chain = "";
            for (Throwable t = e; t != null; t = t.getCause()) {
                chain += t + "\n";
            }
            assertTrue(chain.contains("Connection refused"), chain);
            assertTrue(early.claimed());
        }
    }
}
