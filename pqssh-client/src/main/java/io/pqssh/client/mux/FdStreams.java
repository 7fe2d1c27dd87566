package io.pqssh.client.mux;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Streams over a file descriptor passed to pqssh: a mux client's stdin, stdout or stderr, or the socket a
 * {@code ProxyUseFdpass} command passed back. Reads poll with a
 * timeout so that the relay stops when the session ends even while the client's stdin stays silent: close(2) does
 * not wake a thread blocked in read(2) on Linux.
 */
public final class FdStreams {
    private FdStreams() {
    }

    /** Input from {@code fd} until end of input or until {@code stop} says the session is over (then end too). */
    public static InputStream input(int fd, java.util.function.BooleanSupplier stop) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] b = new byte[1];
                int n = read(b, 0, 1);
                return n < 0 ? -1 : b[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                while (!UnixSocket.poll(fd, 200)) {
                    if (stop.getAsBoolean()) {
                        return -1;
                    }
                }
                if (stop.getAsBoolean()) {
                    return -1;
                }
                int n = UnixSocket.readInto(fd, b, off, len, false);
                return n == 0 ? -1 : n;
            }
        };
    }

    /** Output to {@code fd}; every write goes straight to the descriptor. Closing does not close it. */
    public static OutputStream output(int fd) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                UnixSocket.writeAll(fd, b, off, len, false);
            }
        };
    }
}
