package io.pqssh.server.session;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.IntPredicate;

import com.sun.jna.Memory;

/**
 * A descriptor of a session's pipe or pty master, shared by the threads that copy its data. Closing it while
 * another thread is in a read or write would let the kernel reuse its number for an unrelated file that thread
 * then reads or writes; so {@link #close} only marks it, and the descriptor is closed by whichever call ends last.
 */
final class SessionFd {
    private final int fd;
    private int users;
    private boolean closed;

    SessionFd(int fd) {
        this.fd = fd;
    }

    private synchronized boolean acquire() {
        if (closed) {
            return false;
        }
        users++;
        return true;
    }

    private synchronized void release() {
        if (--users == 0 && closed) {
            SessionNative.close(fd);
        }
    }

    synchronized void close() {
        if (!closed) {
            closed = true;
            if (users == 0) {
                SessionNative.close(fd);
            }
        }
    }

    /** {@code op} on the descriptor, unless it is closed (then false). */
    boolean use(IntPredicate op) {
        if (!acquire()) {
            return false;
        }
        try {
            return op.test(fd);
        } finally {
            release();
        }
    }

    /** Reads with blocking read(2) calls (one reader at a time); end of stream once closed. */
    InputStream input(int bufferSize) {
        Memory buf = new Memory(bufferSize);
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                if (!acquire()) {
                    return -1;
                }
                try {
                    int n = SessionNative.read(fd, buf, len);
                    if (n > 0) {
                        buf.read(0, b, off, n);
                    }
                    return n;
                } finally {
                    release();
                }
            }

            @Override
            public void close() {
                SessionFd.this.close();
            }
        };
    }

    /** Writes with write(2) (one writer at a time); closing it closes the descriptor. */
    OutputStream output(int bufferSize) {
        Memory buf = new Memory(bufferSize);
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (!acquire()) {
                    throw new IOException("closed");
                }
                try {
                    for (int done = 0; done < len;) {
                        int n = (int) Math.min(len - done, buf.size());
                        buf.write(0, b, off + done, n);
                        SessionNative.writeFully(fd, buf, n);
                        done += n;
                    }
                } finally {
                    release();
                }
            }

            @Override
            public void close() {
                SessionFd.this.close();
            }
        };
    }
}
