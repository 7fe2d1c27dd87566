package io.pqssh.server.session;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.server.session.ServerSession;
import org.apache.sshd.server.session.ServerUserAuthService;

import io.pqssh.mina.internal.auth.AuthAttempt;
import io.pqssh.mina.internal.log.SshdLog;
import io.pqssh.mina.server.PqsshServerSession;

/**
 * MINA's user-auth service with sshd's rules ({@code auth2.c}), one instance per connection (see
 * {@link PqsshServerSession} for why a repeated SERVICE_REQUEST does not build a second one):
 * <ul>
 * <li>{@code MaxAuthTries}: a failed request counts, except the very first request of the connection when it is
 * {@code none}; partial success and a challenge still pending (KEM challenge, publickey PK_OK) do not count. When
 * the failures reach MaxAuthTries the connection is ended with "Too many authentication failures" instead of a
 * FAILURE reply (sshd's {@code auth_maxtries_exceeded}); so {@code MaxAuthTries 6} allows 5 FAILURE replies. At most
 * 1024 requests per connection, whatever happens to them.</li>
 * <li>{@code AuthenticationMethods} with sub-methods ({@code publickey-kem:mlkem768}), see
 * {@link AuthenticationMethods}; the FAILURE method list is the server's methods allowed next, in server order.</li>
 * <li>A method name that is unknown, disabled or not allowed now fails without reaching MINA's method lookup, whose
 * WARN line would print the peer's bytes unescaped.</li>
 * <li>sshd's log lines: Accepted, Partial, Failed (not for {@code none}), Invalid user, maximum authentication
 * attempts exceeded.</li>
 * </ul>
 */
public class PqsshUserAuthService extends ServerUserAuthService implements PqsshServerSession.ResumableUserAuth {
    /** sshd's cap on USERAUTH_REQUESTs per connection ({@code authctxt->attempt >= 1024}). */
    public static final int MAX_REQUESTS = 1024;
    private static final String NONE = "none";

    private final PqsshUserAuthServiceFactory.Settings settings;
    private List<String> methodOrder;
    private AuthenticationMethods.Progress progress;
    private int maxAuthTries;
    private int requests;
    private int failures;
    private String user;
    private boolean validUser = true;
    private String method;

    public PqsshUserAuthService(Session s, PqsshUserAuthServiceFactory.Settings settings) throws IOException {
        super(s);
        this.settings = settings;
        ServerSession session = getServerSession();
        this.methodOrder = session.getUserAuthFactories().stream().map(NamedResource::getName).toList();
        this.progress = settings.methods().start(methodOrder);
        this.maxAuthTries = settings.maxAuthTries();
        AuthAttempt.installFilter(session, (m, sub) -> {
            synchronized (this) {
                return progress.allows(m, sub);
            }
        });
    }

    /**
     * sshd's Match evaluation once the user is known (sshd changes neither user nor service after that: MINA's
     * service refuses a change of user, so the evaluation holds for the connection). The settings stay on the
     * session for everything after authentication; here they decide MaxAuthTries, AuthenticationMethods, which
     * methods are enabled and the banner. An evaluation that fails ends the connection (fail closed).
     */
    private boolean matchConnection(ServerSession session, String requestUser) throws IOException {
        PqsshUserAuthServiceFactory.PerConnection pc = settings.perConnection();
        io.pqssh.server.ServerConfig c;
        AuthenticationMethods methods;
        try {
            c = pc.evaluator().evaluate(pc.evaluator().describe(requestUser, session.getClientAddress(),
                    session.getIoSession().getLocalAddress()));
            methods = pc.methods().apply(c.authenticationMethods);
        } catch (io.pqssh.server.ServerConfig.ConfigException | RuntimeException e) {
            SshdLog.notAllowed("fatal: Match evaluation for " + io.pqssh.mina.internal.log.LogText.escape(requestUser)
                    + " failed: " + io.pqssh.mina.internal.log.LogText.escape(String.valueOf(e.getMessage()))
                    + " [preauth]");
            session.close(false);
            return false;
        }
        session.setAttribute(io.pqssh.server.ConnectionConfig.KEY, c);
        synchronized (this) {
            methodOrder = methodOrder.stream().filter(m -> enabled(c, m)).toList();
            progress = methods.start(methodOrder);
            maxAuthTries = c.maxAuthTries;
        }
        return true;
    }

    /** Whether the connection's settings enable {@code method} (the KEM methods are configured server-wide only). */
    static boolean enabled(io.pqssh.server.ServerConfig c, String method) {
        return switch (method) {
            case "publickey", "publickey-hybrid-and" -> c.pubkeyAuthentication;
            case "password" -> c.passwordAuthentication;
            case "keyboard-interactive" -> c.kbdInteractiveAuthentication;
            default -> true;
        };
    }

    /** The connection's Banner once Match is evaluated; the server-wide one otherwise. */
    @Override
    protected String resolveWelcomeBanner(ServerSession session) throws IOException {
        java.util.Optional<io.pqssh.server.ServerConfig> c = io.pqssh.server.ConnectionConfig.of(session);
        if (c.isEmpty()) {
            return super.resolveWelcomeBanner(session);
        }
        java.nio.file.Path banner = c.get().banner;
        if (banner == null) {
            return null;
        }
        try {
            return java.nio.file.Files.readString(banner);
        } catch (IOException e) {
            return null; // sshd sends no banner when it cannot read the file
        }
    }

