package io.pqssh.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** {@link InlineSocketWrite} on a loopback socket pair: inline when the socket takes the bytes, later when not. */
class InlineSocketWriteTest {
    /** Records the thread and outcome of the completion MINA's write cycle would get. */
    private static final class Recorder implements CompletionHandler<Integer, Object> {
        final CompletableFuture<Integer> result = new CompletableFuture<>();
        volatile Thread thread;

        @Override
        public void completed(Integer n, Object attachment) {
            thread = Thread.currentThread();
            result.complete(n);
        }

        @Override
        public void failed(Throwable exc, Object attachment) {
            thread = Thread.currentThread();
            result.completeExceptionally(exc);
        }
    }

    /** A connected pair on loopback: the channel under test and the peer's blocking socket. */
    private static final class Loopback implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        final AsynchronousSocketChannel channel = AsynchronousSocketChannel.open();
        final Socket peer;

        Loopback() throws Exception {
            channel.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort())).get(10,
                    TimeUnit.SECONDS);
            peer = server.accept();
            peer.setSoTimeout(30_000); // no read in these tests may block for ever
        }

        @Override
        public void close() throws Exception {
            try (server; channel; peer) {
                // all three closed
            }
        }
    }

    @Test
    void writeTheSocketTakesCompletesOnTheCallingThread() throws Exception {
        try (Loopback l = new Loopback()) {
            AsynchronousSocketChannel ch = l.channel;
            Socket peer = l.peer;
            Recorder r = new Recorder();
            assertTrue(InlineSocketWrite.write(ch, ByteBuffer.wrap("hello".getBytes()), r, 30_000));
            assertTrue(r.result.isDone(), "completed before write returned");
            assertEquals(5, r.result.get());
            assertSame(Thread.currentThread(), r.thread);
            assertEquals("hello", new String(peer.getInputStream().readNBytes(5)));
        }
    }

    @Test
    void writeTheSocketCannotTakeCompletesWhenThePeerReads() throws Exception {
        try (Loopback l = new Loopback()) {
            AsynchronousSocketChannel ch = l.channel;
            Socket peer = l.peer;
            // far more than loopback's socket buffers hold while the peer does not read: writes complete at once
            // with what the buffers took until they are full, then one cannot
            byte[] big = new byte[64 * 1024 * 1024];
            ByteBuffer buf = ByteBuffer.wrap(big);
            long took = 0;
            Recorder r = new Recorder();
            for (int i = 0; i < 1000 && buf.hasRemaining(); i++) {
                r = new Recorder();
                assertTrue(InlineSocketWrite.write(ch, buf, r, 30_000));
                if (!r.result.isDone()) {
                    break;
                }
                assertSame(Thread.currentThread(), r.thread);
                took += r.result.get();
            }
            assertFalse(r.result.isDone(), "a full socket does not complete at once");
            InputStream in = peer.getInputStream();
            byte[] sink = new byte[1 << 20];
            long read = 0;
            // the peer may have read every byte before the waiting thread reports the write done: read with a short
            // time-out and look again, within an overall bound, instead of blocking on bytes that never come
            peer.setSoTimeout(100);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!r.result.isDone() || read < took + r.result.getNow(0)) {
                assertTrue(System.nanoTime() < deadline, "write not completed within 60 s; peer read " + read);
                try {
                    int n = in.read(sink);
                    assertTrue(n > 0, "peer saw the end of stream");
                    read += n;
                } catch (SocketTimeoutException e) {
                    // nothing to read now: look at the write's state again
                }
            }
            int written = r.result.get(30, TimeUnit.SECONDS);
            assertTrue(written > 0);
            assertEquals(big.length - took - written, buf.remaining());
            assertNotSame(Thread.currentThread(), r.thread);
        }
    }

    @Test
    void nestingPastTheLimitIsLeftToTheCaller() throws Exception {
        try (Loopback l = new Loopback()) {
            AsynchronousSocketChannel ch = l.channel;
            Socket peer = l.peer;
            int[] refused = {-1};
            CompletionHandler<Integer, Object> nested = new CompletionHandler<>() {
                int depth;

                @Override
                public void completed(Integer n, Object attachment) {
                    depth++;
                    if (!InlineSocketWrite.write(ch, ByteBuffer.wrap(new byte[1]), this, 30_000)) {
                        refused[0] = depth;
                    }
                }

                @Override
                public void failed(Throwable exc, Object attachment) {
                    throw new AssertionError(exc);
                }
            };
            assertTrue(InlineSocketWrite.write(ch, ByteBuffer.wrap(new byte[1]), nested, 30_000));
            assertEquals(InlineSocketWrite.MAX_DEPTH, refused[0]);
            assertEquals(InlineSocketWrite.MAX_DEPTH, peer.getInputStream().readNBytes(InlineSocketWrite.MAX_DEPTH)
                    .length);
        }
    }

    @Test
    void writeToAClosedPeerFails() throws Exception {
        try (Loopback l = new Loopback()) {
            AsynchronousSocketChannel ch = l.channel;
            l.peer.close();
            ch.shutdownOutput();
            Recorder r = new Recorder();
            assertTrue(InlineSocketWrite.write(ch, ByteBuffer.wrap(new byte[1]), r, 30_000));
            assertTrue(r.result.isCompletedExceptionally());
        }
    }
}
