package io.pqssh.common.forward;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.function.Consumer;

import org.apache.sshd.client.channel.AbstractClientChannel;
import org.apache.sshd.client.future.DefaultOpenFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.SshException;
import org.apache.sshd.common.channel.ChannelOutputStream;
import org.apache.sshd.common.channel.LocalWindow;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * A channel this side opens for an accepted local connection ({@code direct-tcpip} from a Unix-socket listener,
 * {@code direct-streamlocal@openssh.com}), relaying the connection's bytes both ways. Half-closes pass through, as in
 * {@link RelayChannel}; a local connection that goes away closes only its channel, never the session.
 */
public final class OutgoingRelayChannel extends AbstractClientChannel {
    private final Consumer<Buffer> openData;
    private final SocketChannel local;
    private final byte[] toLocalOnOpen;
    private final byte[] toPeerFirst;
    private final Object lock = new Object();
    private final RelayEnds ends = new RelayEnds(lock);

    /**
     * @param type the channel type
     * @param openData writes the type-specific fields of {@code SSH_MSG_CHANNEL_OPEN}
     * @param local the accepted connection (blocking mode); closed with the channel
     */
    public OutgoingRelayChannel(String type, Consumer<Buffer> openData, SocketChannel local) {
        this(type, openData, local, new byte[0], new byte[0]);
    }

    /**
     * A channel for a connection whose first bytes were a SOCKS request: {@code toLocalOnOpen} (the SOCKS success
     * reply) is written to the connection when the peer confirms the channel, before any of the peer's data, and
     * {@code toPeerFirst} (what the client sent after its request) goes to the peer before the rest of the stream.
     */
    public OutgoingRelayChannel(String type, Consumer<Buffer> openData, SocketChannel local, byte[] toLocalOnOpen,
            byte[] toPeerFirst) {
        super(type);
        this.openData = Objects.requireNonNull(openData);
        this.local = Objects.requireNonNull(local);
        this.toLocalOnOpen = toLocalOnOpen.clone();
        this.toPeerFirst = toPeerFirst.clone();
    }

    /** The local end: the accepted connection this channel carries (for listings such as ssh's {@code ~#}). */
    public SocketChannel local() {
        return local;
    }

    @Override
    public synchronized OpenFuture open() throws IOException {
        if (isClosing()) {
            throw new SshException("Session has been closed: " + state);
        }
        openFuture = new DefaultOpenFuture(this.toString(), futureLock);
        LocalWindow w = getLocalWindow();
        Buffer b = getSession().createBuffer(SshConstants.SSH_MSG_CHANNEL_OPEN, 256);
        b.putString(getChannelType());
        b.putUInt(getChannelId());
        b.putUInt(w.getSize());
        b.putUInt(w.getPacketSize());
        openData.accept(b);
        writePacket(b);
        return openFuture;
    }

    @Override
    protected void doOpen() throws IOException {
        addCloseFutureListener(f -> RelayEnds.closeQuietly(local));
        // doOpen runs on the confirmation, before the peer's first CHANNEL_DATA is handled: the reply comes first
        ByteBuffer reply = ByteBuffer.wrap(toLocalOnOpen);
        try {
            RelayEnds.writeFully(local, reply);
        } catch (IOException e) {
            // the local program went away while the server was opening: the pump below finds the socket gone and
            // closes the channel as any other (throwing here would drop the channel without a CHANNEL_CLOSE)
        }
        OutputStream toPeer = new ChannelOutputStream(this, getRemoteWindow(), log, SshConstants.SSH_MSG_CHANNEL_DATA,
                true);
        SocketPump.start(local, toPeer, toPeerFirst, "forward-relay-out", () -> {
            if (ends.localEnded()) {
                close(false);
            }
        }, () -> close(false));
    }

    @Override
    protected void doWriteData(byte[] data, int off, long len) throws IOException {
        if (isClosing()) {
            return;
        }
        try {
            RelayEnds.writeFully(local, ByteBuffer.wrap(data, off, (int) len));
        } catch (IOException e) {
            close(false); // the local end went away: this channel ends, the session goes on
            return;
        }
        getLocalWindow().release(len);
    }

    @Override
    protected void doWriteExtendedData(byte[] data, int off, long len) throws IOException {
        getLocalWindow().release(len); // a forwarded connection has no second stream: dropped, as ssh does
    }

    @Override
    public void handleEof() throws IOException {
        super.handleEof();
        boolean closeNow;
        synchronized (lock) {
            closeNow = ends.peerEndedLocked();
        }
        if (!closeNow) {
            try {
                local.shutdownOutput();
            } catch (IOException e) {
                closeNow = true;
            }
        }
        if (closeNow) {
            close(false);
        }
    }
}
