package io.pqssh.mina;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.server.session.ServerSession;

import org.apache.sshd.server.SshServer;

/** Records a server's sessions so a test can assert that none of them authenticated. */
public final class ServerSessionWatch implements SessionListener {
    private final List<ServerSession> sessions = new CopyOnWriteArrayList<>();

    private ServerSessionWatch() {
    }

    public static ServerSessionWatch on(SshServer server) {
        ServerSessionWatch w = new ServerSessionWatch();
        server.addSessionListener(w);
        return w;
    }

    @Override
    public void sessionCreated(Session session) {
        if (session instanceof ServerSession s) {
            sessions.add(s);
        }
    }

    public List<ServerSession> sessions() {
        return sessions;
    }

    public boolean anyAuthenticated() {
        return sessions.stream().anyMatch(Session::isAuthenticated);
    }
}
