package io.pqssh.common.transport;

import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.util.Readable;

/**
 * Hands MINA's SSH handler the coalescing session and brackets the two callbacks in which MINA writes its flights:
 * {@code sessionCreated} (identification and KEXINIT, plus the client's guessed KEX init) and {@code messageReceived}
 * (every reply). Whatever the SSH layer writes inside one of them leaves as one transport write when it returns.
 */
final class CoalescingIoHandler extends SessionWrappingIoHandler<CoalescingIoSession> {
    CoalescingIoHandler(IoHandler handler) {
        super(handler, CoalescingIoSession::new);
    }

    @Override
    public void sessionCreated(IoSession session) throws Exception {
        CoalescingIoSession c = wrapped(session);
        boolean collected = c.handlerEnter();
        try {
            handler().sessionCreated(c);
        } finally {
            c.handlerExit(collected);
        }
    }

    @Override
    public void messageReceived(IoSession session, Readable message) throws Exception {
        CoalescingIoSession c = wrapped(session);
        boolean collected = c.handlerEnter();
        try {
            handler().messageReceived(c, message);
        } finally {
            c.handlerExit(collected);
        }
    }

    @Override
    public void sessionClosed(IoSession session) throws Exception {
        CoalescingIoSession c = wrapped(session);
        try {
            handler().sessionClosed(c);
        } finally {
            c.transportClosed();
        }
    }
}
