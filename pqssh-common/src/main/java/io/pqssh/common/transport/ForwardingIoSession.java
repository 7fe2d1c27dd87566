package io.pqssh.common.transport;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.Objects;

import org.apache.sshd.common.future.CloseFuture;
import org.apache.sshd.common.future.SshFutureListener;
import org.apache.sshd.common.io.IoService;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * An {@link IoSession} that passes every call to the transport session underneath, for wrappers that change only a
 * few calls (coalescing, counting). Attributes live on the session underneath, so MINA's SSH session and anything
 * else attached to the connection are shared by every wrapper of it.
 */
public abstract class ForwardingIoSession implements IoSession {
    private final IoSession delegate;

    protected ForwardingIoSession(IoSession delegate) {
        this.delegate = Objects.requireNonNull(delegate);
    }

    /** The transport session underneath. */
    public IoSession delegate() {
        return delegate;
    }

    @Override
    public IoWriteFuture writeBuffer(Buffer buffer) throws IOException {
        return delegate.writeBuffer(buffer);
    }

    @Override
    public CloseFuture close(boolean immediately) {
        return delegate.close(immediately);
    }

    @Override
    public void shutdownOutputStream() throws IOException {
        delegate.shutdownOutputStream();
    }

    @Override
    public long getId() {
        return delegate.getId();
    }

    @Override
    public SocketAddress getAcceptanceAddress() {
        return delegate.getAcceptanceAddress();
    }

    @Override
    public Object getAttribute(Object key) {
        return delegate.getAttribute(key);
    }

    @Override
    public Object setAttribute(Object key, Object value) {
        return delegate.setAttribute(key, value);
    }

    @Override
    public Object setAttributeIfAbsent(Object key, Object value) {
        return delegate.setAttributeIfAbsent(key, value);
    }

    @Override
    public Object removeAttribute(Object key) {
        return delegate.removeAttribute(key);
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

    @Override
    public IoService getService() {
        return delegate.getService();
    }

    @Override
    public void suspendRead() {
        delegate.suspendRead();
    }

    @Override
    public void resumeRead() {
        delegate.resumeRead();
    }

    @Override
    public SocketAddress getRemoteAddress() {
        return delegate.getRemoteAddress();
    }

    @Override
    public SocketAddress getLocalAddress() {
        return delegate.getLocalAddress();
    }
}
