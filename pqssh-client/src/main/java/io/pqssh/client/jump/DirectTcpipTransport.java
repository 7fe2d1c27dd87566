package io.pqssh.client.jump;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.Factory;
import org.apache.sshd.common.FactoryManager;
import org.apache.sshd.common.channel.StreamingChannel;
import org.apache.sshd.common.future.CloseFuture;
import org.apache.sshd.common.future.DefaultCloseFuture;
import org.apache.sshd.common.future.SshFutureListener;
import org.apache.sshd.common.io.DefaultIoConnectFuture;
import org.apache.sshd.common.io.IoConnectFuture;
import org.apache.sshd.common.io.IoConnector;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoServiceEventListener;
import org.apache.sshd.common.io.IoServiceFactory;
import org.apache.sshd.common.io.IoServiceFactoryFactory;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.helpers.AbstractSessionIoHandler;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.apache.sshd.common.util.threads.CloseableExecutorService;

import io.pqssh.common.transport.ForwardingIoServiceFactory;

/**
 * The transport of a client whose SSH connections are {@code direct-tcpip} channels of {@code hop}, an authenticated
 * session to the previous jump host: connecting to {@code host:port} asks the hop to connect there, and no socket is
 * opened or bound on this machine for it. Only the connector of MINA's SSH session factory is tunnelled; the port
 * forwarding of the sessions made this way (their listeners and their connections to local targets) uses
 * {@code inner}, an ordinary transport. The target is sent as the caller named it (the hop resolves it,
 * as with OpenSSH's {@code -W}); the originator is 127.0.0.1 port 65535, as OpenSSH's stdio forwarding sends.
 */
public final class DirectTcpipTransport implements IoServiceFactoryFactory {
    private static final SshdSocketAddress ORIGINATOR = new SshdSocketAddress("127.0.0.1", 65535);

    private final ClientSession hop;
    private final IoServiceFactoryFactory inner;

    public DirectTcpipTransport(ClientSession hop, IoServiceFactoryFactory inner) {
        this.hop = Objects.requireNonNull(hop, "hop session");
        this.inner = Objects.requireNonNull(inner, "inner transport");
    }

    @Override
    public IoServiceFactory create(FactoryManager manager) {
        return new Services(inner.create(manager));
    }

    @Override
    public void setExecutorServiceFactory(Factory<CloseableExecutorService> factory) {
        // tunnelled sessions have their own reader thread; the inner transport's pool serves the rest
        inner.setExecutorServiceFactory(factory);
    }

    /** Target as the SSH layer names it: host string as given (never a reverse lookup), port. */
    static SshdSocketAddress target(SocketAddress a) {
        if (a instanceof SshdSocketAddress) {
            return (SshdSocketAddress) a;
        }
        if (a instanceof InetSocketAddress) {
            InetSocketAddress i = (InetSocketAddress) a;
            return new SshdSocketAddress(i.getHostString(), i.getPort());
        }
        throw new IllegalArgumentException("not a host and port: " + a);
    }

    /** SSH sessions' connectors tunnel; everything else is the inner transport's. */
    private final class Services extends ForwardingIoServiceFactory {
        Services(IoServiceFactory f) {
            super(f);
        }

        @Override
        public IoConnector createConnector(IoHandler handler) {
            // MINA's SshClient connects with its session factory; forwarders and channels bring their own handlers
            return handler instanceof AbstractSessionIoHandler ? new Connector(handler)
                    : super.createConnector(handler);
        }
    }

    private final class Connector implements IoConnector {
        private final IoHandler handler;
        private final Map<Long, IoSession> sessions = new ConcurrentHashMap<>();
        private final DefaultCloseFuture closed = new DefaultCloseFuture(this, null);
        private volatile IoServiceEventListener listener;

        Connector(IoHandler handler) {
            this.handler = handler;
        }

        @Override
        public IoConnectFuture connect(SocketAddress targetAddress, AttributeRepository context,
                SocketAddress localAddress) {
            DefaultIoConnectFuture future = new DefaultIoConnectFuture(targetAddress, null);
            try {
                if (closed.isClosed()) {
                    throw new IOException("jump transport closed");
                }
                TunnelChannel channel = new TunnelChannel(ORIGINATOR, target(targetAddress));
                channel.setStreaming(StreamingChannel.Streaming.Async);
                ConnectionService service = hop.getService(ConnectionService.class);
                service.registerChannel(channel);
                ChannelIoSession session = new ChannelIoSession(this, handler, channel,
                        hop.getIoSession().getLocalAddress(), targetAddress);
                future.addListener(f -> {
                    if (f.isCanceled()) {
                        channel.close(true);
                    }
                });
                channel.open().addListener(opened -> {
                    Throwable t = opened.getException();
                    if (t != null || !opened.isOpened()) {
                        channel.close(true);
                        future.setException(t != null ? t : new IOException("direct-tcpip channel not opened"));
                        return;
                    }
                    if (context != null) {
                        session.setAttribute(AttributeRepository.class, context);
                    }
                    sessions.put(session.getId(), session);
                    session.addCloseFutureListener(c -> sessions.remove(session.getId()));
                    session.start(future);
                });
            } catch (IOException | RuntimeException e) {
                future.setException(e);
            }
            return future;
        }

        @Override
        public Map<Long, IoSession> getManagedSessions() {
            return Map.copyOf(sessions);
        }

        @Override
        public IoServiceEventListener getIoServiceEventListener() {
            return listener;
        }

        @Override
        public void setIoServiceEventListener(IoServiceEventListener l) {
            this.listener = l;
        }

        @Override
        public CloseFuture close(boolean immediately) {
            for (IoSession s : sessions.values()) {
                s.close(immediately);
            }
            closed.setClosed();
            return closed;
        }

        @Override
        public void addCloseFutureListener(SshFutureListener<CloseFuture> l) {
            closed.addListener(l);
        }

        @Override
        public void removeCloseFutureListener(SshFutureListener<CloseFuture> l) {
            closed.removeListener(l);
        }

        @Override
        public boolean isClosed() {
            return closed.isClosed();
        }

        @Override
        public boolean isClosing() {
            return closed.isClosed();
        }
    }
}
