package io.pqssh.client;

import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.apache.sshd.server.forward.ForwardingFilter;

/**
 * The client's side of forwarding: a server may open {@code forwarded-tcpip} channels (for the client's -R
 * listeners; MINA then connects only to the target the client configured for that port), nothing else. A server never
 * gets to make the client listen or connect anywhere on its own.
 */
public final class ClientForwardingFilter implements ForwardingFilter {
    public static final ClientForwardingFilter INSTANCE = new ClientForwardingFilter();

    private ClientForwardingFilter() {
    }

    @Override
    public boolean canForwardAgent(Session session, String requestType) {
        return false;
    }

    @Override
    public boolean canForwardX11(Session session, String requestType) {
        return false;
    }

    @Override
    public boolean canListen(SshdSocketAddress address, Session session) {
        return false; // asked only for a peer's tcpip-forward request, which a client never serves
    }

    @Override
    public boolean canConnect(Type type, SshdSocketAddress address, Session session) {
        return type == Type.Forwarded;
    }
}
