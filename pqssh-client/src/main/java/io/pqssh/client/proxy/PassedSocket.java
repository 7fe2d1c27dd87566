package io.pqssh.client.proxy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.client.mux.FdStreams;
import io.pqssh.client.mux.UnixSocket;

/**
 * The socket a {@code ProxyUseFdpass} command passed back, owned by one SSH connection. Ending it shuts the socket
 * down first and closes the descriptor only once no read or write is in progress: closed under a reader or writer,
 * its number could be handed to the next open (another connection's socket, a file) and that thread would then read
 * or write someone else's descriptor — in one JVM with several connections, bytes stolen from the next connection.
 */
final class PassedSocket implements ProxyTransport.Endpoint {
    private static final Logger LOG = LoggerFactory.getLogger(PassedSocket.class);
    /** A read waits for input in slices this long (FdStreams), and writes fail at once after shutdown. */
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final int fd;
    /** Reads and writes hold it shared; closing holds it alone. */
    private final ReentrantReadWriteLock use = new ReentrantReadWriteLock();
    private volatile boolean ending;
    private boolean closed; // guarded by use's write lock

    PassedSocket(int fd) {
        this.fd = fd;
    }

    ProxyTransport.Streams streams() {
        InputStream raw = FdStreams.input(fd, () -> ending);
        OutputStream rawOut = FdStreams.output(fd);
        InputStream in = new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] b = new byte[1];
                int n = read(b, 0, 1);
                return n < 0 ? -1 : b[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (!use.readLock().tryLock()) {
                    return -1; // closing
                }
                try {
                    return closed || ending ? -1 : raw.read(b, off, len);
                } finally {
                    use.readLock().unlock();
                }
            }
        };
        OutputStream out = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (!use.readLock().tryLock()) {
                    throw new EOFException("proxied socket closed");
                }
                try {
                    if (closed || ending) {
                        throw new EOFException("proxied socket closed");
                    }
                    rawOut.write(b, off, len);
                } finally {
                    use.readLock().unlock();
                }
            }
        };
        return new ProxyTransport.Streams(in, out, this);
    }

    /** Ends the connection: shut down now, closed once the reader and writer are out. */
    @Override
    public void close() {
        ending = true;
        UnixSocket.shutdownFd(fd);
        try {
            if (!use.writeLock().tryLock(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                // leaked rather than closed under a thread that still uses the number
                LOG.debug("proxied socket {} still in use after shutdown; left open", fd);
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            if (!closed) {
                closed = true;
                UnixSocket.closeFd(fd);
            }
        } finally {
            use.writeLock().unlock();
        }
    }
}
