package io.pqssh.client.jump;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

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
 * A MINA transport session carried by a {@link TunnelChannel}, for the SSH session to the next hop. Writes are
 * queued and go out one after the other through the channel's asynchronous stream (which waits for the peer's
 * window without blocking anybody). Reads are handed to the SSH layer by one thread of this session, in order, as
 * NIO2 does with a socket: the previous hop's I/O thread only queues bytes, so a host key prompt or a slow handler
 * of the next hop never stalls the hop underneath.
 */
final class ChannelIoSession implements IoSession {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelIoSession.class);
    /** Far from NIO2's counter, so an id names one session in logs. */
    private static final AtomicLong IDS = new AtomicLong(1L << 40);
    private static final Object CLOSED = new Object();
    private static final Object EOF = new Object();

    private final long id = IDS.incrementAndGet();
    private final IoService service;
    private final IoHandler handler;
    private final TunnelChannel channel;
    private final SocketAddress local;
    private final SocketAddress remote;
    private final Map<Object, Object> attributes = new ConcurrentHashMap<>();
    private final DefaultCloseFuture closeFuture;
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean discardInput;

    private final Object lock = new Object();
    /** Guarded by lock: received chunks (byte[]), then EOF and CLOSED markers. */
    private final ArrayDeque<Object> incoming = new ArrayDeque<>();
    private boolean readSuspended;
    /** Guarded by lock: writes not yet taken by the channel, the first one possibly in progress. */
    private final ArrayDeque<WriteFuture> writes = new ArrayDeque<>();
    private boolean writing;
    private boolean closeWhenWritten;

    ChannelIoSession(IoService service, IoHandler handler, TunnelChannel channel, SocketAddress local,
            SocketAddress remote) {
        this.service = service;
        this.handler = handler;
        this.channel = channel;
        this.local = local;
        this.remote = remote;
        this.closeFuture = new DefaultCloseFuture(toString(), null);
        channel.sink(this::received);
        channel.addCloseFutureListener(f -> enqueue(CLOSED));
    }

    /** Runs the session on its own thread: creation, then every received chunk, then the close. */
    void start(IoConnectFuture connected) {
        Thread t = new Thread(() -> run(connected), "pqssh-jump-" + id);
        t.setDaemon(true);
        t.start();
    }

    private void run(IoConnectFuture connected) {
        try {
            handler.sessionCreated(this);
        } catch (Throwable e) {
            connected.setException(e);
            close(true);
            drainUntilClosed();
            return;
        }
        connected.setSession(this);
        drainUntilClosed();
    }

    private void drainUntilClosed() {
        while (true) {
            Object next;
            synchronized (lock) {
                while (incoming.isEmpty() || (readSuspended && incoming.peek() != CLOSED && !discardInput)) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                next = incoming.poll();
            }
            if (next == CLOSED) {
                closed();
                return;
            }
            if (next == EOF) {
                // the next hop closed its end of the connection: as NIO2 on a socket's EOF
                close(true);
                continue;
            }
            byte[] chunk = (byte[]) next;
            if (!discardInput) {
                try {
                    handler.messageReceived(this, new ByteArrayBuffer(chunk));
                } catch (Throwable e) {
                    exceptionCaught(e);
                }
            }
            try {
                channel.consumed(chunk.length);
            } catch (IOException e) {
                exceptionCaught(e);
            }
        }
    }

    private void received(byte[] chunk) {
        enqueue(chunk == null ? EOF : chunk);
    }

    private void enqueue(Object o) {
        synchronized (lock) {
            incoming.add(o);
            lock.notifyAll();
        }
    }

    private void exceptionCaught(Throwable e) {
        try {
            handler.exceptionCaught(this, e);
        } catch (Throwable t) {
            LOG.debug("{}: exceptionCaught failed: {}", this, t.toString());
            close(true);
        }
    }

    private void closed() {
        closing.set(true);
        failPendingWrites(new EOFException("channel closed: " + this));
        try {
            handler.sessionClosed(this);
        } catch (Throwable e) {
            LOG.debug("{}: sessionClosed failed: {}", this, e.toString());
        } finally {
            closeFuture.setClosed();
        }
    }

    @Override
    public IoWriteFuture writeBuffer(Buffer buffer) throws IOException {
        // copied now: the write may wait behind others for the channel's window, and MINA may reuse its buffer
        byte[] copy = new byte[buffer.available()];
        System.arraycopy(buffer.array(), buffer.rpos(), copy, 0, copy.length);
        WriteFuture f = new WriteFuture(new ByteArrayBuffer(copy));
        synchronized (lock) {
            if (closing.get()) {
                throw new EOFException("closing: " + this);
            }
            writes.add(f);
            if (writing) {
                return f;
            }
            writing = true;
        }
        drainWrites();
        return f;
    }

    /** Hands queued writes to the channel one at a time (its stream takes one write at a time). */
    private void drainWrites() {
        while (true) {
            WriteFuture f;
            boolean closeNow = false;
            synchronized (lock) {
                f = writes.peek();
                if (f == null) {
                    writing = false;
                    closeNow = closeWhenWritten;
                }
            }
            if (f == null) {
                if (closeNow) {
                    channel.close(false);
                }
                return;
            }
            IoWriteFuture w;
            try {
                w = channel.getAsyncIn().writeBuffer(f.buffer);
            } catch (IOException | RuntimeException e) {
                failPendingWrites(e);
                close(true);
                return;
            }
            if (!w.isDone()) {
                w.addListener(done -> {
                    if (written(f, done)) {
                        drainWrites();
                    }
                });
                return;
            }
            if (!written(f, w)) {
                return;
            }
        }
    }

    private boolean written(WriteFuture f, IoWriteFuture done) {
        synchronized (lock) {
            writes.remove(f);
        }
        Throwable t = done.getException();
        if (t != null) {
            f.setValue(t);
            failPendingWrites(t);
            close(true);
            return false;
        }
        f.setValue(Boolean.TRUE);
        return true;
    }

    private void failPendingWrites(Throwable t) {
        ArrayDeque<WriteFuture> failed;
        synchronized (lock) {
            failed = new ArrayDeque<>(writes);
            writes.clear();
            writing = false;
        }
        for (WriteFuture f : failed) {
            f.setValue(t);
        }
    }

    @Override
    public CloseFuture close(boolean immediately) {
        if (closing.compareAndSet(false, true)) {
            if (immediately) {
                discardInput = true;
                channel.close(true);
            } else {
                boolean now;
                synchronized (lock) {
                    now = !writing;
                    closeWhenWritten = !now;
                }
                if (now) {
                    channel.close(false);
                }
            }
        }
        return closeFuture;
    }

    @Override
    public void shutdownOutputStream() throws IOException {
        // MINA calls this on a forwarded socket, never on an SSH transport: nothing shuts down half a tunnel
        close(false);
    }

    @Override
    public void suspendRead() {
        synchronized (lock) {
            readSuspended = true;
        }
    }

    @Override
    public void resumeRead() {
        synchronized (lock) {
            readSuspended = false;
            lock.notifyAll();
        }
    }

    @Override
    public long getId() {
        return id;
    }

    @Override
    public SocketAddress getAcceptanceAddress() {
        return null;
    }

    @Override
    public Object getAttribute(Object key) {
        return attributes.get(key);
    }

    @Override
    public Object setAttribute(Object key, Object value) {
        return attributes.put(key, value);
    }

    @Override
    public Object setAttributeIfAbsent(Object key, Object value) {
        return attributes.putIfAbsent(key, value);
    }

    @Override
    public Object removeAttribute(Object key) {
        return attributes.remove(key);
    }

    @Override
    public void addCloseFutureListener(SshFutureListener<CloseFuture> listener) {
        closeFuture.addListener(listener);
    }

    @Override
    public void removeCloseFutureListener(SshFutureListener<CloseFuture> listener) {
        closeFuture.removeListener(listener);
    }

    @Override
    public boolean isClosed() {
        return closeFuture.isClosed();
    }

    @Override
    public boolean isClosing() {
        return closing.get();
    }

    @Override
    public IoService getService() {
        return service;
    }

    @Override
    public SocketAddress getRemoteAddress() {
        return remote;
    }

    @Override
    public SocketAddress getLocalAddress() {
        return local;
    }

    @Override
    public String toString() {
        return "ChannelIoSession[" + id + " -> " + remote + " via " + channel + "]";
    }

    /** A write's outcome: {@code Boolean.TRUE} or the exception. */
    private static final class WriteFuture extends AbstractIoWriteFuture {
        final Buffer buffer;

        WriteFuture(Buffer buffer) {
            super(buffer, null);
            this.buffer = buffer;
        }
    }
}
