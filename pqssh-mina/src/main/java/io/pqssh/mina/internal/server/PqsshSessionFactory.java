package io.pqssh.mina.internal.server;

import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.server.ServerFactoryManager;
import org.apache.sshd.server.session.ServerSessionImpl;
import org.apache.sshd.server.session.SessionFactory;

import io.pqssh.mina.server.PqsshServerSession;

/** Creates {@link PqsshServerSession}s: {@code sshd.setSessionFactory(new PqsshSessionFactory(sshd, limit))}. */
public final class PqsshSessionFactory extends SessionFactory {
    private final PqsshServerSession.PacketLimit packetLimit;

    public PqsshSessionFactory(ServerFactoryManager server, PqsshServerSession.PacketLimit packetLimit) {
        super(server);
        this.packetLimit = packetLimit;
    }

    @Override
    protected ServerSessionImpl doCreateSession(IoSession ioSession) throws Exception {
        return new PqsshServerSession(getServer(), ioSession, packetLimit);
    }
}
