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

    @Test
    void writeTheSocketTakesCompletesOnTheCallingThread() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                AsynchronousSocketChannel ch = AsynchronousSocketChannel.open()) {
            ch.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort())).get(10,
                    TimeUnit.SECONDS);
            try (Socket peer = server.accept()) {
                Recorder r = new Recorder();
                assertTrue(InlineSocketWrite.write(ch, ByteBuffer.wrap("hello".getBytes()), r, 30_000));
                assertTrue(r.result.isDone(), "completed before write returned");
                assertEquals(5, r.result.get());
                assertSame(Thread.currentThread(), r.thread);
                assertEquals("hello", new String(peer.getInputStream().readNBytes(5)));
            }
        }
    }

    @Test
    void writeTheSocketCannotTakeCompletesWhenThePeerReads() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                AsynchronousSocketChannel ch = AsynchronousSocketChannel.open()) {
            ch.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort())).get(10,
                    TimeUnit.SECONDS);
            try (Socket peer = server.accept()) {
                // far more than loopback's socket buffers hold while the peer does not read
                byte[] big = new byte[64 * 1024 * 1024];
                ByteBuffer buf = ByteBuffer.wrap(big);
                Recorder r = new Recorder();
                assertTrue(InlineSocketWrite.write(ch, buf, r, 30_000));
                assertFalse(r.result.isDone(), "a full socket does not complete at once");
                InputStream in = peer.getInputStream();
                byte[] sink = new byte[1 << 20];
                long read = 0;
                while (!r.result.isDone() || read < r.result.getNow(0)) {
                    int n = in.read(sink);
                    assertTrue(n > 0, "peer saw the end of stream");
                    read += n;
                }
                int written = r.result.get(30, TimeUnit.SECONDS);
                assertTrue(written > 0);
                assertEquals(big.length - written, buf.remaining());
                assertNotSame(Thread.currentThread(), r.thread);
            }
        }
    }

    @Test
    void nestingPastTheLimitIsLeftToTheCaller() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                AsynchronousSocketChannel ch = AsynchronousSocketChannel.open()) {
            ch.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort())).get(10,
                    TimeUnit.SECONDS);
            try (Socket peer = server.accept()) {
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
    }

    @Test
    void writeToAClosedPeerFails() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                AsynchronousSocketChannel ch = AsynchronousSocketChannel.open()) {
            ch.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort())).get(10,
                    TimeUnit.SECONDS);
            server.accept().close();
            ch.shutdownOutput();
            Recorder r = new Recorder();
            assertTrue(InlineSocketWrite.write(ch, ByteBuffer.wrap(new byte[1]), r, 30_000));
            assertTrue(r.result.isCompletedExceptionally());
        }
    }
}
