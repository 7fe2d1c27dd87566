package io.pqssh.server;

import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.server.auth.pubkey.PublickeyAuthenticator;
import org.apache.sshd.server.auth.pubkey.UserAuthPublicKey;
import org.apache.sshd.server.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.server.session.ServerSession;

/**
 * A {@link PublickeyAuthenticator} that checks a certificate's critical options itself and makes the session
 * enforce {@code force-command} (pqssh's {@link FileKeyAuthorizers}). MINA refuses every certificate carrying
 * {@code force-command} ("not implemented yet"); with such an authenticator the server uses
 * {@link #USER_AUTH_FACTORY}, which leaves that option to it. Any other authenticator keeps MINA's refusal, so a
 * forced command is never silently dropped.
 */
public interface CertificateOptionsEnforcing extends PublickeyAuthenticator {
    /** publickey with MINA's critical-option check replaced by the authenticator's. */
    UserAuthPublicKeyFactory USER_AUTH_FACTORY = new UserAuthPublicKeyFactory() {
        @Override
        public UserAuthPublicKey createUserAuth(ServerSession session) {
            return new UserAuthPublicKey(getSignatureFactories()) {
                @Override
                protected void verifyCriticalOptions(ServerSession s, OpenSshCertificate cert) {
                    // CertificateAuthorizer refuses unknown critical options and enforces the known ones
                }
            };
        }
    };
}
