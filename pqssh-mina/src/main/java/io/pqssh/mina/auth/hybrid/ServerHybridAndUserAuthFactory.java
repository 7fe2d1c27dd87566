package io.pqssh.mina.auth.hybrid;

import org.apache.sshd.server.auth.AbstractUserAuthFactory;
import org.apache.sshd.server.auth.UserAuth;
import org.apache.sshd.server.session.ServerSession;

/**
 * Registers {@code publickey-hybrid-and} with a MINA server. Authorization is the server's
 * {@code PublickeyAuthenticator}, as for {@code publickey}; the signature factories are the session's.
 */
public final class ServerHybridAndUserAuthFactory extends AbstractUserAuthFactory {
    public static final ServerHybridAndUserAuthFactory INSTANCE = new ServerHybridAndUserAuthFactory();

    public ServerHybridAndUserAuthFactory() {
        super(HybridAnd.NAME);
    }

    @Override
    public UserAuth createUserAuth(ServerSession session) {
        return new ServerHybridAndUserAuth(null);
    }
}
