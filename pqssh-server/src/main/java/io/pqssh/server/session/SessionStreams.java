package io.pqssh.server.session;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The stream plumbing shared by {@link ProcessSession} and {@link PtySession}: one daemon thread per stream, each
 * copying with blocking reads (no polling, so no added latency) and flushing every chunk at once.
 */
final class SessionStreams {
    private SessionStreams() {
    }

    /**
     * Copies until EOF or an I/O error (the process or the channel went away: nothing more to copy); closes the
     * destination at the end when it is the process's stdin (the client sent EOF).
     */
    static void copy(InputStream from, OutputStream to, int bufferSize, boolean closeAtEof) {
        byte[] buf = new byte[bufferSize];
        try {
            for (int n; (n = from.read(buf)) >= 0;) {
                if (n > 0) {
                    to.write(buf, 0, n);
                    to.flush();
                }
            }
        } catch (IOException e) {
            // the process or the channel went away (for a pty, EIO once every slave descriptor is closed)
        } finally {
            if (closeAtEof) {
                try {
                    to.close();
                } catch (IOException e) {
                    // already gone
                }
            }
        }
    }

    /** Starts {@code r} on a daemon thread, so a stuck stream never keeps the server's JVM alive. */
    static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
