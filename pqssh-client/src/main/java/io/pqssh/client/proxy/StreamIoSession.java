package io.pqssh.client.proxy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
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
 * A MINA transport session over a pair of blocking byte streams: a {@code ProxyCommand}'s stdout and stdin, or the
 * socket a {@code ProxyUseFdpass} command passed back. One thread reads and hands each chunk to the SSH layer in
 * order (as NIO2 does with a socket); one thread writes, in the order MINA queued the writes, so that no MINA thread
 * ever blocks on a full pipe. MINA's session timeouts (authentication, idle, keepalive) live in the SSH session above
 * and work unchanged; the "connect" completes once the streams exist.
 */
final class StreamIoSession implements IoSession {
    private static final Logger LOG = LoggerFactory.getLogger(StreamIoSession.class);
    /** Far from NIO2's counter and from the jump sessions', so an id names one session in logs. */
    private static final AtomicLong IDS = new AtomicLong(2L << 40);
    private static final int CHUNK = 32 * 1024;

    private final long id = IDS.incrementAndGet();
    private final IoService service;
    private final IoHandler handler;
    private final InputStream in;
    private final OutputStream out;
    private final ProxyTransport.Endpoint endpoint;
    private final SocketAddress local;
    private final SocketAddress remote;
    private final Map<Object, Object> attributes = new ConcurrentHashMap<>();
    private final DefaultCloseFuture closeFuture;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicBoolean closedOnce = new AtomicBoolean();
    private final ExecutorService writer;

    private final Object readLock = new Object();
    private boolean readSuspended;

    StreamIoSession(IoService service, IoHandler handler, InputStream in, OutputStream out, ProxyTransport.Endpoint endpoint,
            SocketAddress local, SocketAddress remote) {
        this.service = service;
        this.handler = handler;
        this.in = in;
        this.out = out;
        this.endpoint = endpoint;
        this.local = local;
        this.remote = remote;
        this.closeFuture = new DefaultCloseFuture(toString(), null);
        this.writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "pqssh-proxy-write-" + id);
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs the session on its own reader thread: creation, then every chunk read, then the close. */
    void start(IoConnectFuture connected) {
        Thread t = new Thread(() -> run(connected), "pqssh-proxy-read-" + id);
        t.setDaemon(true);
        t.start();
    }

    private void run(IoConnectFuture connected) {
        try {
            handler.sessionCreated(this);
        } catch (Throwable e) {
            connected.setException(e);
            close(true);
            return;
        }
        connected.setSession(this);
        byte[] buf = new byte[CHUNK];
        while (!closing.get()) {
            if (!awaitReadable()) {
                break;
            }
            int n;
            try {
                n = in.read(buf);
            } catch (IOException e) {
                if (!closing.get()) {
                    LOG.debug("{}: read failed: {}", this, e.toString());
                }
                break;
            }
            if (n < 0) {
                break; // the command closed its stdout (or exited): as NIO2 on a socket's EOF
            }
            if (n == 0) {
                continue;
            }
            try {
                // a fresh buffer per chunk: the SSH layer may keep a reference while it decodes
                handler.messageReceived(this, new ByteArrayBuffer(java.util.Arrays.copyOf(buf, n)));
            } catch (Throwable e) {
                exceptionCaught(e);
            }
        }
        close(true);
    }

    /** Waits while the SSH layer has suspended reading; false when the session closes meanwhile. */
    private boolean awaitReadable() {
        synchronized (readLock) {
            while (readSuspended && !closing.get()) {
                try {
                    readLock.wait(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return !closing.get();
    }

    private void exceptionCaught(Throwable e) {
        try {
            handler.exceptionCaught(this, e);
        } catch (Throwable t) {
            LOG.debug("{}: exceptionCaught failed: {}", this, t.toString());
            close(true);
        }
    }

    @Override
    public IoWriteFuture writeBuffer(Buffer buffer) throws IOException {
        // copied now: the write waits behind others, and MINA may reuse its buffer
        byte[] copy = new byte[buffer.available()];
        System.arraycopy(buffer.array(), buffer.rpos(), copy, 0, copy.length);
        WriteFuture f = new WriteFuture(copy);
        // a write after the end fails its future instead of throwing: a proxy command that exits at once must end
        // as "connection closed" seen by the SSH layer, not as an exception out of the session's construction
        if (closing.get()) {
            f.setValue(new EOFException("closed: " + this));
            return f;
        }
        try {
            writer.execute(() -> write(f));
        } catch (RejectedExecutionException e) {
            f.setValue(new EOFException("closed: " + this));
        }
        return f;
    }

    private void write(WriteFuture f) {
        if (closing.get()) {
            f.setValue(new EOFException("closed: " + this));
            return;
        }
        try {
            out.write(f.bytes);
            out.flush();
            f.setValue(Boolean.TRUE);
        } catch (IOException e) {
            f.setValue(e);
            close(true);
        }
    }

    @Override
    public CloseFuture close(boolean immediately) {
        if (closing.compareAndSet(false, true)) {
            if (immediately) {
                finish();
            } else {
                // after the writes already queued, as a socket's graceful close
                try {
                    writer.execute(this::finish);
                } catch (RejectedExecutionException e) {
                    finish();
                }
            }
            synchronized (readLock) {
                readLock.notifyAll();
            }
        }
        return closeFuture;
    }

    /** Ends the transport underneath and tells the SSH layer, once; never waits for the reader thread. */
    private void finish() {
        if (!closedOnce.compareAndSet(false, true)) {
            return;
        }
        writer.shutdownNow();
        try {
            out.close();
        } catch (IOException e) {
            LOG.debug("{}: closing output: {}", this, e.toString());
        }
        endpoint.close();
        try {
            handler.sessionClosed(this);
        } catch (Throwable e) {
            LOG.debug("{}: sessionClosed failed: {}", this, e.toString());
        } finally {
            closeFuture.setClosed();
        }
    }

    @Override
    public void shutdownOutputStream() throws IOException {
        // MINA calls this on forwarded sockets, never on an SSH transport
        close(false);
    }

    @Override
    public void suspendRead() {
        synchronized (readLock) {
            readSuspended = true;
        }
    }

    @Override
    public void resumeRead() {
        synchronized (readLock) {
            readSuspended = false;
            readLock.notifyAll();
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
        return "StreamIoSession[" + id + " -> " + remote + "]";
    }

    /** A write's outcome: {@code Boolean.TRUE} or the exception. */
    private static final class WriteFuture extends AbstractIoWriteFuture {
        final byte[] bytes;

        WriteFuture(byte[] bytes) {
            super(bytes, null);
            this.bytes = bytes;
        }
    }
}
