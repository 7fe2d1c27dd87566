package io.pqssh.server.login;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.auth.UserAuth;
import org.apache.sshd.server.auth.UserAuthFactory;
import org.apache.sshd.server.session.ServerSession;

/**
 * Puts a {@link LoginPolicy} in front of every authentication method: a request for a user name the policy refuses
 * fails like a wrong key or password, and the reason is logged once per connection at INFO (an unknown name by the
 * authentication log's {@code Invalid user} line). As sshd with its {@code fakepw()}, the method still runs for a
 * refused name, so the client sees the same messages (a keyboard-interactive prompt, then USERAUTH_FAILURE) after
 * about the same time as for a real account with a wrong key or password: the authenticators see
 * {@link #refused(ServerSession, String)} and do their look-ups against a decoy (pqssh server's FileKeyAuthorizers
 * and PasswordFile), and whatever the method answers, a refused name never authenticates. The admitted account is
 * kept on the session for the session layer ({@link #account(ServerSession)}).
 */
public final class AdmittingUserAuthFactory implements UserAuthFactory {
    private static final AttributeKey<Map<String, LoginPolicy.Admission>> ADMISSIONS = new AttributeKey<>();
    private static final AttributeKey<LoginPolicy> POLICY = new AttributeKey<>();

    private final UserAuthFactory delegate;
    private final LoginPolicy policy;

    public AdmittingUserAuthFactory(UserAuthFactory delegate, LoginPolicy policy) {
        this.delegate = delegate;
        this.policy = policy;
    }

    public static List<UserAuthFactory> wrapAll(List<UserAuthFactory> factories, LoginPolicy policy) {
        List<UserAuthFactory> out = new ArrayList<>(factories.size());
        for (UserAuthFactory f : factories) {
            out.add(new AdmittingUserAuthFactory(f, policy));
        }
        return out;
    }

    @Override
    public String getName() {
        return delegate.getName();
    }

    @Override
    public UserAuth createUserAuth(ServerSession session) throws java.io.IOException {
        return new Admitting(delegate.createUserAuth(session), policy);
    }

    /**
     * The account an authenticated session runs as, decided by the policy at login (looked up again if the
     * session authenticated through a method that did not pass here).
     */
    public static java.util.Optional<Account> account(ServerSession session) {
        String user = session.getUsername();
        LoginPolicy p = session.getAttribute(POLICY);
        if (user == null || p == null) {
            return java.util.Optional.empty();
        }
        return admission(session, p, user).account();
    }

    /** The policy in force for this session, or null when the server does not check accounts. */
    public static LoginPolicy policy(ServerSession session) {
        return session.getAttribute(POLICY);
    }

    /** Whether the login policy has refused {@code user} on this connection (false when it was not asked). */
    public static boolean refused(ServerSession session, String user) {
        Map<String, LoginPolicy.Admission> m = session.getAttribute(ADMISSIONS);
        LoginPolicy.Admission a = m == null || user == null ? null : m.get(user);
        return a != null && !a.allowed();
    }

    static LoginPolicy.Admission admission(ServerSession session, LoginPolicy policy, String user) {
        session.setAttribute(POLICY, policy);
        Map<String, LoginPolicy.Admission> m = session.computeAttributeIfAbsent(ADMISSIONS,
                k -> new ConcurrentHashMap<>());
        return m.computeIfAbsent(user, u -> {
            io.pqssh.server.ServerConfig c = io.pqssh.server.ConnectionConfig.of(session).orElse(null);
            LoginPolicy.Admission a = policy.admit(u, address(session), c == null ? LoginPolicy.ShellCheck.LOGIN_SHELL
                    : LoginPolicy.ShellCheck.of(c.chrootDirectory, c.forceCommand));
            if (!a.allowed() && !a.unknownUser()) {
                // "Invalid user" is the authentication log's (SshdLog, with the builder's validUser)
                io.pqssh.mina.internal.log.SshdLog.notAllowed(a.refusal());
            }
            return a;
        });
    }

    /** The client's address as sshd's {@code ssh_remote_ipaddr} (UseDNS no: the address is the host name). */
    private static String address(ServerSession session) {
        if (session.getClientAddress() instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return null;
    }

    /** One request's method; for a refused user name it runs too, but only "pending" or FALSE comes out of it. */
    private static final class Admitting implements UserAuth {
        private final UserAuth delegate;
        private final LoginPolicy policy;
        private String refusedUser;

        Admitting(UserAuth delegate, LoginPolicy policy) {
            this.delegate = delegate;
            this.policy = policy;
        }

        @Override
        public Boolean auth(ServerSession session, String username, String service, Buffer buffer)
                throws Exception {
            if (!admission(session, policy, username).allowed()) {
                refusedUser = username;
                return neverTrue(delegate.auth(session, username, service, buffer));
            }
            return delegate.auth(session, username, service, buffer);
        }

        @Override
        public Boolean next(Buffer buffer) throws Exception {
            Boolean r = delegate.next(buffer);
            return refusedUser != null ? neverTrue(r) : r;
        }

        /** null (a challenge is pending: the decoy's prompt) stays, anything else is a failure. */
        private static Boolean neverTrue(Boolean result) {
            return result == null ? null : Boolean.FALSE;
        }

        @Override
        public void destroy() {
            delegate.destroy();
        }

        @Override
        public String getUsername() {
            return refusedUser != null ? refusedUser : delegate.getUsername();
        }

        @Override
        public ServerSession getServerSession() {
            return delegate.getServerSession();
        }

        @Override
        public ServerSession getSession() {
            return delegate.getSession();
        }

        @Override
        public String getName() {
            return delegate.getName();
        }
    }
}
