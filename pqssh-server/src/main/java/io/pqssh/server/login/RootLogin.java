package io.pqssh.server.login;

import java.util.Locale;

import org.apache.sshd.server.auth.password.PasswordAuthenticator;
import org.apache.sshd.server.auth.pubkey.PublickeyAuthenticator;
import org.apache.sshd.server.session.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.auth.KemCredential;
import io.pqssh.mina.auth.SessionKemKeyAuthorizer;

/**
 * sshd's {@code PermitRootLogin} (yes, prohibit-password, forced-commands-only, no) around the authenticators: an
 * account with uid 0 gets in only by the methods the mode allows. A refused password is still checked first, so a
 * refusal takes as long as a wrong password and says nothing about whether the password was right.
 */
public final class RootLogin {
    // sshd logs this refusal in its auth log; the same logger as the other sshd lines
    private static final Logger LOG = LoggerFactory.getLogger("io.pqssh.sshd");

    /** The modes, as ServerConfig normalises them. */
    public enum Mode {
        YES, PROHIBIT_PASSWORD, FORCED_COMMANDS_ONLY, NO;

        public static Mode parse(String v) {
            return switch (v.toLowerCase(Locale.ROOT)) {
                case "yes" -> YES;
                case "prohibit-password", "without-password" -> PROHIBIT_PASSWORD;
                case "forced-commands-only" -> FORCED_COMMANDS_ONLY;
                case "no" -> NO;
                default -> throw new IllegalArgumentException("unsupported PermitRootLogin '" + v + "'");
            };
        }
    }

    private final Mode mode;
    private final AccountSource accounts;

    public RootLogin(Mode mode, AccountSource accounts) {
        this.mode = mode;
        this.accounts = accounts;
    }

    /** sshd checks the uid, not the name: any uid-0 alias of root is root. */
    private boolean isRoot(String user) {
        return accounts.byName(user).map(a -> a.uid() == 0).orElse(false);
    }

    private void refused(ServerSession session) {
        LOG.info("ROOT LOGIN REFUSED FROM {}", session == null ? "?" : session.getClientAddress());
    }

    /** The connection's PermitRootLogin (a Match block's, once evaluated), else the server's. */
    private Mode mode(ServerSession session) {
        return io.pqssh.server.ConnectionConfig.get(session, c -> Mode.parse(c.permitRootLogin), mode);
    }

    /** Password and keyboard-interactive: root only with PermitRootLogin yes. */
    public PasswordAuthenticator password(PasswordAuthenticator inner) {
        return (user, password, session) -> {
            boolean ok = inner.authenticate(user, password, session);
            if (ok && mode(session) != Mode.YES && isRoot(user)) {
                refused(session);
                return false;
            }
            return ok;
        };
    }

    /** A key: root unless no; with forced-commands-only, only a key whose options carry {@code command=}. */
    public PublickeyAuthenticator publickey(PublickeyAuthenticator inner) {
        if (inner instanceof io.pqssh.server.CertificateOptionsEnforcing) {
            // keeps the marker that lets certificates with force-command through (CertificateOptionsEnforcing)
            return (io.pqssh.server.CertificateOptionsEnforcing) (user, key, session) ->
                    inner.authenticate(user, key, session) && keyAllowed(user, session);
        }
        return (user, key, session) -> inner.authenticate(user, key, session) && keyAllowed(user, session);
    }

    public SessionKemKeyAuthorizer kem(SessionKemKeyAuthorizer inner) {
        return new SessionKemKeyAuthorizer() {
            @Override
            public boolean isAuthorized(ServerSession session, String user, KemCredential c, String addr) {
                return inner.isAuthorized(session, user, c, addr) && keyAllowed(user, session);
            }

            @Override
            public boolean isAuthorized(String user, KemCredential c, String addr) {
                // no session to read the key's command= from: only a non-root login can pass
                boolean ok = inner.isAuthorized(user, c, addr);
                return ok && (mode == Mode.YES || mode == Mode.PROHIBIT_PASSWORD || !isRoot(user));
            }
        };
    }

    private boolean keyAllowed(String user, ServerSession session) {
        Mode mode = mode(session);
        if (mode == Mode.YES || mode == Mode.PROHIBIT_PASSWORD || !isRoot(user)) {
            return true;
        }
        if (mode == Mode.FORCED_COMMANDS_ONLY && KeyRestrictions.of(session).forcedCommand().isPresent()) {
            return true;
        }
        refused(session);
        return false;
    }
}
