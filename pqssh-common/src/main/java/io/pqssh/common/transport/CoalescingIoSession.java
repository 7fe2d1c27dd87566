package io.pqssh.common.transport;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.apache.sshd.common.future.CloseFuture;
import org.apache.sshd.common.io.AbstractIoWriteFuture;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.session.helpers.AbstractSession;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

/**
 * The {@link IoSession} MINA's SSH layer writes to when write coalescing is on. While the I/O handler is inside
 * {@code sessionCreated} or {@code messageReceived} for this session, the bytes of every {@link #writeBuffer} call
 * are collected and handed to the transport as one write when the handler call returns, so a flight (identification,
 * KEXINIT, KEX reply, NEWKEYS, ...) leaves as few TCP segments as its size allows instead of one per packet.
 * <p>
 * Ordering is the whole point of the locking here: MINA encodes packets with increasing sequence numbers in the
 * order it calls {@code writeBuffer}, so the transport must see the bytes in exactly that order. Any call made while
 * bytes are pending, from any thread, is queued behind them; only one thread at a time hands bytes to the transport
 * (the {@code writing} flag), and that call happens outside the lock, because NIO2 may run completion listeners, and
 * with them further MINA writes that take MINA's own locks, inline on the writing thread.
 * <p>
 * Coalescing stops for good at the first handler call that finds the SSH session authenticated or after
 * {@value #MAX_HANDLER_CALLS} handler calls, whichever is first; from then on (once nothing is pending) writes go to
 * the transport unchanged, so channel and SFTP traffic is untouched.
 */
public final class CoalescingIoSession extends ForwardingIoSession {
    /** Pending bytes above this are written at once, even inside a handler call (see docs/round-trips.md). */
    public static final int MAX_PENDING = 256 * 1024;
    /** Handler calls after which coalescing stops even if the session never authenticates. */
    public static final int MAX_HANDLER_CALLS = 64;

    private final Predicate<IoSession> authenticated;
    private final Object lock = new Object();

    // guarded by lock
    private byte[] pending = new byte[1024];
    private int pendingLength;
    private List<Part> parts = new ArrayList<>();
    private Thread holder;
    private boolean writing;
    private boolean flushNow;
    private boolean coalescingOver;
    private int handlerCalls;

    /** Set once coalescing is over and nothing is pending: writes then skip the lock. */
    private volatile boolean bypass;

    private final AtomicLong writesIn = new AtomicLong();
    private final AtomicLong writesOut = new AtomicLong();

    /** A session whose coalescing ends when MINA's SSH session attached to it is authenticated. */
    public CoalescingIoSession(IoSession delegate) {
        this(delegate, CoalescingIoSession::sshAuthenticated);
    }

    /** {@code authenticated} is asked at the start of every handler call until it says true once. */
    public CoalescingIoSession(IoSession delegate, Predicate<IoSession> authenticated) {
        super(delegate);
        this.authenticated = authenticated;
    }

    private static boolean sshAuthenticated(IoSession io) {
        AbstractSession s = AbstractSession.getSession(io, true);
        return s != null && s.isAuthenticated();
    }

    /** The coalescing session of a MINA SSH session's {@code getIoSession()}, or null if it is not one. */
    public static CoalescingIoSession of(IoSession s) {
        return s instanceof CoalescingIoSession c ? c : null;
    }

    /** {@code writeBuffer} calls MINA made while coalescing was still possible. */
    public long writesIn() {
        return writesIn.get();
    }

    /** Writes handed to the transport while coalescing was still possible. */
    public long writesOut() {
        return writesOut.get();
    }

    /** True once writes go straight to the transport. */
    public boolean passingThrough() {
        return bypass;
    }

    /**
     * Called by the handler before it passes a {@code sessionCreated}/{@code messageReceived} to MINA; returns
     * whether this call collects writes (hand the result to {@link #handlerExit}).
     */
    boolean handlerEnter() {
        boolean ask;
        synchronized (lock) {
            if (coalescingOver || holder != null) {
                // a second handler thread at once does not happen with NIO2; if it did, it just does not collect
                return false;
            }
            handlerCalls++;
            ask = handlerCalls <= MAX_HANDLER_CALLS;
        }
        // outside the lock: this reads MINA session state
        boolean collect = ask && !authenticated.test(this);
        boolean drain = false;
        synchronized (lock) {
            if (collect && !coalescingOver) {
                holder = Thread.currentThread();
                return true;
            }
            coalescingOver = true;
            if (pendingLength == 0 && !writing) {
                bypass = true;
            } else if (!writing) {
                writing = true;
                drain = true;
            }
        }
        if (drain) {
            drain();
        }
        return false;
    }

