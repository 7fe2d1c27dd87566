package io.pqssh.common.transport;

import java.util.Objects;

import org.apache.sshd.common.future.CloseFuture;
import org.apache.sshd.common.future.SshFutureListener;
import org.apache.sshd.common.io.IoAcceptor;
import org.apache.sshd.common.io.IoConnector;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoServiceEventListener;
import org.apache.sshd.common.io.IoServiceFactory;

/**
 * An {@link IoServiceFactory} that passes every call to the transport's factory underneath, for transports that
 * change only how connectors or acceptors are made (wrapping MINA's handler, tunnelling SSH connections). Closing it
 * closes the factory underneath, with everything that one made.
 */
public abstract class ForwardingIoServiceFactory implements IoServiceFactory {
    private final IoServiceFactory delegate;

    protected ForwardingIoServiceFactory(IoServiceFactory delegate) {
        this.delegate = Objects.requireNonNull(delegate);
    }

    /** The transport's factory underneath. */
    protected IoServiceFactory delegate() {
        return delegate;
    }

    @Override
    public IoConnector createConnector(IoHandler handler) {
        return delegate.createConnector(handler);
    }

    @Override
    public IoAcceptor createAcceptor(IoHandler handler) {
        return delegate.createAcceptor(handler);
    }

    @Override
    public IoServiceEventListener getIoServiceEventListener() {
        return delegate.getIoServiceEventListener();
    }

    @Override
    public void setIoServiceEventListener(IoServiceEventListener listener) {
        delegate.setIoServiceEventListener(listener);
    }

    @Override
    public CloseFuture close(boolean immediately) {
        return delegate.close(immediately);
    }

    @Override
    public void addCloseFutureListener(SshFutureListener<CloseFuture> listener) {
        delegate.addCloseFutureListener(listener);
    }

    @Override
    public void removeCloseFutureListener(SshFutureListener<CloseFuture> listener) {
        delegate.removeCloseFutureListener(listener);
    }

    @Override
    public boolean isClosed() {
        return delegate.isClosed();
    }

    @Override
    public boolean isClosing() {
        return delegate.isClosing();
    }
}
