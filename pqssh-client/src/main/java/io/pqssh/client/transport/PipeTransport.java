package io.pqssh.client.transport;

import java.io.IOException;
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
import org.apache.sshd.common.io.IoService;
import org.apache.sshd.common.io.IoServiceEventListener;
import org.apache.sshd.common.io.IoServiceFactory;
import org.apache.sshd.common.io.IoServiceFactoryFactory;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.session.helpers.AbstractSessionIoHandler;
import org.apache.sshd.common.util.threads.CloseableExecutorService;

import io.pqssh.common.transport.ForwardingIoServiceFactory;

/**
 * The transport of a client whose SSH connections run over {@link PipeIoSession}s instead of sockets. Only the
 * connector of MINA's SSH session factory makes pipes; everything else (the port forwarding of the sessions made this
 * way: their listeners, their connections to local targets) uses {@code inner}, an ordinary transport. Subclasses say
 * how one pipe is opened ({@link #connect(Connection)}).
 */
public abstract class PipeTransport implements IoServiceFactoryFactory {
    private final String name;
    private final IoServiceFactoryFactory inner;

    /** {@code name} says which transport refused a connection once closed ("proxy", "jump"). */
    protected PipeTransport(String name, IoServiceFactoryFactory inner) {
        this.name = name;
        this.inner = Objects.requireNonNull(inner, "inner transport");
    }

    /**
     * Opens a pipe to {@code c.target()} and makes its session, then {@link Connection#start starts} it once the pipe
     * carries bytes or {@link Connection#fail fails} the connection; what it throws fails the connection too.
     */
    protected abstract void connect(Connection c) throws IOException;

    @Override
    public final IoServiceFactory create(FactoryManager manager) {
        return new Services(inner.create(manager));
    }

    @Override
    public final void setExecutorServiceFactory(Factory<CloseableExecutorService> factory) {
        // pipe sessions have their own reader thread; the inner transport's pool serves the rest
        inner.setExecutorServiceFactory(factory);
    }

    /** One SSH connection being made: what its session needs, and how it is started or failed. */
    protected static final class Connection {
        private final Connector connector;
        private final SocketAddress target;
        private final AttributeRepository context;
        private final DefaultIoConnectFuture future;

        private Connection(Connector connector, SocketAddress target, AttributeRepository context,
                DefaultIoConnectFuture future) {
            this.connector = connector;
            this.target = target;
            this.context = context;
            this.future = future;
        }

        /** The service the session belongs to. */
        public IoService service() {
            return connector;
        }

        public IoHandler handler() {
            return connector.handler;
        }

        /** The destination as the SSH layer named it. */
        public SocketAddress target() {
            return target;
        }

        /** Runs {@code r} if the SSH layer cancels the connection. */
        public void onCancel(Runnable r) {
            future.addListener(f -> {
                if (f.isCanceled()) {
                    r.run();
                }
            });
        }

        public void fail(Throwable t) {
            future.setException(t);
        }

        /** Registers the session with its service and runs it on a thread of its own, {@code threadName}. */
        public void start(PipeIoSession session, String threadName) {
            if (context != null) {
                session.setAttribute(AttributeRepository.class, context);
            }
            connector.sessions.put(session.getId(), session);
            session.addCloseFutureListener(c -> connector.sessions.remove(session.getId()));
            session.start(future, threadName);
        }
    }

    /** SSH sessions' connectors make pipes; everything else is the inner transport's. */
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
                    throw new IOException(name + " transport closed");
                }
                PipeTransport.this.connect(new Connection(this, targetAddress, context, future));
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
