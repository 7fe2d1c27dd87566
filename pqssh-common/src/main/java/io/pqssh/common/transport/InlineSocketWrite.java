package io.pqssh.common.transport;

import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.CompletionHandler;
import java.nio.channels.InterruptedByTimeoutException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One write cycle of MINA's {@code Nio2Session} completed on the thread that started it when the socket takes the
 * bytes at once. With a completion handler, the JDK runs the handler of a write issued by a thread outside the
 * channel group (the thread sending an SFTP write, a channel's pump) on a group thread, so every SSH packet cost two
 * thread hand-offs: the completion to an NIO2 thread, and back to the writer that waits for it (MINA's SFTP client
 * waits until each request is sent). The JDK's {@code Future} form of {@code write} tries the write at once and
 * returns a completed future if the socket took it; the handler is then called here, on this thread, as the JDK
 * itself does for a group thread. A write the socket cannot take now is awaited by a virtual thread, which then
 * calls the handler (MINA's write timeout applies there).
 * <p>
 * Nesting is bounded as in the JDK's own direct invocation: the handler starts the next queued write, whose
 * completion may start the next; past {@value #MAX_DEPTH} levels on one thread the caller uses MINA's path.
 */
final class InlineSocketWrite {
    /** The JDK's {@code sun.nio.ch.maxCompletionHandlersOnStack} default. */
    static final int MAX_DEPTH = 16;

    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    private InlineSocketWrite() {
    }

    /**
     * Writes {@code buffer} and calls {@code completion} when done (inline if at once); false, having done nothing,
     * if this thread is already {@value #MAX_DEPTH} completions deep (the caller then writes the way MINA does).
     * Exceptions of {@code write} itself (a write already pending, a closed group) propagate as MINA's path does.
     */
    static boolean write(AsynchronousSocketChannel socket, ByteBuffer buffer,
            CompletionHandler<Integer, Object> completion, long timeoutMillis) {
        int[] depth = DEPTH.get();
        if (depth[0] >= MAX_DEPTH) {
            return false;
        }
        Future<Integer> written = socket.write(buffer);
        if (!written.isDone()) {
            Thread.ofVirtual().name("pqssh-write-wait").start(() -> complete(written, completion, timeoutMillis));
            return true;
        }
        depth[0]++;
        try {
            complete(written, completion, timeoutMillis);
        } finally {
            depth[0]--;
        }
        return true;
    }

    private static void complete(Future<Integer> written, CompletionHandler<Integer, Object> completion,
            long timeoutMillis) {
        Integer n;
        try {
            n = timeoutMillis > 0 ? written.get(timeoutMillis, TimeUnit.MILLISECONDS) : written.get();
        } catch (ExecutionException e) {
            completion.failed(e.getCause() != null ? e.getCause() : e, null);
            return;
        } catch (TimeoutException e) {
            written.cancel(true);
            completion.failed(new InterruptedByTimeoutException(), null);
            return;
        } catch (InterruptedException | CancellationException e) {
            completion.failed(e, null);
            return;
        }
        completion.completed(n, null);
    }
}