    /** Called by the handler when the call {@link #handlerEnter} was asked about returns (normally or not). */
    void handlerExit(boolean collected) {
        if (!collected) {
            return;
        }
        boolean drain = false;
        synchronized (lock) {
            holder = null;
            if (!writing && pendingLength > 0) {
                writing = true;
                drain = true;
            }
        }
        if (drain) {
            drain();
        }
    }

    /** The transport reported the connection closed: pending writes can no longer succeed. */
    void transportClosed() {
        List<Part> failed;
        synchronized (lock) {
            coalescingOver = true;
            flushNow = true;
            if (writing) {
                // the writing thread hands them to the (closed) transport, which fails them
                return;
            }
            failed = parts;
            parts = new ArrayList<>();
            pendingLength = 0;
            bypass = true;
        }
        ClosedChannelException e = new ClosedChannelException();
        for (Part p : failed) {
            p.setValue(e);
        }
    }

    @Override
    public IoWriteFuture writeBuffer(Buffer buffer) throws IOException {
        if (bypass) {
            return delegate().writeBuffer(buffer);
        }
        Part part = null;
        boolean direct = false;
        boolean drain = false;
        synchronized (lock) {
            if (bypass) {
                direct = true;
            } else {
                writesIn.incrementAndGet();
                boolean collecting = holder == Thread.currentThread();
                if (!collecting && pendingLength == 0 && !writing) {
                    writing = true;
                    direct = true;
                    drain = true;
                } else {
                    part = append(buffer);
                    if (!writing && (holder == null || flushNow || pendingLength >= MAX_PENDING)) {
                        writing = true;
                        drain = true;
                    }
                }
            }
        }
        if (direct && !drain) {
            return delegate().writeBuffer(buffer);
        }
        if (direct) {
            try {
                writesOut.incrementAndGet();
                return delegate().writeBuffer(buffer);
            } finally {
                drain();
            }
        }
        if (drain) {
            drain();
        }
        return part;
    }

    private Part append(Buffer buffer) {
        int n = buffer.available();
        if (pendingLength + n > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + n));
        }
        // copied now: MINA may reuse or change the buffer once writeBuffer has returned
        System.arraycopy(buffer.array(), buffer.rpos(), pending, pendingLength, n);
        pendingLength += n;
        Part p = new Part(this);
        parts.add(p);
        return p;
    }

    /** Runs on the one thread that set {@code writing}; writes batches until there is nothing it may write. */
    private void drain() {
        while (true) {
            byte[] bytes;
            List<Part> batch;
            synchronized (lock) {
                if (pendingLength == 0 || (holder != null && !flushNow && pendingLength < MAX_PENDING)) {
                    writing = false;
                    if (coalescingOver && pendingLength == 0) {
                        bypass = true;
                    }
                    return;
                }
                bytes = Arrays.copyOf(pending, pendingLength);
                pendingLength = 0;
                batch = parts;
                parts = new ArrayList<>();
            }
            writeBatch(bytes, batch);
        }
    }

    private void writeBatch(byte[] bytes, List<Part> batch) {
        IoWriteFuture out;
        try {
            writesOut.incrementAndGet();
            out = delegate().writeBuffer(new ByteArrayBuffer(bytes));
        } catch (IOException | RuntimeException e) {
            for (Part p : batch) {
                p.setValue(e);
            }
            return;
        }
        out.addListener(done -> {
            Object result;
            if (done.isWritten()) {
                result = Boolean.TRUE;
            } else {
                Throwable t = done.getException();
                result = t != null ? t : new IOException("coalesced write did not complete");
            }
            for (Part p : batch) {
                p.setValue(result);
            }
        });
    }

    /** The future of one {@code writeBuffer} call that became part of a combined write. */
    static final class Part extends AbstractIoWriteFuture {
        Part(Object id) {
            super(id, null);
        }
    }

    @Override
    public CloseFuture close(boolean immediately) {
        // a graceful close must not overtake pending bytes (a DISCONNECT written just before it, for example)
        boolean drain = false;
        synchronized (lock) {
            coalescingOver = true;
            flushNow = true;
            if (!writing && pendingLength > 0) {
                writing = true;
                drain = true;
            } else if (!writing) {
                bypass = true;
            }
        }
        if (drain) {
            drain();
        }
        return delegate().close(immediately);
    }

    @Override
    public void shutdownOutputStream() throws IOException {
        // pending bytes belong before the FIN
        boolean drain = false;
        synchronized (lock) {
            flushNow = true;
            if (!writing && pendingLength > 0) {
                writing = true;
                drain = true;
            }
        }
        if (drain) {
            drain();
        }
        delegate().shutdownOutputStream();
    }

    @Override
    public String toString() {
        return "Coalescing[" + delegate() + "]";
    }
}
