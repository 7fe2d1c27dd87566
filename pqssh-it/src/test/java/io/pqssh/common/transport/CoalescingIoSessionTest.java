package io.pqssh.common.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.sshd.common.future.CloseFuture;
import org.apache.sshd.common.future.DefaultCloseFuture;
import org.apache.sshd.common.future.SshFutureListener;
import org.apache.sshd.common.io.AbstractIoWriteFuture;
import org.apache.sshd.common.io.IoService;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.Test;

/** The coalescing session against a fake transport that records every write it is handed. */
class CoalescingIoSessionTest {

    /** A transport that records writes; futures complete when the test says so (or at once). */
    static final class FakeTransport implements IoSession {
        final List<byte[]> writes = new ArrayList<>();
        final List<Done> futures = new ArrayList<>();
        final List<String> events = new ArrayList<>();
        volatile boolean completeAtOnce;
        volatile IOException throwNext;
        final Map attrs = new Map();

        static final class Done extends AbstractIoWriteFuture {
            Done() {
                super("fake", null);
            }
        }

        static final class Map extends ConcurrentHashMap<Object, Object> {
            private static final long serialVersionUID = 1L;
        }

        @Override
        public synchronized IoWriteFuture writeBuffer(Buffer buffer) throws IOException {
            IOException t = throwNext;
            if (t != null) {
                throwNext = null;
                throw t;
            }
            byte[] b = new byte[buffer.available()];
            System.arraycopy(buffer.array(), buffer.rpos(), b, 0, b.length);
            writes.add(b);
            events.add("write " + b.length);
            Done d = new Done();
            futures.add(d);
            if (completeAtOnce) {
                d.setValue(Boolean.TRUE);
            }
            return d;
        }

        synchronized int writeCount() {
            return writes.size();
        }

        synchronized byte[] all() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            writes.forEach(out::writeBytes);
            return out.toByteArray();
        }

        @Override
        public long getId() {
            return 1;
        }

        @Override
        public SocketAddress getAcceptanceAddress() {
            return null;
        }

        @Override
        public Object getAttribute(Object key) {
            return attrs.get(key);
        }

        @Override
        public Object setAttribute(Object key, Object value) {
            return attrs.put(key, value);
        }

        @Override
        public Object setAttributeIfAbsent(Object key, Object value) {
            return attrs.putIfAbsent(key, value);
        }

        @Override
        public Object removeAttribute(Object key) {
            return attrs.remove(key);
        }

        @Override
        public synchronized CloseFuture close(boolean immediately) {
            events.add("close");
            DefaultCloseFuture f = new DefaultCloseFuture("fake", null);
            f.setClosed();
            return f;
        }

        @Override
        public void addCloseFutureListener(SshFutureListener<CloseFuture> listener) {
        }

        @Override
        public void removeCloseFutureListener(SshFutureListener<CloseFuture> listener) {
        }

        @Override
        public boolean isClosed() {
            return false;
        }

        @Override
        public boolean isClosing() {
            return false;
        }

        @Override
        public IoService getService() {
            return null;
        }

        @Override
        public void shutdownOutputStream() {
        }

        @Override
        public void suspendRead() {
        }

        @Override
        public void resumeRead() {
        }

        @Override
        public SocketAddress getRemoteAddress() {
            return null;
        }

