package io.pqssh.mina.transport;

import java.util.Objects;

import org.apache.sshd.common.Factory;
import org.apache.sshd.common.FactoryManager;
import org.apache.sshd.common.future.CloseFuture;
import org.apache.sshd.common.future.SshFutureListener;
import org.apache.sshd.common.io.DefaultIoServiceFactoryFactory;
import org.apache.sshd.common.io.IoAcceptor;
import org.apache.sshd.common.io.IoConnector;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoServiceEventListener;
import org.apache.sshd.common.io.IoServiceFactory;
import org.apache.sshd.common.io.IoServiceFactoryFactory;
import org.apache.sshd.common.util.threads.CloseableExecutorService;

/**
 * MINA transport with write coalescing (see {@link CoalescingIoSession}) on top of another transport, by default
 * the one MINA would pick itself ({@link DefaultIoServiceFactoryFactory}, which honours MINA's system property, so
 * a transport installed that way, such as the lab's byte counter, sits underneath and sees the combined writes).
 */
public final class CoalescingIoServiceFactoryFactory implements IoServiceFactoryFactory {
    /** System property that turns coalescing off for builders that did not choose ({@code false}). */
    public static final String PROPERTY = "pqssh.coalesceWrites";

    private final IoServiceFactoryFactory inner;

    public CoalescingIoServiceFactoryFactory() {
        this(DefaultIoServiceFactoryFactory.getDefaultIoServiceFactoryFactoryInstance());
    }

    public CoalescingIoServiceFactoryFactory(IoServiceFactoryFactory inner) {
        this.inner = Objects.requireNonNull(inner);
    }

    /** The default of the builders' {@code coalesceWrites}: on unless {@value #PROPERTY} is {@code false}. */
    public static boolean enabledByDefault() {
        return !"false".equalsIgnoreCase(System.getProperty(PROPERTY, "true").trim());
    }

    /**
     * What the builders install: coalescing over {@code transport} (null: MINA's default transport, as an
     * unconfigured {@code SshServer}/{@code SshClient} would use), or that transport alone.
     */
    public static IoServiceFactoryFactory of(boolean coalesce, IoServiceFactoryFactory transport) {
        IoServiceFactoryFactory base = transport != null ? transport
                : DefaultIoServiceFactoryFactory.getDefaultIoServiceFactoryFactoryInstance();
        return coalesce ? new CoalescingIoServiceFactoryFactory(base) : base;
    }

    @Override
    public IoServiceFactory create(FactoryManager manager) {
        return new Wrapped(inner.create(manager));
    }

    @Override
    public void setExecutorServiceFactory(Factory<CloseableExecutorService> factory) {
        inner.setExecutorServiceFactory(factory);
    }

    private record Wrapped(IoServiceFactory f) implements IoServiceFactory {
        @Override
        public IoConnector createConnector(IoHandler handler) {
            return f.createConnector(new CoalescingIoHandler(handler));
        }

        @Override
        public IoAcceptor createAcceptor(IoHandler handler) {
            return f.createAcceptor(new CoalescingIoHandler(handler));
        }

        @Override
        public IoServiceEventListener getIoServiceEventListener() {
            return f.getIoServiceEventListener();
        }

        @Override
        public void setIoServiceEventListener(IoServiceEventListener listener) {
            f.setIoServiceEventListener(listener);
        }

        @Override
        public CloseFuture close(boolean immediately) {
            return f.close(immediately);
        }

        @Override
        public void addCloseFutureListener(SshFutureListener<CloseFuture> listener) {
            f.addCloseFutureListener(listener);
        }

        @Override
        public void removeCloseFutureListener(SshFutureListener<CloseFuture> listener) {
            f.removeCloseFutureListener(listener);
        }

        @Override
        public boolean isClosed() {
            return f.isClosed();
        }

        @Override
        public boolean isClosing() {
            return f.isClosing();
        }
    }
}