    /** Failed requests counted against MaxAuthTries so far. */
    public synchronized int failures() {
        return failures;
    }

    @Override
    protected boolean handleUserAuthRequestMessage(ServerSession session, Buffer buffer,
            AtomicReference<Boolean> authHolder) throws Exception {
        if (session.isAuthenticated()) {
            return super.handleUserAuthRequestMessage(session, buffer, authHolder); // ignored, RFC 4252 5.1
        }
        int start = buffer.rpos();
        String requestUser = buffer.getString();
        String service = buffer.getString();
        String requestMethod = buffer.getString();
        buffer.rpos(start);
        requests++;
        if (requests > MAX_REQUESTS) {
            tooMany(session);
            return false;
        }
        if (user == null) {
            user = requestUser;
            validUser = settings.validUser().test(requestUser);
            if (!validUser) {
                SshdLog.invalidUser(session.getClientAddress(), requestUser);
            }
            if (session instanceof PqsshServerSession p) {
                p.authenticatingUser(requestUser, validUser);
            }
            if (settings.perConnection() != null && !matchConnection(session, requestUser)) {
                return false;
            }
        }
        method = requestMethod;
        AuthAttempt.begin(session);
        if (!methodOrder.contains(requestMethod) || !progress.allows(requestMethod)) {
            // fails as "none" does in MINA: no method runs, and MINA never sees (nor logs) the peer's method name
            Buffer none = new ByteArrayBuffer(requestUser.length() + service.length() + 32);
            none.putString(requestUser);
            none.putString(service);
            none.putString(NONE);
            return super.handleUserAuthRequestMessage(session, none, authHolder);
        }
        return super.handleUserAuthRequestMessage(session, buffer, authHolder);
    }

    @Override
    protected void handleAuthenticationSuccess(int cmd, Buffer buffer) throws Exception {
        ServerSession session = getServerSession();
        String keys = AuthAttempt.keys(session);
        if (progress.succeeded(method, AuthAttempt.submethod(session))) {
            SshdLog.accepted(session.getClientAddress(), method, user, keys);
            if (!pamAccount(session)) {
                return;
            }
            super.handleAuthenticationSuccess(cmd, buffer);
            return;
        }
        SshdLog.partial(session.getClientAddress(), method, user, keys);
        reply(session, true);
    }

    @Override
    protected void handleAuthenticationFailure(int cmd, Buffer buffer) throws Exception {
        ServerSession session = getServerSession();
        String m = method == null ? NONE : method;
        // sshd: "Allow initial try of "none" auth without failure penalty"
        if (requests > 1 || !NONE.equals(m)) {
            failures++;
        }
        if (validUser && session instanceof PqsshServerSession p && !valid(session)) {
            p.authenticatingUser(user, false); // "Connection closed by invalid user ..." from now on, as sshd
        }
        if (!NONE.equals(m)) {
            SshdLog.failed(session.getClientAddress(), m, user, valid(session), AuthAttempt.keys(session));
        }
        if (failures >= maxAuthTries) {
            tooMany(session);
            return;
        }
        reply(session, false);
    }

    /**
     * {@code UsePAM yes}: sshd's {@code do_pam_account} after whichever method authenticated; what the account
     * modules say goes to the client as a banner, and a denial ends the connection as sshd's {@code fatal} does
     * (no SSH_MSG_USERAUTH_SUCCESS, no disconnect message).
     */
    private boolean pamAccount(ServerSession session) throws IOException {
        io.pqssh.server.login.LoginPolicy policy = io.pqssh.server.login.AdmittingUserAuthFactory.policy(session);
        if (policy == null || policy.pam().isEmpty()) {
            return true;
        }
        List<String> shown = new java.util.ArrayList<>();
        java.util.Optional<String> denied = policy.pam().get().account(session, user, shown);
        if (!shown.isEmpty()) {
            Buffer banner = session.createBuffer(SshConstants.SSH_MSG_USERAUTH_BANNER, 256);
            banner.putString(String.join("\n", shown) + "\n");
            banner.putString("");
            session.writePacket(banner);
        }
        if (denied.isEmpty()) {
            return true;
        }
        SshdLog.notAllowed("fatal: " + io.pqssh.mina.internal.log.LogText.escape(denied.get()) + " [preauth]");
        session.close(false);
        return false;
    }

    /** As sshd's authctxt->valid: an account the login policy refused (DenyUsers, locked, ...) is an invalid user. */
    private boolean valid(ServerSession session) {
        return validUser && !io.pqssh.server.login.AdmittingUserAuthFactory.refused(session, user);
    }

    private void tooMany(ServerSession session) throws IOException {
        SshdLog.maxAuthTriesExceeded(session.getClientAddress(), user, valid(session));
        // sshd sends this text with PROTOCOL_ERROR; MINA replaces the text of PROTOCOL_ERROR with a generic one, so
        // the reason is NO_MORE_AUTH_METHODS_AVAILABLE, which keeps the text
        session.disconnect(SshConstants.SSH2_DISCONNECT_NO_MORE_AUTH_METHODS_AVAILABLE,
                "Too many authentication failures");
    }

    private void reply(ServerSession session, boolean partialSuccess) throws IOException {
        String next = progress.nextMethods();
        Buffer out = session.createBuffer(SshConstants.SSH_MSG_USERAUTH_FAILURE, next.length() + 8);
        out.putString(next);
        out.putBoolean(partialSuccess);
        session.writePacket(out);
    }
}