        @Override
        public SocketAddress getLocalAddress() {
            return null;
        }
    }

    private static Buffer bytes(String s) {
        return new ByteArrayBuffer(s.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    private static String text(byte[] b) {
        return new String(b, java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Test
    void writesInsideOneHandlerCallLeaveAsOneWriteInOrder() throws Exception {
        FakeTransport t = new FakeTransport();
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        boolean collected = s.handlerEnter();
        assertTrue(collected);
        IoWriteFuture a = s.writeBuffer(bytes("ident\r\n"));
        IoWriteFuture b = s.writeBuffer(bytes("KEXINIT"));
        IoWriteFuture c = s.writeBuffer(bytes("REPLY"));
        assertEquals(0, t.writeCount(), "nothing reaches the transport inside the handler call");
        s.handlerExit(collected);
        assertEquals(1, t.writeCount());
        assertEquals("ident\r\nKEXINITREPLY", text(t.writes.get(0)));
        assertFalse(a.isDone() || b.isDone() || c.isDone(), "parts complete with the combined write, not before");
        t.futures.get(0).setValue(Boolean.TRUE);
        for (IoWriteFuture f : List.of(a, b, c)) {
            assertTrue(f.isWritten());
            assertSame(f, f.verify(1, TimeUnit.SECONDS));
        }
        assertEquals(3, s.writesIn());
        assertEquals(1, s.writesOut());
    }

    @Test
    void aFailedCombinedWriteFailsEveryPart() throws Exception {
        FakeTransport t = new FakeTransport();
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        boolean collected = s.handlerEnter();
        IoWriteFuture a = s.writeBuffer(bytes("one"));
        IoWriteFuture b = s.writeBuffer(bytes("two"));
        s.handlerExit(collected);
        IOException boom = new IOException("connection reset");
        t.futures.get(0).setValue(boom);
        for (IoWriteFuture f : List.of(a, b)) {
            assertTrue(f.isDone());
            assertFalse(f.isWritten());
            assertSame(boom, f.getException());
        }
    }

    @Test
    void aTransportThatThrowsFailsThePartsAndLaterWritesStillGoOut() throws Exception {
        FakeTransport t = new FakeTransport();
        t.completeAtOnce = true;
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        boolean collected = s.handlerEnter();
        IoWriteFuture a = s.writeBuffer(bytes("lost"));
        IOException boom = new IOException("closed");
        t.throwNext = boom;
        s.handlerExit(collected);
        assertSame(boom, a.getException());
        collected = s.handlerEnter();
        IoWriteFuture b = s.writeBuffer(bytes("next"));
        s.handlerExit(collected);
        assertTrue(b.isWritten());
        assertEquals("next", text(t.all()));
    }

    @Test
    void aWriteFromAnotherThreadDuringAHandlerCallGoesBehindThePendingBytes() throws Exception {
        FakeTransport t = new FakeTransport();
        t.completeAtOnce = true;
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        boolean collected = s.handlerEnter();
        // before anything is pending another thread's write has nothing to wait for
        IoWriteFuture early = onOtherThread(s, "early|");
        assertTrue(early.isWritten());
        s.writeBuffer(bytes("A|"));
        IoWriteFuture other = onOtherThread(s, "B|");
        assertFalse(other.isDone(), "queued behind A, not written before it");
        assertEquals(1, t.writeCount());
        s.writeBuffer(bytes("C|"));
        s.handlerExit(collected);
        assertEquals(List.of("early|", "A|B|C|"), t.writes.stream().map(CoalescingIoSessionTest::text).toList());
        assertTrue(other.isWritten());
    }

    private static IoWriteFuture onOtherThread(CoalescingIoSession s, String what) throws Exception {
        IoWriteFuture[] f = new IoWriteFuture[1];
        Exception[] e = new Exception[1];
        Thread th = new Thread(() -> {
            try {
                f[0] = s.writeBuffer(bytes(what));
            } catch (Exception x) {
                e[0] = x;
            }
        });
        th.start();
        th.join(5000);
        assertFalse(th.isAlive(), "a write never blocks on a handler call");
        if (e[0] != null) {
            throw e[0];
        }
        return f[0];
    }

    @Test
    void afterAuthenticationWritesPassStraightThrough() throws Exception {
        FakeTransport t = new FakeTransport();
        AtomicBoolean auth = new AtomicBoolean();
        CoalescingIoSession s = new CoalescingIoSession(t, io -> auth.get());
        boolean collected = s.handlerEnter();
        s.writeBuffer(bytes("USERAUTH_SUCCESS"));
        auth.set(true);
        // the call that authenticated still collects: the flag is read when a call starts
        s.writeBuffer(bytes("+more"));
        assertEquals(0, t.writeCount());
        s.handlerExit(collected);
        assertEquals(1, t.writeCount());
        assertFalse(s.passingThrough());
        collected = s.handlerEnter();
        assertFalse(collected);
        assertTrue(s.passingThrough());
        IoWriteFuture d1 = s.writeBuffer(bytes("data1"));
        IoWriteFuture d2 = s.writeBuffer(bytes("data2"));
        assertEquals(3, t.writeCount());
        assertSame(t.futures.get(1), d1, "the transport's own future, nothing in between");
        assertSame(t.futures.get(2), d2);
        s.handlerExit(collected);
        assertEquals(List.of("USERAUTH_SUCCESS+more", "data1", "data2"),
                t.writes.stream().map(CoalescingIoSessionTest::text).toList());
    }

    @Test
    void coalescingEndsAfterSixtyFourHandlerCalls() throws Exception {
        FakeTransport t = new FakeTransport();
        t.completeAtOnce = true;
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        for (int i = 0; i < CoalescingIoSession.MAX_HANDLER_CALLS; i++) {
            boolean collected = s.handlerEnter();
            assertTrue(collected, "call " + i);
            s.writeBuffer(bytes("a"));
            s.writeBuffer(bytes("b"));
            s.handlerExit(collected);
        }
        assertEquals(CoalescingIoSession.MAX_HANDLER_CALLS, t.writeCount());
        boolean collected = s.handlerEnter();
        assertFalse(collected);
        s.writeBuffer(bytes("a"));
        s.writeBuffer(bytes("b"));
        s.handlerExit(collected);
        assertEquals(CoalescingIoSession.MAX_HANDLER_CALLS + 2, t.writeCount());
        assertTrue(s.passingThrough());
    }

    @Test
    void pendingBytesBeyondTheBoundAreWrittenAtOnce() throws Exception {
        FakeTransport t = new FakeTransport();
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        boolean collected = s.handlerEnter();
        s.writeBuffer(new ByteArrayBuffer(new byte[200 * 1024]));
        assertEquals(0, t.writeCount());
        IoWriteFuture big = s.writeBuffer(new ByteArrayBuffer(new byte[100 * 1024]));
        assertEquals(1, t.writeCount(), "over 256 KiB pending: written inside the handler call");
        assertEquals(300 * 1024, t.writes.get(0).length);
        t.futures.get(0).setValue(Boolean.TRUE);
        assertTrue(big.verify(1, TimeUnit.SECONDS).isWritten(), "a handler waiting on it would not deadlock");
        s.writeBuffer(bytes("tail"));
        s.handlerExit(collected);
        assertEquals(2, t.writeCount());
        assertEquals("tail", text(t.writes.get(1)));
    }

    @Test
    void closeWritesPendingBytesFirst() throws Exception {
        FakeTransport t = new FakeTransport();
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        boolean collected = s.handlerEnter();
        s.writeBuffer(bytes("DISCONNECT"));
        s.close(false);
        s.handlerExit(collected);
        assertEquals(List.of("write 10", "close"), t.events);
    }

    @Test
    void transportClosedFailsWhatIsPending() throws Exception {
        FakeTransport t = new FakeTransport();
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        boolean collected = s.handlerEnter();
        IoWriteFuture f = s.writeBuffer(bytes("late"));
        s.transportClosed();
        s.handlerExit(collected);
        assertTrue(f.isDone());
        assertFalse(f.isWritten());
        assertTrue(f.getException() instanceof java.nio.channels.ClosedChannelException);
        assertEquals(0, t.writeCount());
    }

    /**
     * Writers number their writes under one lock, as MINA's encode lock numbers packets; whatever the interleaving
     * with handler calls, the transport must receive the numbers in order, each once.
     */
    @Test
    void concurrentWritersKeepTheirOrderAndLoseNothing() throws Exception {
        FakeTransport t = new FakeTransport();
        t.completeAtOnce = true;
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        Object encodeLock = new Object();
        AtomicInteger seq = new AtomicInteger();
        int perThread = 3000;
        int threads = 3;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        List<IoWriteFuture> futures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        Runnable writer = () -> {
            try {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    synchronized (encodeLock) {
                        futures.add(s.writeBuffer(new ByteArrayBuffer(
                                ByteBuffer.allocate(4).putInt(seq.getAndIncrement()).array())));
                    }
                }
            } catch (Throwable e) {
                errors.add(e);
            }
        };
        for (int i = 0; i < threads; i++) {
            ts.add(new Thread(writer));
        }
        Thread handler = new Thread(() -> {
            try {
                start.await();
                for (int call = 0; call < 60; call++) {
                    boolean collected = s.handlerEnter();
                    for (int i = 0; i < 50; i++) {
                        synchronized (encodeLock) {
                            futures.add(s.writeBuffer(new ByteArrayBuffer(
                                    ByteBuffer.allocate(4).putInt(seq.getAndIncrement()).array())));
                        }
                        if (i % 10 == 0) {
                            Thread.yield();
                        }
                    }
                    s.handlerExit(collected);
                }
            } catch (Throwable e) {
                errors.add(e);
            }
        });
        ts.add(handler);
        ts.forEach(Thread::start);
        start.countDown();
        for (Thread th : ts) {
            th.join(30_000);
            assertFalse(th.isAlive());
        }
        assertEquals(List.of(), errors);
        int total = threads * perThread + 60 * 50;
        ByteBuffer all = ByteBuffer.wrap(t.all());
        assertEquals(total * 4, all.remaining());
        for (int i = 0; i < total; i++) {
            assertEquals(i, all.getInt(), "write number " + i);
        }
        assertEquals(total, futures.size());
        for (IoWriteFuture f : futures) {
            assertTrue(f.isWritten());
        }
        assertTrue(t.writeCount() < total, "some writes were combined: " + t.writeCount());
    }

    @Test
    void aCallbackOfTheTransportThatWritesAgainIsNeitherLostNorReordered() throws Exception {
        // NIO2 may complete a write and run its listeners inline, on the thread that handed the bytes over
        FakeTransport t = new FakeTransport();
        t.completeAtOnce = true;
        CoalescingIoSession s = new CoalescingIoSession(t, io -> false);
        boolean collected = s.handlerEnter();
        IoWriteFuture first = s.writeBuffer(bytes("1"));
        List<IoWriteFuture> nested = new ArrayList<>();
        first.addListener(f -> {
            try {
                nested.add(s.writeBuffer(bytes("3")));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        s.writeBuffer(bytes("2"));
        s.handlerExit(collected);
        assertEquals("123", text(t.all()));
        assertEquals(1, nested.size());
        assertTrue(nested.get(0).isWritten());
        assertArrayEquals(new byte[] {'1', '2'}, t.writes.get(0));
    }
}
