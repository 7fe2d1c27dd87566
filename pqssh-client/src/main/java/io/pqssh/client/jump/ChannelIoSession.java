package io.pqssh.client.jump;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoService;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.client.transport.PipeIoSession;

/**
 * A MINA transport session carried by a {@link TunnelChannel}, for the SSH session to the next hop. Writes are
 * queued and go out one after the other through the channel's asynchronous stream (which waits for the peer's
 * window without blocking anybody). Reads are handed to the SSH layer by the session's thread: the previous hop's I/O
 * thread only queues bytes, so a host key prompt or a slow handler of the next hop never stalls the hop underneath.
 */
final class ChannelIoSession extends PipeIoSession {
    /** Far from NIO2's counter, so an id names one session in logs. */
    private static final AtomicLong IDS = new AtomicLong(1L << 40);
    private static final Object CLOSED = new Object();
    private static final Object EOF = new Object();

    private final TunnelChannel channel;
    private volatile boolean discardInput;

    /** Guarded by lock: received chunks (byte[]), then EOF and CLOSED markers. */
    private final ArrayDeque<Object> incoming = new ArrayDeque<>();
    /** Guarded by lock: writes not yet taken by the channel, the first one possibly in progress. */
    private final ArrayDeque<PendingWrite> writes = new ArrayDeque<>();
    private boolean writing;
    private boolean closeWhenWritten;

    ChannelIoSession(IoService service, IoHandler handler, TunnelChannel channel, SocketAddress local,
            SocketAddress remote) {
        super(IDS.incrementAndGet(), service, handler, local, remote);
        this.channel = channel;
        channel.sink(this::received);
        channel.addCloseFutureListener(f -> enqueue(CLOSED));
    }

    @Override
    protected void deliverUntilClosed() {
        while (true) {
            Object next;
            synchronized (lock) {
                while (incoming.isEmpty() || (readSuspended() && incoming.peek() != CLOSED && !discardInput)) {
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
                deliver(chunk);
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

    private void closed() {
        markClosing();
        failPendingWrites(new EOFException("channel closed: " + this));
        sessionClosed();
    }

    @Override
    protected void send(PendingWrite f) throws IOException {
        synchronized (lock) {
            if (isClosing()) {
                throw new EOFException("closing: " + this);
            }
            writes.add(f);
            if (writing) {
                return;
            }
            writing = true;
        }
        drainWrites();
    }

    /** Hands queued writes to the channel one at a time (its stream takes one write at a time). */
    private void drainWrites() {
        while (true) {
            PendingWrite f;
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
                w = channel.getAsyncIn().writeBuffer(new ByteArrayBuffer(f.bytes()));
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

    private boolean written(PendingWrite f, IoWriteFuture done) {
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
        ArrayDeque<PendingWrite> failed;
        synchronized (lock) {
            failed = new ArrayDeque<>(writes);
            writes.clear();
            writing = false;
        }
        for (PendingWrite f : failed) {
            f.setValue(t);
        }
    }

    @Override
    protected void endTransport(boolean immediately) {
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

    @Override
    public String toString() {
        return "ChannelIoSession[" + getId() + " -> " + getRemoteAddress() + " via " + channel + "]";
    }
}
