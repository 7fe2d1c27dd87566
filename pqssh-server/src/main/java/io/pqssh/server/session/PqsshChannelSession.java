package io.pqssh.server.session;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.channel.ChannelFactory;
import org.apache.sshd.common.channel.PtyMode;
import org.apache.sshd.common.channel.RequestHandler;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.session.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.keys.authorized.OpenSshPatterns;
import io.pqssh.server.login.KeyRestrictions;
import io.pqssh.server.x11.X11Forward;
import io.pqssh.server.x11.X11Settings;

/**
 * A session channel that obeys the {@link KeyRestrictions} of the keys that logged the connection in, as sshd
 * does: {@code no-pty}/{@code restrict} make a {@code pty-req} fail (CHANNEL_FAILURE, the session goes on without
 * a terminal); {@code command=} replaces the command of every exec, shell and subsystem request, the requested
 * command (or subsystem name) in {@code SSH_ORIGINAL_COMMAND}.
 */
public class PqsshChannelSession extends ChannelSession {
    static final String ORIGINAL_COMMAND = "SSH_ORIGINAL_COMMAND";
    private static final Logger LOG = LoggerFactory.getLogger(PqsshChannelSession.class);

    /** Replaces MINA's {@code session} channel factory; accepts no {@code env} request (sshd's default). */
    public static final ChannelFactory FACTORY = factory(List.of());

    /** As {@link #FACTORY}, accepting the {@code env} requests whose names match {@code acceptEnv} (sshd's AcceptEnv). */
    public static ChannelFactory factory(List<String> acceptEnv) {
        List<String> patterns = List.copyOf(acceptEnv);
        return new ChannelFactory() {
            @Override
            public String getName() {
                return "session";
            }

            @Override
            public Channel createChannel(Session session) {
                return new PqsshChannelSession(DEFAULT_HANDLERS, patterns);
            }
        };
    }

    private volatile boolean ptyAllocated;
    private volatile X11Forward x11;
    private volatile String exitSignal;
    private volatile boolean coreDumped;
    private final List<String> acceptEnv;
    private final Map<String, String> acceptedEnv = new ConcurrentHashMap<>();

    public PqsshChannelSession(Collection<? extends RequestHandler<Channel>> handlers) {
        this(handlers, List.of());
    }

    public PqsshChannelSession(Collection<? extends RequestHandler<Channel>> handlers, List<String> acceptEnv) {
        super(handlers);
        this.acceptEnv = List.copyOf(acceptEnv);
    }

    /** The client's {@code env} variables that AcceptEnv let through (sshd sets them before its own). */
    public Map<String, String> acceptedEnvironment() {
        return Map.copyOf(acceptedEnv);
    }

    /**
     * sshd's {@code session_env_req}: a name that matches an AcceptEnv pattern is kept for the session's process;
     * any other is refused (CHANNEL_FAILURE when a reply is wanted) and never reaches the process. MINA's own
     * handling would put every variable into the channel's environment, where pqssh's sessions never read it.
     */
    @Override
    protected RequestHandler.Result handleEnvParsed(String name, String value) throws IOException {
        if (acceptEnv.stream().anyMatch(p -> OpenSshPatterns.matchPattern(name, p))) {
            acceptedEnv.put(name, value);
            return RequestHandler.Result.ReplySuccess;
        }
        LOG.debug("Ignoring env request {}: disallowed name", name);
        return RequestHandler.Result.ReplyFailure;
    }

    /**
     * sshd's {@code session_x11_req}: once per channel; the forwarding filter decides (X11Forwarding,
     * DisableForwarding, the key's {@code no-X11-forwarding}/{@code restrict}), then {@link X11Forward#grant}
     * listens on a display. The session's process gets DISPLAY and runs xauth (or the user's rc) as the user
     * ({@link SessionPrelude}).
     */
    @Override
    protected RequestHandler.Result handleX11ForwardingParsed(String requestType, ServerSession session,
            boolean singleConnection, String authProtocol, String authCookie, int screenId) throws IOException {
        if (x11 != null) {
            LOG.error("session_x11_req: x11 forwarding already active");
            return RequestHandler.Result.ReplyFailure;
        }
        X11Settings settings = session.getFactoryManager().getAttribute(X11Settings.KEY);
        org.apache.sshd.server.forward.X11ForwardingFilter filter = session.getFactoryManager()
                .getX11ForwardingFilter();
        if (settings == null || filter == null || !filter.canForwardX11(session, requestType)) {
            return RequestHandler.Result.ReplyFailure;
        }
        X11Forward granted = X11Forward.grant(session, service,
                io.pqssh.server.ConnectionConfig.get(session, c -> c.x11, settings), singleConnection,
                authProtocol, authCookie, screenId);
        if (granted == null) {
            return RequestHandler.Result.ReplyFailure;
        }
        x11 = granted;
        addCloseFutureListener(f -> granted.close());
        return RequestHandler.Result.ReplySuccess;
    }

    /** The X11 forwarding granted on this channel, if any. */
    public Optional<X11Forward> x11() {
        return Optional.ofNullable(x11);
    }

    /** Whether the client asked for a pty on this channel and it was granted. */
    public boolean ptyRequested() {
        return ptyAllocated;
    }

    private KeyRestrictions restrictions() {
        return KeyRestrictions.of(getServerSession());
    }

