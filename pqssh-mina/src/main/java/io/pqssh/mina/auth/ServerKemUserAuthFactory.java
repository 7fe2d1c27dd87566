package io.pqssh.mina.auth;

import java.util.Objects;

import org.apache.sshd.server.auth.AbstractUserAuthFactory;
import org.apache.sshd.server.auth.UserAuth;
import org.apache.sshd.server.session.ServerSession;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.mina.internal.auth.ServerKemUserAuth;

/** Registers one KEM method with a MINA server: add it to {@code SshServer.setUserAuthFactories}. */
public final class ServerKemUserAuthFactory extends AbstractUserAuthFactory {
    private final KemAuthMethod method;
    private final KemServerSettings settings;

    public ServerKemUserAuthFactory(KemAuthMethod method, KemServerSettings settings) {
        super(method.wireName());
        this.method = method;
        this.settings = Objects.requireNonNull(settings);
    }

    public KemServerSettings settings() {
        return settings;
    }

    @Override
    public UserAuth createUserAuth(ServerSession session) {
        return new ServerKemUserAuth(method, settings);
    }
}
