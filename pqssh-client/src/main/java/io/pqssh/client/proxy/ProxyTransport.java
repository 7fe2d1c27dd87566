package io.pqssh.client.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.Factory;
import org.apache.sshd.common.FactoryManager;
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
import org.apache.sshd.common.session.helpers.AbstractSessionIoHandler;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.apache.sshd.common.util.threads.CloseableExecutorService;

import io.pqssh.common.transport.ForwardingIoServiceFactory;

/**
 * The transport of a client whose SSH connections run over a {@code ProxyCommand} (its stdin and stdout) or over the
 * socket a {@code ProxyUseFdpass} command hands back. Only the connector of MINA's SSH session factory goes through
 * the proxy; port forwarding of the session made this way uses {@code inner}, the ordinary transport. The session's
 * remote address is the destination as named ({@code %h}, {@code %p}); nothing on this machine listens for it.
 */
public final class ProxyTransport implements IoServiceFactoryFactory {
    /** Opens one proxied byte stream; called once per SSH connection. */
    @FunctionalInterface
    public interface Opener {
        Streams open() throws IOException;
    }

    /** What ends the transport underneath: hangs the proxy command up, or shuts the passed socket down. */
    @FunctionalInterface
    public interface Endpoint {
        void close();
    }

    /** The two directions of a proxied connection and what ends it. */
    public record Streams(InputStream in, OutputStream out, Endpoint endpoint) {
    }

    /** The local end as ssh names a proxied connection ("UNKNOWN port 65535"). */
    private static final SshdSocketAddress LOCAL = new SshdSocketAddress("UNKNOWN", 65535);

    private final Opener opener;
    private final IoServiceFactoryFactory inner;

    public ProxyTransport(Opener opener, IoServiceFactoryFactory inner) {
        this.opener = Objects.requireNonNull(opener, "opener");
        this.inner = Objects.requireNonNull(inner, "inner transport");
    }

    /** A {@code ProxyCommand} opener: each connection starts the command. */
    public static Opener command(ProxyCommand command) {
        return () -> {
            Process p = command.start();
            return new Streams(p.getInputStream(), p.getOutputStream(), () -> ProxyCommand.hangUp(p, 3000));
        };
    }

    @Override
    public IoServiceFactory create(FactoryManager manager) {
        return new Services(inner.create(manager));
    }

    @Override
    public void setExecutorServiceFactory(Factory<CloseableExecutorService> factory) {
        inner.setExecutorServiceFactory(factory);
    }

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
                    throw new IOException("proxy transport closed");
                }
                Streams s = opener.open();
                StreamIoSession session = new StreamIoSession(this, handler, s.in(), s.out(), s.endpoint(), LOCAL,
                        targetAddress);
                if (context != null) {
                    session.setAttribute(AttributeRepository.class, context);
                }
                sessions.put(session.getId(), session);
                session.addCloseFutureListener(c -> sessions.remove(session.getId()));
                future.addListener(f -> {
                    if (f.isCanceled()) {
                        session.close(true);
                    }
                });
                session.start(future);
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
