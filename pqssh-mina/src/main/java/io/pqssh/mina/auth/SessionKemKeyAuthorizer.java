package io.pqssh.mina.auth;

import org.apache.sshd.server.session.ServerSession;

import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.auth.KemKeyAuthorizer;
import io.pqssh.mina.internal.auth.ServerKemUserAuth;

/**
 * A {@link KemKeyAuthorizer} that also sees the session, so it can attach what it found (the key's
 * {@code authorized_keys} options) to the connection; {@link ServerKemUserAuth} calls this form when it can.
 */
public interface SessionKemKeyAuthorizer extends KemKeyAuthorizer {
    boolean isAuthorized(ServerSession session, String user, KemCredential credential, String clientAddress);
}
