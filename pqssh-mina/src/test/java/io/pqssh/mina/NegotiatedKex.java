package io.pqssh.mina;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.server.SshServer;

/** What a server negotiated with each client, "kex hostkey", by the client's port, as the server saw it. */
public final class NegotiatedKex implements SessionListener {
    private final Map<Integer, String> byClientPort = new ConcurrentHashMap<>();

    private NegotiatedKex() {
    }

    public static NegotiatedKex on(SshServer server) {
        NegotiatedKex n = new NegotiatedKex();
        server.addSessionListener(n);
        return n;
    }

    @Override
    public void sessionNegotiationEnd(Session session, Map<KexProposalOption, String> c,
            Map<KexProposalOption, String> s, Map<KexProposalOption, String> negotiated, Throwable reason) {
        if (negotiated != null) {
            byClientPort.put(((InetSocketAddress) session.getRemoteAddress()).getPort(),
                    negotiated.get(KexProposalOption.ALGORITHMS) + " " + negotiated.get(KexProposalOption.SERVERKEYS));
        }
    }

    /** "kex hostkey" negotiated with the client at {@code clientPort}, or null. */
    public String withClientPort(int clientPort) {
        return byClientPort.get(clientPort);
    }
}
