package io.pqssh.client.jump;

import java.io.IOException;
import java.util.function.Consumer;

import org.apache.sshd.client.channel.ChannelDirectTcpip;
import org.apache.sshd.common.util.net.SshdSocketAddress;

/**
 * A {@code direct-tcpip} channel whose incoming bytes go to a consumer instead of MINA's pipes: the consumer (the
 * tunnelled session's reader) releases the channel's window once it has processed them, so a slow reader holds the
 * sender back instead of filling memory, and the previous hop's I/O thread never waits for the next hop.
 */
final class TunnelChannel extends ChannelDirectTcpip {
    /** What the channel hands over: bytes (a copy) or, once, {@code null} for the peer's EOF. */
    private volatile Consumer<byte[]> sink;

    TunnelChannel(SshdSocketAddress originator, SshdSocketAddress target) {
        super(originator, target);
    }

    void sink(Consumer<byte[]> s) {
        this.sink = s;
    }

    /** Gives {@code n} bytes of window back to the peer once they were consumed. */
    void consumed(long n) throws IOException {
        getLocalWindow().release(n);
    }

    @Override
    protected void doWriteData(byte[] data, int off, long len) throws IOException {
        if (isClosing()) {
            return;
        }
        byte[] copy = new byte[Math.toIntExact(len)];
        System.arraycopy(data, off, copy, 0, copy.length);
        sink.accept(copy);
    }

    @Override
    public void handleEof() throws IOException {
        super.handleEof();
        sink.accept(null);
    }
}
