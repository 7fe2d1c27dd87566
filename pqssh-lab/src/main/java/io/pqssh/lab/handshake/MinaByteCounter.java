package io.pqssh.lab.handshake;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.sshd.common.Factory;
import org.apache.sshd.common.FactoryManager;
import org.apache.sshd.common.future.CloseFuture;
import org.apache.sshd.common.future.SshFutureListener;
import org.apache.sshd.common.io.IoAcceptor;
import org.apache.sshd.common.io.IoConnector;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoService;
import org.apache.sshd.common.io.IoServiceEventListener;
import org.apache.sshd.common.io.IoServiceFactory;
import org.apache.sshd.common.io.IoServiceFactoryFactory;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.io.nio2.Nio2ServiceFactoryFactory;
import org.apache.sshd.common.util.Readable;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.threads.CloseableExecutorService;

/**
 * MINA-side byte counts for the lab's children: an {@link IoServiceFactoryFactory} around MINA's NIO2 transport
 * that hands the SSH layer a counting {@link IoSession}. Every byte MINA writes to a connection goes through
 * {@link IoSession#writeBuffer} (counted when the write completes) and every byte it reads arrives through
 * {@link IoHandler#messageReceived} (counted before the SSH layer consumes it), so the two counters are the TCP
 * payload bytes this process wrote and read, identification line included. Installed with {@link #install()}
 * (MINA's public hook: the system property named after {@link IoServiceFactoryFactory}, read when the first
 * client or server is built).
 */
public final class MinaByteCounter implements IoServiceFactoryFactory {
    private static final Object KEY = new Object();
    private static final Map<Integer, long[]> CLOSED_BY_REMOTE_PORT = new ConcurrentHashMap<>();

    private final Nio2ServiceFactoryFactory delegate = new Nio2ServiceFactoryFactory();

    /** Public no-argument constructor: MINA instantiates the class by name. */
    public MinaByteCounter() {
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
    public IoServiceFactory create(FactoryManager manager) {
        IoServiceFactory f = delegate.create(manager);
        return new CountingFactory(f);
    }

    @Override
    public void setExecutorServiceFactory(Factory<CloseableExecutorService> factory) {
        delegate.setExecutorServiceFactory(factory);
    }

    /**
     * The counting session of a MINA SSH session's {@code getIoSession()}, or null if it is not one. pqssh's write
     * coalescing sits on top of this transport, so its session is looked through.
     */
    public static Counted of(IoSession s) {
        IoSession under = s instanceof io.pqssh.mina.transport.CoalescingIoSession w ? w.delegate() : s;
        return under instanceof Counted c ? c : null;
    }

    /** An IoSession that counts what passes through it; everything else is the NIO2 session's. */
    public static final class Counted implements IoSession {
        private final IoSession io;
        private final AtomicLong read = new AtomicLong();
        private final AtomicLong written = new AtomicLong();
        private final CountDownLatch closed = new CountDownLatch(1);

        Counted(IoSession io) {
            this.io = io;
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
            IoWriteFuture f = io.writeBuffer(buffer);
            f.addListener(done -> {
                if (done.isWritten()) {
                    written.addAndGet(n);
                }
            });
            return f;
        }

        @Override
        public long getId() {
            return io.getId();
        }

        @Override
        public SocketAddress getAcceptanceAddress() {
            return io.getAcceptanceAddress();
        }

        @Override
        public Object getAttribute(Object key) {
            return io.getAttribute(key);
        }

        @Override
        public Object setAttribute(Object key, Object value) {
            return io.setAttribute(key, value);
        }

        @Override
        public Object setAttributeIfAbsent(Object key, Object value) {
            return io.setAttributeIfAbsent(key, value);
        }

        @Override
        public Object removeAttribute(Object key) {
            return io.removeAttribute(key);
        }

        @Override
        public CloseFuture close(boolean immediately) {
            return io.close(immediately);
        }

        @Override
        public void addCloseFutureListener(SshFutureListener<CloseFuture> listener) {
            io.addCloseFutureListener(listener);
        }

        @Override
        public void removeCloseFutureListener(SshFutureListener<CloseFuture> listener) {
            io.removeCloseFutureListener(listener);
        }

        @Override
        public boolean isClosed() {
            return io.isClosed();
        }

        @Override
        public boolean isClosing() {
            return io.isClosing();
        }

        @Override
        public IoService getService() {
            return io.getService();
        }

        @Override
        public void shutdownOutputStream() throws IOException {
            io.shutdownOutputStream();
        }

        @Override
        public void suspendRead() {
            io.suspendRead();
        }

        @Override
        public void resumeRead() {
            io.resumeRead();
        }

        @Override
        public SocketAddress getRemoteAddress() {
            return io.getRemoteAddress();
        }

        @Override
        public SocketAddress getLocalAddress() {
            return io.getLocalAddress();
        }

        @Override
        public String toString() {
            return "Counted[" + io + ", read " + read + ", written " + written + "]";
        }
    }

    private static Counted counted(IoSession real) {
        Object c = real.getAttribute(KEY);
        if (c == null) {
            Counted fresh = new Counted(real);
            Object prev = real.setAttributeIfAbsent(KEY, fresh);
            c = prev != null ? prev : fresh;
        }
        return (Counted) c;
    }

    /** Hands the SSH layer the counting session in every callback, and counts reads. */
    private record CountingHandler(IoHandler handler) implements IoHandler {
        @Override
        public void sessionCreated(IoSession session) throws Exception {
            handler.sessionCreated(counted(session));
        }

        @Override
        public void sessionClosed(IoSession session) throws Exception {
            Counted c = counted(session);
            try {
                handler.sessionClosed(c);
            } finally {
                if (session.getRemoteAddress() instanceof InetSocketAddress a) {
                    CLOSED_BY_REMOTE_PORT.put(a.getPort(), new long[] {c.bytesRead(), c.bytesWritten()});
                }
                c.closed.countDown();
            }
        }

        @Override
        public void exceptionCaught(IoSession session, Throwable cause) throws Exception {
            handler.exceptionCaught(counted(session), cause);
        }

        @Override
        public void messageReceived(IoSession session, Readable message) throws Exception {
            Counted c = counted(session);
            c.read.addAndGet(message.available());
            handler.messageReceived(c, message);
        }
    }

    private record CountingFactory(IoServiceFactory f) implements IoServiceFactory {
        @Override
        public IoConnector createConnector(IoHandler handler) {
            return f.createConnector(new CountingHandler(handler));
        }

        @Override
        public IoAcceptor createAcceptor(IoHandler handler) {
            return f.createAcceptor(new CountingHandler(handler));
        }

        @Override
        public IoServiceEventListener getIoServiceEventListener() {
            return f.getIoServiceEventListener();
        }

        @Override
        public void setIoServiceEventListener(IoServiceEventListener listener) {
            f.setIoServiceEventListener(listener);
        }

        @Override
        public CloseFuture close(boolean immediately) {
            return f.close(immediately);
        }

        @Override
        public void addCloseFutureListener(SshFutureListener<CloseFuture> listener) {
            f.addCloseFutureListener(listener);
        }

        @Override
        public void removeCloseFutureListener(SshFutureListener<CloseFuture> listener) {
            f.removeCloseFutureListener(listener);
        }

        @Override
        public boolean isClosed() {
            return f.isClosed();
        }

        @Override
        public boolean isClosing() {
            return f.isClosing();
        }
    }
}
