package io.pqssh.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.AsynchronousSocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.net.ExtendedSocketOptions;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.common.io.IoConnectFuture;
import org.apache.sshd.common.io.IoConnector;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoServiceFactory;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.io.nio2.Nio2Session;
import org.apache.sshd.common.util.Readable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link HalfCloseTransport#TCP_QUICKACK}: after each read the socket leaves Linux's delayed-ACK ("pingpong") state,
 * which otherwise holds the ACK up to 40 ms and with it the next small packet of a server that uses Nagle's
 * algorithm (sshd before a session is interactive; docs/startup.md has the packet trace over the 67 ms link). The
 * test puts the client's socket into that state ({@code TCP_QUICKACK} false), has the peer send, and reads the
 * option back inside the read's handler: true with the property, still false without it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuickAckTest {
    @Test
    void aReadLeavesTheDelayedAckStateOnlyWithTheProperty() throws Exception {
        assertEquals(Boolean.TRUE, quickAckSeenAfterARead(true));
        assertEquals(Boolean.FALSE, quickAckSeenAfterARead(false));
    }

    private static Boolean quickAckSeenAfterARead(boolean property) throws Exception {
        SshClient manager = SshClient.setUpDefaultClient();
        HalfCloseTransport.TCP_QUICKACK.set(manager, property);
        CompletableFuture<Boolean> seen = new CompletableFuture<>();
        CountDownLatch delayedAckState = new CountDownLatch(1);
        IoHandler handler = new IoHandler() {
            @Override
            public void sessionCreated(IoSession session) throws Exception {
                AsynchronousSocketChannel s = ((Nio2Session) session).getSocket();
                s.setOption(ExtendedSocketOptions.TCP_QUICKACK, Boolean.FALSE); // enters the delayed-ACK state
                delayedAckState.countDown();
            }

            @Override
            public void sessionClosed(IoSession session) {
            }

            @Override
            public void exceptionCaught(IoSession session, Throwable cause) {
                seen.completeExceptionally(cause);
            }

            @Override
            public void messageReceived(IoSession session, Readable message) throws Exception {
                seen.complete(((Nio2Session) session).getSocket().getOption(ExtendedSocketOptions.TCP_QUICKACK));
            }
        };
        IoServiceFactory factory = new HalfCloseTransport().create(manager);
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            IoConnector connector = factory.createConnector(handler);
            try {
                IoConnectFuture f = connector.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        ss.getLocalPort()), null, null);
                try (Socket peer = ss.accept()) {
                    f.await(10, TimeUnit.SECONDS);
                    assertNotNull(f.getSession());
                    delayedAckState.await(10, TimeUnit.SECONDS);
                    OutputStream out = peer.getOutputStream();
                    out.write("SSH-2.0-peer\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    out.flush();
                    return seen.get(10, TimeUnit.SECONDS);
                }
            } finally {
                connector.close(true);
                factory.close(true);
            }
        }
    }
}
