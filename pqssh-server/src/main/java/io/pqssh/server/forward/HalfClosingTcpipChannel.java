package io.pqssh.server.forward;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.threads.CloseableExecutorService;
import org.apache.sshd.common.util.threads.ThreadUtils;
import org.apache.sshd.server.forward.TcpForwardingFilter;
import org.apache.sshd.server.forward.TcpipServerChannel;

import io.pqssh.common.transport.HalfCloseTransport;

/**
 * The server's {@code direct-tcpip} channel with half-close in both directions, as sshd: when the target shuts down
 * its sending side, the client gets {@code SSH_MSG_CHANNEL_EOF} and may still send (MINA 2.20 would close the channel
 * and drop what the client sends after that); the client's EOF shuts down the target's input (MINA does that
 * already). The channel closes once both directions ended. The target's end of stream reaches {@link #inputEnded}
 * through {@link HalfCloseTransport}, which finds this channel as an attribute of the target's socket session.
 */
public final class HalfClosingTcpipChannel extends TcpipServerChannel implements HalfCloseTransport.HalfCloseTarget {
    private final AtomicBoolean closingBothWays = new AtomicBoolean();

    HalfClosingTcpipChannel(TcpForwardingFilter.Type type, CloseableExecutorService executor) {
        super(type, executor);
    }

    /** Put in place of MINA's {@code DirectTcpipFactory} (same name). */
    public static final class Factory extends TcpipServerChannel.TcpipFactory {
        public Factory() {
            super(TcpForwardingFilter.Type.Direct);
        }

        @Override
        public Channel createChannel(Session session) throws IOException {
            return new HalfClosingTcpipChannel(getType(), ThreadUtils.noClose(getExecutorService()));
        }
    }

    @Override
    protected void handleChannelOpenSuccess(OpenFuture f, IoSession session) {
        session.setAttribute(HalfCloseTransport.HalfCloseTarget.class, this);
        super.handleChannelOpenSuccess(f, session);
    }

    @Override
    public boolean inputEnded() {
        if (isClosing()) {
            return false;
        }
        try {
            // every byte the target sent is in the channel already: the socket's reads wait for each write
            sendEof();
        } catch (IOException e) {
            return false;
        }
        closeIfBothEnded();
        return true;
    }

    @Override
    public void handleEof() throws IOException {
        super.handleEof();
        closeIfBothEnded();
    }

    private void closeIfBothEnded() {
        if (isEofSent() && isEofSignalled() && closingBothWays.compareAndSet(false, true)) {
            close(false);
        }
    }
}
