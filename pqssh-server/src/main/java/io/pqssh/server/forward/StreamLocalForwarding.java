package io.pqssh.server.forward;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.channel.ChannelFactory;
import org.apache.sshd.common.channel.RequestHandler;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.session.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.common.forward.LocalForwardListener;
import io.pqssh.common.forward.LocalTarget;
import io.pqssh.common.forward.RelayChannel;
import io.pqssh.server.login.Account;
import io.pqssh.server.login.AdmittingUserAuthFactory;
import io.pqssh.server.login.KeyRestrictions;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.ProcessIdentity;

/**
 * The server side of OpenSSH's Unix-domain socket forwarding (PROTOCOL section 2.4): {@code
 * direct-streamlocal@openssh.com} channels (the client's {@code -L …:/path}) and the {@code
 * streamlocal-forward@openssh.com} / {@code cancel-streamlocal-forward@openssh.com} requests (the client's
 * {@code -R /path:…}), whose connections go back as {@code forwarded-streamlocal@openssh.com} channels. As sshd:
 * {@code AllowStreamLocalForwarding}, {@code DisableForwarding}, the key's {@code no-port-forwarding}/{@code restrict},
 * {@code StreamLocalBindMask}, {@code StreamLocalBindUnlink}.
 *
 * <p>sshd connects and listens in the user's own process, so the kernel checks the user's permissions. pqssh does
 * it in the server's JVM when the JVM runs as that user (a non-root server, or root logging in as root). A root
 * server listens for another account through a process running as that account ({@link UserSocketListener}), and
 * refuses {@code direct-streamlocal} for other accounts rather than connect with root's rights.
 */
public final class StreamLocalForwarding {
    private static final Logger LOG = LoggerFactory.getLogger(StreamLocalForwarding.class);
    private static final AttributeKey<Map<String, java.io.Closeable>> LISTENERS = new AttributeKey<>();
    static final String FORWARD = "streamlocal-forward@openssh.com";
    static final String CANCEL = "cancel-streamlocal-forward@openssh.com";

    private final ForwardingPolicy global;

    public StreamLocalForwarding(ForwardingPolicy policy) {
        this.global = Objects.requireNonNull(policy);
    }

    /** The connection's forwarding keywords: its Match evaluation's, else the server's. */
    private ForwardingPolicy policy(Session session) {
        return io.pqssh.server.ConnectionConfig.get(session, c -> c.forwarding, global);
    }

    /** The {@code direct-streamlocal@openssh.com} channel factory. */
    public ChannelFactory channelFactory() {
        return new ChannelFactory() {
            @Override
            public String getName() {
                return "direct-streamlocal@openssh.com";
            }

            @Override
            public Channel createChannel(Session session) {
                return new RelayChannel(b -> {
                    String path = b.getString();
                    b.getString(); // reserved
                    b.getUInt(); // reserved
                    String refusal = refusal(session, policy(session).localStreamLocalAllowed(), "connection to " + path);
                    if (refusal != null) {
                        LOG.info("{}: refused: {}", session.getRemoteAddress(), refusal);
                        return null;
                    }
                    return RelayChannel.Route.to(LocalTarget.unix(Path.of(path)));
                });
            }
        };
    }