    @Override
    protected RequestHandler.Result handlePtyReqParsed(String term, int tColumns, int tRows, int tWidth,
            int tHeight, Map<PtyMode, Integer> ptyModes) throws IOException {
        if (!io.pqssh.server.ConnectionConfig.get(getServerSession(), c -> c.permitTty, true)) {
            ServerSession s = getServerSession();
            // sshd's session_pty_req: "Pty allocation disabled."; the session goes on without a terminal
            LOG.info("pty request refused for {} from {}: PermitTTY no", s.getUsername(), s.getClientAddress());
            return RequestHandler.Result.ReplyFailure;
        }
        if (!restrictions().ptyAllowed()) {
            ServerSession s = getServerSession();
            LOG.info("pty request refused for {} from {}: the key's authorized_keys options forbid a pty (no-pty or"
                    + " restrict)", s.getUsername(), s.getClientAddress());
            return RequestHandler.Result.ReplyFailure;
        }
        RequestHandler.Result r = super.handlePtyReqParsed(term, tColumns, tRows, tWidth, tHeight, ptyModes);
        ptyAllocated = r == RequestHandler.Result.ReplySuccess || r == RequestHandler.Result.Replied;
        return r;
    }

    /** A forced command and where it comes from: ForceCommand ({@code config}) or the key's/certificate's. */
    private record Forced(String command, boolean config) {
        /** sshd's IS_INTERNAL_SFTP: the word internal-sftp, alone or followed by options. */
        boolean internalSftp() {
            return UserSessions.isInternalSftp(command);
        }
    }

    /**
     * sshd's {@code do_exec} precedence: ForceCommand (the connection's Match evaluation or the global section)
     * first, then the accepted key's {@code command=} or the certificate's {@code force-command}.
     */
    private Optional<Forced> forced() {
        Optional<String> admin = io.pqssh.server.ConnectionConfig.of(getServerSession()).map(c -> c.forceCommand);
        if (admin.isPresent()) {
            return Optional.of(new Forced(admin.get(), true));
        }
        return restrictions().forcedCommand().map(c -> new Forced(c, false));
    }

    /**
     * A forced command replaces the request: exec and shell run it (exec's command in SSH_ORIGINAL_COMMAND); a
     * subsystem request of any name runs it too (the name in SSH_ORIGINAL_COMMAND). Forced {@code internal-sftp}
     * serves sftp to a subsystem request only; exec and shell get sshd's "This service allows sftp connections
     * only." and exit status 1.
     */
    private RequestHandler.Result runForced(String request, Forced f, boolean subsystemRequest) throws IOException {
        LOG.debug("forced command {}: {}", f.config() ? "(config)" : "(key-option)", f.command());
        if (f.internalSftp()) {
            org.apache.sshd.server.command.Command c = subsystemRequest
                    ? UserSessions.internalSftp(this, f.command())
                    : new UserSessions.Refusal("This service allows sftp connections only.");
            commandInstance = c; // as MINA's own handlers: prepareChannelCommand starts what this field holds
            return prepareChannelCommand(request, c);
        }
        return super.handleExecParsed(request, f.command());
    }

    @Override
    protected RequestHandler.Result handleExecParsed(String request, String command) throws IOException {
        Optional<Forced> forced = forced();
        if (forced.isPresent()) {
            addEnvVariable(ORIGINAL_COMMAND, command);
            return runForced(request, forced.get(), false);
        }
        return super.handleExecParsed(request, command);
    }

    @Override
    protected RequestHandler.Result handleShellParsed(String request) throws IOException {
        Optional<Forced> forced = forced();
        if (forced.isPresent()) {
            return runForced(request, forced.get(), false);
        }
        return super.handleShellParsed(request);
    }

    @Override
    protected RequestHandler.Result handleSubsystemParsed(String request, String subsystem) throws IOException {
        Optional<Forced> forced = forced();
        if (forced.isPresent()) {
            addEnvVariable(ORIGINAL_COMMAND, subsystem);
            return runForced(request, forced.get(), true);
        }
        return super.handleSubsystemParsed(request, subsystem);
    }

    /**
     * The exit status goes out before EOF. MINA's order is EOF, then exit-status, and a client whose own input has
     * ended answers EOF with CLOSE at once (OpenSSH's ssh does); once that CLOSE is in, MINA sends nothing more on
     * the channel, so a thread descheduled between the two packets lost the exit status (OpenSSH's mux master then
     * reported none, seen in CI). sshd keeps the channel until its child has exited; here the status simply comes
     * first, after the process's last output.
     */
    @Override
    protected void closeShell(int exitValue, boolean closeImmediately) throws java.io.IOException {
        if (!isClosing()) {
            java.io.OutputStream o = out;
            if (o != null) {
                o.flush();
            }
            sendExitStatus(exitValue);
        }
        super.closeShell(exitValue, closeImmediately);
    }

    /** The session's process died from {@code signal} (RFC 4254 name): send exit-signal instead of exit-status. */
    void exitBySignal(String signal, boolean core) {
        this.coreDumped = core;
        this.exitSignal = signal;
    }

    @Override
    protected void sendExitStatus(int v) throws java.io.IOException {
        String signal = exitSignal;
        if (signal == null) {
            super.sendExitStatus(v);
            return;
        }
        if (!exitStatusSent.getAndSet(true)) {
            // RFC 4254 6.10: signal name without "SIG", core dumped, error message, language tag
            org.apache.sshd.common.util.buffer.Buffer b = getSession().createBuffer(
                    org.apache.sshd.common.SshConstants.SSH_MSG_CHANNEL_REQUEST, 64);
            b.putUInt(getRecipient());
            b.putString("exit-signal");
            b.putBoolean(false);
            b.putString(signal);
            b.putBoolean(coreDumped);
            b.putString("");
            b.putString("");
            writePacket(b);
        }
    }
}
