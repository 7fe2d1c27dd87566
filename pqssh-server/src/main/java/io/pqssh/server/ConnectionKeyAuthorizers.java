package io.pqssh.server;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.server.session.ServerSession;

import io.pqssh.core.auth.KemCredential;
import io.pqssh.mina.auth.SessionKemKeyAuthorizer;

/**
 * The key authorizers of {@code pqssh server}, each connection's taken from its Match evaluation
 * ({@link ConnectionConfig}), as sshd reads AuthorizedKeysFile, AuthorizedKeysCommand and the certificate settings
 * from the connection's effective configuration: the same for {@code publickey}, {@code publickey-kem} and
 * {@code publickey-kem-and} (whose signature half goes through {@code publickey}'s authenticator). One
 * {@link FileKeyAuthorizers} per distinct combination of the per-connection settings, made when first needed; the
 * server-wide one when a connection's settings are the server's (or nothing was evaluated).
 */
public final class ConnectionKeyAuthorizers {
    private final ServerConfig global;
    private final FileKeyAuthorizers globalAuthorizers;
    private final List<Object> globalInputs;
    private final ConcurrentHashMap<List<Object>, FileKeyAuthorizers> byInputs = new ConcurrentHashMap<>();

    public ConnectionKeyAuthorizers(ServerConfig global) {
        this.global = global;
        this.globalAuthorizers = authorizers(global);
        this.globalInputs = inputs(global);
    }

    /** publickey: the connection's authorized keys, certificates and commands. */
    public CertificateOptionsEnforcing publickey() {
        return (user, key, session) -> forSession(session).publickey().authenticate(user, key, session);
    }

    /** publickey-kem and publickey-kem-and: the same per-connection files and commands as {@link #publickey()}. */
    public SessionKemKeyAuthorizer kem() {
        return new SessionKemKeyAuthorizer() {
            @Override
            public boolean isAuthorized(ServerSession session, String user, KemCredential c, String addr) {
                return forSession(session).kem().isAuthorized(session, user, c, addr);
            }

            @Override
            public boolean isAuthorized(String user, KemCredential c, String addr) {
                // no session, so no Match evaluation: the server-wide settings
                return globalAuthorizers.kem().isAuthorized(user, c, addr);
            }
        };
    }

    /** The authorizers for the connection's evaluated settings. */
    FileKeyAuthorizers forSession(ServerSession session) {
        ServerConfig c = ConnectionConfig.of(session).orElse(global);
        List<Object> in = inputs(c);
        return in.equals(globalInputs) ? globalAuthorizers : byInputs.computeIfAbsent(in, k -> authorizers(c));
    }

    /**
     * Authorizers from {@code c}'s per-connection settings; the keywords pqssh applies server-wide only
     * (AuthorizedKEMKeysFile, StrictModes, CASignatureAlgorithms, RevokedKeys) from the server's.
     */
    private FileKeyAuthorizers authorizers(ServerConfig c) {
        return new FileKeyAuthorizers(c.authorizedKeysFile, global.authorizedKemKeysFile, global.strictModes)
                .certificates(c.trustedUserCaKeys, c.authorizedPrincipalsFile, global.caSignatureAlgorithms)
                .principalsCommand(c.authorizedPrincipalsCommand, c.authorizedPrincipalsCommandUser)
                .keysCommand(c.authorizedKeysCommand, c.authorizedKeysCommandUser).revokedKeys(global.revokedKeys);
    }

    /** The per-connection settings an authorizer is made from. */
    private static List<Object> inputs(ServerConfig c) {
        return Arrays.asList(c.authorizedKeysFile, c.trustedUserCaKeys, c.authorizedPrincipalsFile,
                c.authorizedPrincipalsCommand, c.authorizedPrincipalsCommandUser, c.authorizedKeysCommand,
                c.authorizedKeysCommandUser);
    }
}
