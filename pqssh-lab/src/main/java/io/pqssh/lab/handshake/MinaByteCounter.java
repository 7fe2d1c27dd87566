package io.pqssh.lab.handshake;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoServiceFactoryFactory;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.io.nio2.Nio2ServiceFactoryFactory;
import org.apache.sshd.common.util.Readable;
import org.apache.sshd.common.util.buffer.Buffer;

import io.pqssh.common.transport.ForwardingIoSession;
import io.pqssh.common.transport.SessionWrappingIoHandler;
import io.pqssh.common.transport.WrappingIoServiceFactoryFactory;

/**
 * MINA-side byte counts for the lab's children: an {@link IoServiceFactoryFactory} around MINA's NIO2 transport
 * that hands the SSH layer a counting {@link IoSession}. Every byte MINA writes to a connection goes through
 * {@link IoSession#writeBuffer} (counted when the write completes) and every byte it reads arrives through
 * {@link IoHandler#messageReceived} (counted before the SSH layer consumes it), so the two counters are the TCP
 * payload bytes this process wrote and read, identification line included. Installed with {@link #install()}
 * (MINA's public hook: the system property named after {@link IoServiceFactoryFactory}, read when the first
 * client or server is built).
 */
public final class MinaByteCounter extends WrappingIoServiceFactoryFactory {
    private static final Map<Integer, long[]> CLOSED_BY_REMOTE_PORT = new ConcurrentHashMap<>();

    /** Public no-argument constructor: MINA instantiates the class by name. */
    public MinaByteCounter() {
        super(new Nio2ServiceFactoryFactory());
    }

    /** Makes every MINA client and server created later in this JVM use the counting transport. */
    public static void install() {
        System.setProperty(IoServiceFactoryFactory.class.getName(), MinaByteCounter.class.getName());
    }

    /**
     * Waits (bounded) until the connection whose peer used {@code remotePort} has closed, and returns
     * {@code {read, written}} of this side, or null if none closed in time. Each result is handed out once.
     */
    public static long[] takeClosed(int remotePort, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            long[] r = CLOSED_BY_REMOTE_PORT.remove(remotePort);
            if (r != null || System.nanoTime() > deadline) {
                return r;
            }
            Thread.sleep(10);
        }
    }

    @Override
    protected IoHandler wrap(IoHandler handler) {
        return new CountingHandler(handler);
    }

    /**
     * The counting session of a MINA SSH session's {@code getIoSession()}, or null if it is not one. pqssh's write
     * coalescing sits on top of this transport, so wrappers above the counter are looked through.
     */
    public static Counted of(IoSession s) {
        IoSession under = s;
        while (!(under instanceof Counted) && under instanceof ForwardingIoSession f) {
            under = f.delegate();
        }
        return under instanceof Counted c ? c : null;
    }

    /** An IoSession that counts what passes through it; everything else is the NIO2 session's. */
    public static final class Counted extends ForwardingIoSession {
        private final AtomicLong read = new AtomicLong();
        private final AtomicLong written = new AtomicLong();
        private final CountDownLatch closed = new CountDownLatch(1);

        Counted(IoSession io) {
            super(io);
        }

        public long bytesRead() {
            return read.get();
        }

        public long bytesWritten() {
            return written.get();
        }

        /** Waits until the transport has reported the connection closed; false on timeout. */
        public boolean awaitClosed(long timeoutMs) throws InterruptedException {
            return closed.await(timeoutMs, TimeUnit.MILLISECONDS);
        }

        @Override
        public IoWriteFuture writeBuffer(Buffer buffer) throws IOException {
            int n = buffer.available();
            IoWriteFuture f = delegate().writeBuffer(buffer);
            f.addListener(done -> {
                if (done.isWritten()) {
                    written.addAndGet(n);
                }
            });
            return f;
        }

        @Override
        public String toString() {
            return "Counted[" + delegate() + ", read " + read + ", written " + written + "]";
        }
    }

    /** Hands the SSH layer the counting session in every callback, and counts reads. */
    private static final class CountingHandler extends SessionWrappingIoHandler<Counted> {
        CountingHandler(IoHandler handler) {
            super(handler, Counted::new);
        }

        @Override
        public void sessionClosed(IoSession session) throws Exception {
            Counted c = wrapped(session);
            try {
                handler().sessionClosed(c);
            } finally {
                if (session.getRemoteAddress() instanceof InetSocketAddress a) {
                    CLOSED_BY_REMOTE_PORT.put(a.getPort(), new long[] {c.bytesRead(), c.bytesWritten()});
                }
                c.closed.countDown();
            }
        }

        @Override
        public void messageReceived(IoSession session, Readable message) throws Exception {
            Counted c = wrapped(session);
            c.read.addAndGet(message.available());
            handler().messageReceived(c, message);
        }
    }
}