    /** The global request handler for {@code streamlocal-forward} and its cancel. */
    public RequestHandler<ConnectionService> requestHandler() {
        return (service, request, wantReply, buffer) -> {
            if (!FORWARD.equals(request) && !CANCEL.equals(request)) {
                return RequestHandler.Result.Unsupported;
            }
            Session session = service.getSession();
            String path = buffer.getString();
            Map<String, java.io.Closeable> listeners = session.computeAttributeIfAbsent(LISTENERS,
                    k -> new ConcurrentHashMap<>());
            if (CANCEL.equals(request)) {
                java.io.Closeable l = listeners.remove(path);
                if (l == null) {
                    return RequestHandler.Result.ReplyFailure;
                }
                try {
                    l.close();
                } catch (IOException e) {
                    LOG.debug("{}: closing {}: {}", session.getRemoteAddress(), path, e.getMessage());
                }
                return RequestHandler.Result.ReplySuccess;
            }
            Optional<Account> other = otherAccount(session);
            String refusal = other.isPresent() && UserSocketListener.available()
                    ? refusalBeforeAccount(session, policy(session).remoteStreamLocalAllowed(), "listener on " + path)
                    : refusal(session, policy(session).remoteStreamLocalAllowed(), "listener on " + path);
            if (refusal != null) {
                LOG.info("{}: refused: {}", session.getRemoteAddress(), refusal);
                return RequestHandler.Result.ReplyFailure;
            }
            if (listeners.containsKey(path)) {
                LOG.info("{}: refused: {} is already forwarded", session.getRemoteAddress(), path);
                return RequestHandler.Result.ReplyFailure;
            }
            try {
                java.util.function.Consumer<String> debug = m -> LOG.debug("{}: {}", session.getRemoteAddress(), m);
                LocalForwardListener.Opening opening = LocalForwardListener.Opening.forwardedStreamLocal(path);
                // a root server listens for another account as sshd does: in a process running as that account
                java.io.Closeable l = other.isPresent()
                        ? UserSocketListener.start(session, other.get(), path, policy(session).streamLocalBindMask(),
                                policy(session).streamLocalBindUnlink(), opening, debug)
                        : LocalForwardListener.unix(session, Path.of(path), policy(session).streamLocalBindMask(),
                                policy(session).streamLocalBindUnlink(), opening, debug);
                listeners.put(path, l);
                return RequestHandler.Result.ReplySuccess;
            } catch (IOException | RuntimeException e) {
                LOG.info("{}: streamlocal-forward {} failed: {}", session.getRemoteAddress(), path, e.getMessage());
                return RequestHandler.Result.ReplyFailure;
            }
        };
    }

    /** Why {@code what} is refused for this session, or null when it is allowed. */
    static String refusal(Session session, boolean allowedByKeyword, String what) {
        String r = refusalBeforeAccount(session, allowedByKeyword, what);
        if (r != null) {
            return r;
        }
        ServerSession s = (ServerSession) session;
        return otherUser(AdmittingUserAuthFactory.policy(s), AdmittingUserAuthFactory.account(s),
                ProcessIdentity.current().uid(), what);
    }

    /** The session's account when it is not this process's user (a root server's login of another account). */
    private static Optional<Account> otherAccount(Session session) {
        if (!(session instanceof ServerSession)) {
            return Optional.empty();
        }
        ServerSession s = (ServerSession) session;
        Optional<Account> account = AdmittingUserAuthFactory.account(s);
        return otherUser(AdmittingUserAuthFactory.policy(s), account, ProcessIdentity.current().uid(), "") == null
                ? Optional.empty() : account;
    }

    /** The keyword and key-option checks of {@link #refusal}, without the account check. */
    private static String refusalBeforeAccount(Session session, boolean allowedByKeyword, String what) {
        if (!allowedByKeyword) {
            return what + " disabled by AllowStreamLocalForwarding/DisableForwarding";
        }
        if (!(session instanceof ServerSession)) {
            return what + ": not a server session";
        }
        ServerSession s = (ServerSession) session;
        if (!KeyRestrictions.of(s).portForwardingAllowed()) {
            return what + " disabled by the key's options";
        }
        return null;
    }

    /**
     * Non-null when the session's account is not the JVM's own user: this process would create or connect to the
     * socket with its own (root's) rights instead of the user's.
     */
    static String otherUser(LoginPolicy policy, Optional<Account> account, long processUid, String what) {
        if (policy == null || !policy.switchesUsers() || account.isEmpty() || account.get().uid() == processUid) {
            return null;
        }
        return what + " for " + account.get().name() + ": Unix-domain socket forwarding is served only when pqssh"
                + " server runs as the logged-in user (this server runs as uid " + processUid + "; sshd connects in"
                + " the user's own process, pqssh does not yet; a listener (-R) is served, by a process running as"
                + " the user, when " + UserSocketListener.SETPRIV + " and " + UserSocketListener.PERL + " exist)";
    }
}
