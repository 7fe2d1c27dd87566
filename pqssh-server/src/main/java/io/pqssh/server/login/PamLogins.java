package io.pqssh.server.login;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.server.session.ServerSession;

/**
 * {@code UsePAM yes}: one PAM transaction per connection for the user who logs in, as sshd's auth-pam.c keeps one:
 * started with the service name ({@code sshd} unless a test says otherwise), {@code PAM_RHOST} the client's address
 * and {@code PAM_TTY} {@code ssh} (what sshd sets before a pty exists); {@code pam_acct_mgmt} after every method
 * that authenticates ({@link #account}), keyboard-interactive through {@code pam_authenticate}'s conversation
 * ({@link PamKeyboardInteractive}); {@code pam_end} when the connection closes. Immutable; the transaction lives on
 * the session.
 */
public final class PamLogins {
    /** sshd's PAM service name (its argv[0] basename, {@code sshd}: /etc/pam.d/sshd). */
    public static final String SSHD = "sshd";
    private static final AttributeKey<Transaction> KEY = new AttributeKey<>();
    private static final AttributeKey<Object> LOCK = new AttributeKey<>();

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PamLogins.class);

    private final String service;
    private final java.nio.file.Path sessionHelper;

    /** Account checks and keyboard-interactive only: no session stack. */
    public PamLogins(String service) {
        this(service, null);
    }

    private PamLogins(String service, java.nio.file.Path sessionHelper) {
        if (service == null || !service.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("bad PAM service name: " + service);
        }
        this.service = service;
        this.sessionHelper = sessionHelper;
    }

    /**
     * {@code UsePAM yes}: fails at start, in one line, when libpam cannot be used, or when the server runs as root
     * and the session helper ({@link PamSessionHelper}) is missing or unsafe. As root every session runs PAM's
     * session stack through it; a server running as another user cannot (pam_loginuid, pam_limits and pam_systemd
     * need root) and says so once.
     */
    public static PamLogins checked(String service) {
        String why = Pam.unavailableReason();
        if (why != null) {
            throw new IllegalStateException("UsePAM yes: " + why);
        }
        if (ProcessIdentity.current().uid() != 0) {
            LOG.warn("UsePAM yes: the PAM session stack (pam_open_session) is run only by a server running as root;"
                    + " not run");
            return new PamLogins(service);
        }
        try {
            return new PamLogins(service, PamSessionHelper.locate());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("UsePAM yes: " + e.getMessage(), e);
        }
    }

    public String service() {
        return service;
    }

    /** The helper that runs the session stack around each session ({@code pqssh-pam-session}), or empty. */
    public Optional<java.nio.file.Path> sessionHelper() {
        return Optional.ofNullable(sessionHelper);
    }

    /**
     * sshd's {@code do_pam_account}: empty when PAM's account stack allows {@code user}, else the line sshd logs
     * before it ends the connection. Messages a module shows (password expiry warnings) are returned in
     * {@code shown} for the client.
     */
    public Optional<String> account(ServerSession session, String user, List<String> shown) {
        int rc;
        try {
            Transaction t = transaction(session, user);
            rc = t.run(messages -> {
                List<String> answers = new ArrayList<>();
                for (Pam.Message m : messages) {
                    if (m.prompt()) {
                        return null; // as sshd's non-interactive conversation: no questions here
                    }
                    shown.add(m.text());
                    answers.add(null);
                }
                return answers;
            }, pam -> pam.acctMgmt(0));
        } catch (Pam.PamException e) {
            return Optional.of("Access denied for user " + user + " by PAM account configuration (" + e.getMessage()
                    + ")");
        }
        return rc == Pam.SUCCESS ? Optional.empty()
                : Optional.of("Access denied for user " + user + " by PAM account configuration");
    }

    /** The connection's transaction for {@code user}, started on first use. */
    Transaction transaction(ServerSession session, String user) throws Pam.PamException {
        if (user.indexOf('\0') >= 0) {
            // C would see the name cut at the NUL: another account's name
            throw new Pam.PamException("user name with a NUL byte", Pam.USER_UNKNOWN);
        }
        synchronized (session.computeAttributeIfAbsent(LOCK, k -> new Object())) {
            Transaction t = session.getAttribute(KEY);
            if (t != null && t.user.equals(user)) {
                return t;
            }
            if (t != null) {
                t.pam.close(); // sshd refuses a change of user; MINA lets the client try another name
            }
            Transaction fresh = new Transaction(user);
            fresh.pam = Pam.start(service, user, fresh::converse);
            try {
                if (session.getClientAddress() instanceof InetSocketAddress a && a.getAddress() != null) {
                    fresh.pam.setItem(Pam.ITEM_RHOST, a.getAddress().getHostAddress());
                }
                fresh.pam.setItem(Pam.ITEM_TTY, "ssh");
            } catch (Pam.PamException e) {
                fresh.pam.close();
                throw e;
            }
            session.setAttribute(KEY, fresh);
            session.addCloseFutureListener(f -> fresh.pam.close());
            return fresh;
        }
    }

    /** A PAM transaction whose conversation is whoever runs the current call. */
    static final class Transaction {
        final String user;
        Pam pam;
        private volatile Pam.Conversation current;

        Transaction(String user) {
            this.user = Objects.requireNonNull(user);
        }

        List<String> converse(List<Pam.Message> messages) throws Exception {
            Pam.Conversation c = current;
            return c == null ? null : c.respond(messages);
        }

        int run(Pam.Conversation conversation, java.util.function.ToIntFunction<Pam> call) {
            synchronized (this) {
                current = conversation;
                try {
                    return call.applyAsInt(pam);
                } finally {
                    current = null;
                }
            }
        }
    }

    @Override
    public String toString() {
        return "PAM service " + service;
    }
}
