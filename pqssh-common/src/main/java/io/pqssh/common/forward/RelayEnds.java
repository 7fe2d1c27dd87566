package io.pqssh.common.forward;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The two directions of a relayed connection, as both relay channels ({@link RelayChannel} for channels the peer
 * opens, {@link OutgoingRelayChannel} for those this side opens) keep them: half-closes pass through, and the
 * channel closes once both directions have ended. The flags are guarded by the channel's own lock, which also guards
 * its other state, so that one lock orders every change.
 */
final class RelayEnds {
    private final Object lock;
    private boolean peerEof; // guarded by lock
    private boolean localEof; // guarded by lock

    RelayEnds(Object lock) {
        this.lock = lock;
    }

    /** The local socket reached end of input; true when the peer's EOF came first, so the channel closes now. */
    boolean localEnded() {
        synchronized (lock) {
            localEof = true;
            return peerEof;
        }
    }

    /** The peer sent EOF; true when the local socket had ended first. The caller holds the lock. */
    boolean peerEndedLocked() {
        peerEof = true;
        return localEof;
    }

    /** Whether the peer has sent EOF. The caller holds the lock. */
    boolean peerEofLocked() {
        return peerEof;
    }

    static void writeFully(SocketChannel s, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            s.write(b);
        }
    }

    static void closeQuietly(SocketChannel s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }
}
