package io.pqssh.client.transport;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.sshd.common.future.CloseFuture;
import org.apache.sshd.common.future.DefaultCloseFuture;
import org.apache.sshd.common.future.SshFutureListener;
import org.apache.sshd.common.io.AbstractIoWriteFuture;
import org.apache.sshd.common.io.IoConnectFuture;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoService;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What MINA needs from an {@link IoSession} whose bytes do not come from a socket of MINA's own (a proxy command's
 * pipes, a channel of another SSH session): MINA's SSH session is built on it exactly as on a TCP connection. One
 * thread of the session tells the SSH layer it was created, hands it every chunk that arrives, in order (as NIO2 does
 * with a socket), and, in the subclasses' shutdown, that it closed. Subclasses say how bytes arrive
 * ({@link #deliverUntilClosed}), how writes leave ({@link #send}) and how the pipe ends ({@link #endTransport}).
 */
public abstract class PipeIoSession implements IoSession {
    /** Named after the subclass, so its log lines keep its name. */
    protected final Logger log = LoggerFactory.getLogger(getClass());
    private final long id;
    private final IoService service;
    private final IoHandler handler;
    private final SocketAddress local;
    private final SocketAddress remote;
    private final Map<Object, Object> attributes = new ConcurrentHashMap<>();
    /** Its id is this session, so it reads as the session does whenever it is logged. */
    private final DefaultCloseFuture closeFuture = new DefaultCloseFuture(this, null);
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Guards {@link #readSuspended} and whatever else of a subclass the reader thread waits for. */
    protected final Object lock = new Object();
    private boolean readSuspended;

    /** {@code id} should be far from NIO2's counter and from other pipes', so that it names one session in logs. */
    protected PipeIoSession(long id, IoService service, IoHandler handler, SocketAddress local, SocketAddress remote) {
        this.id = id;
        this.service = service;
        this.handler = handler;
        this.local = local;
        this.remote = remote;
    }

    /** Runs the session on its own thread, named {@code threadName}: creation, then every chunk read, then the close. */
    final void start(IoConnectFuture connected, String threadName) {
        Thread t = new Thread(() -> run(connected), threadName);
        t.setDaemon(true);
        t.start();
    }

    private void run(IoConnectFuture connected) {
        boolean created;
        try {
            handler.sessionCreated(this);
            created = true;
        } catch (Throwable e) {
            connected.setException(e);
            close(true);
            created = false;
        }
        if (created) {
            connected.setSession(this);
        }
        deliverUntilClosed();
    }

    /**
     * On the session's thread: hands each chunk that arrives to {@link #deliver} until the session is closing or the
     * pipe ends, then makes sure the session closes. Called also when creation failed (the session already closing).
     */
    protected abstract void deliverUntilClosed();

    /** Queues one write, in order behind the others; fails it (or throws) when the session is closing. */
    protected abstract void send(PendingWrite write) throws IOException;

    /** Ends the pipe, once: at once, or after the writes already queued (as a socket's graceful close). */
    protected abstract void endTransport(boolean immediately);

    /** Hands one chunk to the SSH layer; what it throws goes to the handler's {@code exceptionCaught}. */
    protected final void deliver(byte[] chunk) {
        try {
            handler.messageReceived(this, new ByteArrayBuffer(chunk));
        } catch (Throwable e) {
            exceptionCaught(e);
        }
    }

    protected final void exceptionCaught(Throwable e) {
        try {
            handler.exceptionCaught(this, e);
        } catch (Throwable t) {
            log.debug("{}: exceptionCaught failed: {}", this, t.toString());
            close(true);
        }
    }

    /** Marks the session closing without ending the pipe: the pipe ended by itself. */
    protected final void markClosing() {
        closing.set(true);
    }

    /** Tells the SSH layer the session closed, once the pipe has ended; completes the close future. */
    protected final void sessionClosed() {
        try {
            handler.sessionClosed(this);
        } catch (Throwable e) {
            log.debug("{}: sessionClosed failed: {}", this, e.toString());
        } finally {
            closeFuture.setClosed();
        }
    }

    /** Caller holds {@link #lock}: whether the SSH layer has suspended reading. */
    protected final boolean readSuspended() {
        return readSuspended;
    }

    @Override
    public final IoWriteFuture writeBuffer(Buffer buffer) throws IOException {
        // copied now: the write may wait behind others, and MINA may reuse its buffer
        byte[] copy = new byte[buffer.available()];
        System.arraycopy(buffer.array(), buffer.rpos(), copy, 0, copy.length);
        PendingWrite f = new PendingWrite(copy);
        send(f);
        return f;
    }

    @Override
    public final CloseFuture close(boolean immediately) {
        if (closing.compareAndSet(false, true)) {
            endTransport(immediately);
        }
        return closeFuture;
    }

    @Override
    public final void shutdownOutputStream() throws IOException {
        // MINA calls this on forwarded sockets, never on an SSH transport: nothing shuts down half a pipe
        close(false);
    }

    @Override
    public final void suspendRead() {
        synchronized (lock) {
            readSuspended = true;
        }
    }

    @Override
    public final void resumeRead() {
        synchronized (lock) {
            readSuspended = false;
            lock.notifyAll();
        }
    }

    @Override
    public final long getId() {
        return id;
    }

    @Override
    public final SocketAddress getAcceptanceAddress() {
        return null;
    }

    @Override
    public final Object getAttribute(Object key) {
        return attributes.get(key);
    }

    @Override
    public final Object setAttribute(Object key, Object value) {
        return attributes.put(key, value);
    }

    @Override
    public final Object setAttributeIfAbsent(Object key, Object value) {
        return attributes.putIfAbsent(key, value);
    }

    @Override
    public final Object removeAttribute(Object key) {
        return attributes.remove(key);
    }

    @Override
    public final void addCloseFutureListener(SshFutureListener<CloseFuture> listener) {
        closeFuture.addListener(listener);
    }

    @Override
    public final void removeCloseFutureListener(SshFutureListener<CloseFuture> listener) {
        closeFuture.removeListener(listener);
    }

    @Override
    public final boolean isClosed() {
        return closeFuture.isClosed();
    }

    @Override
    public final boolean isClosing() {
        return closing.get();
    }

    @Override
    public final IoService getService() {
        return service;
    }

    @Override
    public final SocketAddress getRemoteAddress() {
        return remote;
    }

    @Override
    public final SocketAddress getLocalAddress() {
        return local;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + id + " -> " + remote + "]";
    }

    /** A queued write: its bytes (a copy) and, once done, its outcome ({@code Boolean.TRUE} or the exception). */
    protected static final class PendingWrite extends AbstractIoWriteFuture {
        private final byte[] bytes;

        PendingWrite(byte[] bytes) {
            super(bytes, null);
            this.bytes = bytes;
        }

        public byte[] bytes() {
            return bytes;
        }
    }
}
