package io.pqssh.client.proxy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoService;

import io.pqssh.client.transport.PipeIoSession;

/**
 * A MINA transport session over a pair of blocking byte streams: a {@code ProxyCommand}'s stdout and stdin, or the
 * socket a {@code ProxyUseFdpass} command passed back. The session's thread reads; one thread writes, in the order
 * MINA queued the writes, so that no MINA thread ever blocks on a full pipe. MINA's session timeouts
 * (authentication, idle, keepalive) live in the SSH session above and work unchanged; the "connect" completes once
 * the streams exist.
 */
final class StreamIoSession extends PipeIoSession {
    /** Far from NIO2's counter and from the jump sessions', so an id names one session in logs. */
    private static final AtomicLong IDS = new AtomicLong(2L << 40);
    private static final int CHUNK = 32 * 1024;

    private final InputStream in;
    private final OutputStream out;
    private final ProxyTransport.Endpoint endpoint;
    private final AtomicBoolean closedOnce = new AtomicBoolean();
    private final ExecutorService writer;

    StreamIoSession(IoService service, IoHandler handler, InputStream in, OutputStream out,
            ProxyTransport.Endpoint endpoint, SocketAddress local, SocketAddress remote) {
        super(IDS.incrementAndGet(), service, handler, local, remote);
        this.in = in;
        this.out = out;
        this.endpoint = endpoint;
        this.writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "pqssh-proxy-write-" + getId());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    protected void deliverUntilClosed() {
        byte[] buf = new byte[CHUNK];
        while (!isClosing()) {
            if (!awaitReadable()) {
                break;
            }
            int n;
            try {
                n = in.read(buf);
            } catch (IOException e) {
                if (!isClosing()) {
                    log.debug("{}: read failed: {}", this, e.toString());
                }
                break;
            }
            if (n < 0) {
                break; // the command closed its stdout (or exited): as NIO2 on a socket's EOF
            }
            if (n == 0) {
                continue;
            }
            // a fresh buffer per chunk: the SSH layer may keep a reference while it decodes
            deliver(Arrays.copyOf(buf, n));
        }
        close(true);
    }

    /** Waits while the SSH layer has suspended reading; false when the session closes meanwhile. */
    private boolean awaitReadable() {
        synchronized (lock) {
            while (readSuspended() && !isClosing()) {
                try {
                    lock.wait(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return !isClosing();
    }

    @Override
    protected void send(PendingWrite f) {
        // a write after the end fails its future instead of throwing: a proxy command that exits at once must end
        // as "connection closed" seen by the SSH layer, not as an exception out of the session's construction
        if (isClosing()) {
            f.setValue(new EOFException("closed: " + this));
            return;
        }
        try {
            writer.execute(() -> write(f));
        } catch (RejectedExecutionException e) {
            f.setValue(new EOFException("closed: " + this));
        }
    }

    private void write(PendingWrite f) {
        if (isClosing()) {
            f.setValue(new EOFException("closed: " + this));
            return;
        }
        try {
            out.write(f.bytes());
            out.flush();
            f.setValue(Boolean.TRUE);
        } catch (IOException e) {
            f.setValue(e);
            close(true);
        }
    }

    @Override
    protected void endTransport(boolean immediately) {
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
        synchronized (lock) {
            lock.notifyAll();
        }
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
            log.debug("{}: closing output: {}", this, e.toString());
        }
        endpoint.close();
        sessionClosed();
    }
}
