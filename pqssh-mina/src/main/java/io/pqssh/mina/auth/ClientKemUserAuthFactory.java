package io.pqssh.mina.auth;

import java.io.IOException;
import java.util.function.Function;

import org.apache.sshd.client.auth.AbstractUserAuthFactory;
import org.apache.sshd.client.auth.UserAuth;
import org.apache.sshd.client.session.ClientSession;

import io.pqssh.core.auth.KemAuthMethod;

/**
 * Registers a KEM method with a MINA client. The identity is looked up per session (a session attribute set by the
 * caller, or a fixed identity), so one client can log in to many servers with different keys.
 */
public final class ClientKemUserAuthFactory extends AbstractUserAuthFactory {
    /** Per-session identity; wins over the factory default. */
    public static final org.apache.sshd.common.AttributeRepository.AttributeKey<KemClientIdentity> IDENTITY
            = new org.apache.sshd.common.AttributeRepository.AttributeKey<>();

    private final KemAuthMethod method;
    private final Function<ClientSession, KemClientIdentity> defaultIdentity;

    public ClientKemUserAuthFactory(KemAuthMethod method) {
        this(method, s -> null);
    }

    public ClientKemUserAuthFactory(KemAuthMethod method, Function<ClientSession, KemClientIdentity> identity) {
        super(method.wireName());
        this.method = method;
        this.defaultIdentity = identity;
    }

    @Override
    public UserAuth createUserAuth(ClientSession session) throws IOException {
        KemClientIdentity id = session.getAttribute(IDENTITY);
        if (id == null) {
            id = defaultIdentity.apply(session);
        }
        return new ClientKemUserAuth(method, id);
    }
}
