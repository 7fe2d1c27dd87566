package io.pqssh.server.session;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.sshd.common.channel.LocalWindow;
import org.apache.sshd.server.channel.ChannelDataReceiver;
import org.apache.sshd.server.channel.ChannelSession;

import com.sun.jna.Memory;

/**
 * The client's data for a session process's stdin, in place of MINA's {@code PipeDataReceiver}. MINA's pipe keeps
 * everything not yet read in one growing array and compacts it (moves what is left to the front) about every packet
 * read; with the process slower than the network that array holds up to a whole channel window (2 MiB), so each
 * 64 KiB read also moved up to 2 MiB: most of the server's CPU in an upload (issue 25, the 2026-12-06 profile).
 * Here each CHANNEL_DATA is kept as its own array (one copy, needed because MINA reuses its packet buffer) in a
 * queue, and {@link #pumpTo} writes them to the pipe, several per write(2) up to its buffer's size.
 * <p>
 * The channel's window is given back only after the bytes are in the pipe, as MINA's pipe gives it back only after
 * they are read: what the server holds for a process that does not read stays bounded by the window. The client's
 * EOF (or the channel's close) ends {@link #pumpTo} once the queue is written, and the caller closes the stdin.
 */
final class ProcessInput implements ChannelDataReceiver {
    /** Arrays of this size are reused (MINA's packets carry at most 32 KiB of channel data by default). */
    private static final int CHUNK = 32 * 1024;
    /** At most this many free arrays are kept (a window's worth is 64; the rest is left to the collector). */
    private static final int POOL_MAX = 16;

    /** Bytes {@code [0, len)} of {@code a}. */
    private record Chunk(byte[] a, int len) {
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    private final ArrayDeque<Chunk> queue = new ArrayDeque<>();
    private final ArrayDeque<byte[]> pool = new ArrayDeque<>();
    private boolean eof;
    /** The process's stdin failed (the process is gone): later data is dropped, as nobody would read it. */
    private boolean broken;
    /** Whether {@link #pumpTo} sleeps on {@link #ready}: a packet wakes it only then (no unpark per packet). */
    private boolean waiting;
    private final WindowRelease window;

    /** Gives {@code n} bytes of the channel's window back to the client. */
    @FunctionalInterface
    interface WindowRelease {
        void release(long n) throws IOException;

        /** The channel's local window, while it is open. */
        static WindowRelease of(LocalWindow w) {
            return n -> {
                if (w.isOpen()) {
                    w.release(n);
                }
            };
        }
    }

    /** @param window how the channel's window grows back as the process takes the data */
    ProcessInput(WindowRelease window) {
        this.window = window;
    }

    @Override
    public int data(ChannelSession channel, byte[] buf, int start, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        byte[] a = null;
        if (len <= CHUNK) {
            lock.lock();
            try {
                a = pool.poll();
            } finally {
                lock.unlock();
            }
        }
        if (a == null) {
            a = new byte[Math.max(len, CHUNK)];
        }
        System.arraycopy(buf, start, a, 0, len);
        lock.lock();
        try {
            if (eof || broken) {
                return 0;
            }
            queue.add(new Chunk(a, len));
            if (waiting) {
                ready.signal();
            }
        } finally {
            lock.unlock();
        }
        // the window grows back in pumpTo, once the bytes are the pipe's
        return 0;
    }

    /** The client's EOF, or the channel closing: no more data comes. */
    @Override
    public void close() {
        lock.lock();
        try {
            eof = true;
            ready.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes the queued data to {@code fd} until EOF; an I/O error (the process closed its stdin or ended) stops
     * it. Returns when nothing more will be written; the caller closes the descriptor.
     *
     * @param bufferSize the most one write(2) carries
     */
    void pumpTo(SessionFd fd, int bufferSize) {
        Memory buf = new Memory(bufferSize);
        ArrayDeque<Chunk> taken = new ArrayDeque<>();
        Chunk part = null;
        int partOff = 0;
        while (true) {
            lock.lock();
            try {
                while (part == null && queue.isEmpty() && !eof) {
                    waiting = true;
                    try {
                        ready.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        broken = true;
                        return;
                    } finally {
                        waiting = false;
                    }
                }
                if (part == null && queue.isEmpty()) {
                    return; // EOF and everything written
                }
                // whole packets for one write, taken under the lock and copied outside it
                int room = bufferSize - (part == null ? 0 : part.len() - partOff);
                for (Chunk c; room > 0 && (c = queue.poll()) != null;) {
                    taken.add(c);
                    room -= c.len();
                }
            } finally {
                lock.unlock();
            }
            int n = 0;
            java.util.List<byte[]> done = new java.util.ArrayList<>(taken.size() + 1);
            while (n < bufferSize) {
                if (part == null) {
                    part = taken.poll();
                    partOff = 0;
                    if (part == null) {
                        break;
                    }
                }
                int k = Math.min(part.len() - partOff, bufferSize - n);
                buf.write(n, part.a(), partOff, k);
                n += k;
                partOff += k;
                if (partOff == part.len()) {
                    done.add(part.a());
                    part = null;
                }
            }
            if (!taken.isEmpty()) {
                // a packet that did not fit: back to the front of the queue, before what came since
                lock.lock();
                try {
                    while (!taken.isEmpty()) {
                        queue.addFirst(taken.pollLast());
                    }
                } finally {
                    lock.unlock();
                }
            }
            recycle(done);
            int len = n;
            boolean written = fd.use(d -> {
                try {
                    SessionNative.writeFully(d, buf, len);
                    return true;
                } catch (IOException e) {
                    return false;
                }
            });
            if (!written) {
                lock.lock();
                try {
                    broken = true;
                    queue.clear();
                } finally {
                    lock.unlock();
                }
                return;
            }
            try {
                window.release(len);
            } catch (IOException e) {
                return; // the channel is gone
            }
        }
    }

    private void recycle(java.util.List<byte[]> arrays) {
        lock.lock();
        try {
            for (byte[] a : arrays) {
                if (a.length == CHUNK && pool.size() < POOL_MAX) {
                    pool.add(a);
                }
            }
        } finally {
            lock.unlock();
        }
    }
}
