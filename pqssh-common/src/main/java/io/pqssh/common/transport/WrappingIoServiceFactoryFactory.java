package io.pqssh.common.transport;

import java.util.Objects;

import org.apache.sshd.common.Factory;
import org.apache.sshd.common.FactoryManager;
import org.apache.sshd.common.io.IoAcceptor;
import org.apache.sshd.common.io.IoConnector;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoServiceFactory;
import org.apache.sshd.common.io.IoServiceFactoryFactory;
import org.apache.sshd.common.util.threads.CloseableExecutorService;

/**
 * A MINA transport made from another one by putting a handler between it and the SSH layer: every acceptor and
 * connector the inner transport creates gets {@link #wrap}'s handler instead of MINA's. That handler is the only
 * place a transport can substitute its own {@link org.apache.sshd.common.io.IoSession} (see
 * {@link SessionWrappingIoHandler}); everything else is the inner transport's.
 */
public abstract class WrappingIoServiceFactoryFactory implements IoServiceFactoryFactory {
    private final IoServiceFactoryFactory inner;

    protected WrappingIoServiceFactoryFactory(IoServiceFactoryFactory inner) {
        this.inner = Objects.requireNonNull(inner);
    }

    /** The handler the inner transport is given in place of {@code handler} (MINA's SSH handler). */
    protected abstract IoHandler wrap(IoHandler handler);

    @Override
    public IoServiceFactory create(FactoryManager manager) {
        return new WrappingFactory(inner.create(manager), this);
    }

    @Override
    public void setExecutorServiceFactory(Factory<CloseableExecutorService> factory) {
        inner.setExecutorServiceFactory(factory);
    }

    /** Connectors and acceptors get the wrapped handler; the rest is the inner factory's. */
    private static final class WrappingFactory extends ForwardingIoServiceFactory {
        private final WrappingIoServiceFactoryFactory outer;

        WrappingFactory(IoServiceFactory f, WrappingIoServiceFactoryFactory outer) {
            super(f);
            this.outer = outer;
        }

        @Override
        public IoConnector createConnector(IoHandler handler) {
            return delegate().createConnector(outer.wrap(handler));
        }

        @Override
        public IoAcceptor createAcceptor(IoHandler handler) {
            return delegate().createAcceptor(outer.wrap(handler));
        }
    }
}
