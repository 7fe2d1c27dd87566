package io.pqssh.inventory.scan;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Reads a stream on its own thread into a few fixed chunks, so that gzip decompression runs beside the parsing
 * instead of before it. Memory: {@value #CHUNKS} chunks of {@value #CHUNK} bytes. An I/O error of the source is
 * rethrown to the reader at the point it happened.
 */
final class ReadAhead extends InputStream {
    static final int CHUNK = 1 << 20;
    static final int CHUNKS = 4;
    private static final byte[] END = new byte[0];

    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(CHUNKS);
    private final InputStream source;
    private final Thread thread;
    private byte[] cur = new byte[0];
    private int pos;
    private boolean done;
    private volatile boolean closed;

    ReadAhead(InputStream source) {
        this.source = source;
        this.thread = new Thread(this::pump, "pqssh-read-ahead");
        thread.setDaemon(true);
        thread.start();
    }

    private void pump() {
        try {
            while (!closed) {
                byte[] b = new byte[CHUNK];
                int n = source.readNBytes(b, 0, b.length);
                if (n > 0) {
                    queue.put(n == b.length ? b : Arrays.copyOf(b, n));
                }
                if (n < b.length) {
                    queue.put(END);
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            try {
                queue.put(e);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean fill() throws IOException {
        if (done) {
            return false;
        }
        Object o;
        try {
            o = queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading input");
        }
        if (o instanceof IOException e) {
            done = true;
            throw e;
        }
        if (o instanceof RuntimeException e) {
            done = true;
            throw e;
        }
        cur = (byte[]) o;
        pos = 0;
        if (cur == END) {
            done = true;
            return false;
        }
        return true;
    }

    @Override
    public int read() throws IOException {
        if (pos == cur.length && !fill()) {
            return -1;
        }
        return cur[pos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos == cur.length && !fill()) {
            return -1;
        }
        int n = Math.min(len, cur.length - pos);
        System.arraycopy(cur, pos, b, off, n);
        pos += n;
        return n;
    }

    @Override
    public void close() throws IOException {
        closed = true;
        thread.interrupt();
        source.close();
    }
}
