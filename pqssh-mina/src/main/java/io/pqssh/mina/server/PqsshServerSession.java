package io.pqssh.mina.server;

import java.io.IOException;
import java.net.SocketAddress;
import java.time.Instant;

import org.apache.sshd.common.Service;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.session.helpers.TimeoutIndicator;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.ServerFactoryManager;
import org.apache.sshd.server.session.ServerSessionImpl;

import io.pqssh.mina.internal.log.SshdLog;

/**
 * MINA's server session with sshd's pre-authentication rules:
 * <ul>
 * <li>{@code LoginGraceTime} counts from the TCP accept and is never restarted (MINA restarts it each time a
 * user-auth service is created; sshd sets its alarm once per connection);</li>
 * <li>a SERVICE_REQUEST for {@code ssh-userauth} while pqssh's user-auth service runs is accepted again without
 * building a new service, so nothing of the running authentication (attempts, failures, user name, pending KEM
 * challenge) is reset: what sshd does ({@code input_service_request} accepts it while not authenticated, with the
 * same per-connection {@code authctxt}); after authentication a SERVICE_REQUEST is answered with UNIMPLEMENTED as
 * in sshd (MINA would replace the running connection service);</li>
 * <li>{@code MaxPreauthPacketSize} (from the {@link PacketLimit}, pqssh's PreAuthLimits);</li>
 * <li>sshd's connection log lines (Connection closed by, Disconnected from, Received disconnect, Disconnecting,
 * Timeout before authentication) through {@link SshdLog}.</li>
 * </ul>
 */
public class PqsshServerSession extends ServerSessionImpl {
    /** Reports a pre-authentication packet over the limit (counted by PreAuthLimits). */
    @FunctionalInterface
    public interface PacketLimit {
        /** Returns the largest payload allowed before authentication, or 0 for none; {@code refused} counts one. */
        int maxPreauthPacket();

        default void refused(PqsshServerSession session, int size) {
        }
    }

    /**
     * A user-auth service whose state must survive a repeated SERVICE_REQUEST for {@code ssh-userauth} (the
     * server product's service implements it; MINA's own is rebuilt as MINA does).
     */
    public interface ResumableUserAuth extends Service {
    }

    private static final String USERAUTH = "ssh-userauth";

    /** Set on the server by the server product's ConnectionTimeouts when a timeout needs {@link ChannelActivity}. */
    public static final org.apache.sshd.common.AttributeRepository.AttributeKey<Boolean> TRACK_ACTIVITY =
            new org.apache.sshd.common.AttributeRepository.AttributeKey<>();

    private final PacketLimit packetLimit;
    private final ChannelActivity activity;
    private volatile String authUser;
    private volatile boolean authUserValid = true;
    private volatile boolean peerDisconnected;
    private volatile boolean serverDisconnected;
    private volatile boolean refusedAtStart;

    public PqsshServerSession(ServerFactoryManager server, IoSession ioSession, PacketLimit packetLimit)
            throws Exception {
        super(server, ioSession);
        this.packetLimit = packetLimit;
        this.activity = Boolean.TRUE.equals(server.getAttribute(TRACK_ACTIVITY)) ? new ChannelActivity() : null;
        addCloseFutureListener(f -> logClosed());
    }

    /** sshd arms LoginGraceTime once, at accept: nothing restarts it. */
    @Override
    public Instant resetAuthTimeout() {
        return getAuthTimeoutStart();
    }

    /** The user name of the first USERAUTH_REQUEST, for the log preamble; {@code valid} false for unknown users. */
    public void authenticatingUser(String user, boolean valid) {
        this.authUser = user;
        this.authUserValid = valid;
    }

    /** Refused before the banner (MaxStartups and friends): the refusal was logged, the close is not. */
    public void refusedAtStart() {
        this.refusedAtStart = true;
    }

    /** sshd's preamble: address, then the user once known. */
    public String who() {
        return SshdLog.who(getClientAddress(), authUser, authUserValid, isAuthenticated());
    }

    @Override
    protected void handleMessage(Buffer buffer) throws Exception {
        int max = packetLimit == null ? 0 : packetLimit.maxPreauthPacket();
        if (max > 0 && !isAuthenticated() && buffer.available() > max) {
            packetLimit.refused(this, buffer.available());
            SshdLog.packetTooLarge(who(), buffer.available(), max);
            serverDisconnected = true;
            disconnect(SshConstants.SSH2_DISCONNECT_PROTOCOL_ERROR, "packet too large before authentication");
            return;
        }
        if (activity != null) {
            activity.received(buffer);
        }
        super.handleMessage(buffer);
    }

    @Override
    public org.apache.sshd.common.io.IoWriteFuture writePacket(Buffer buffer) throws IOException {
        if (activity != null) {
            activity.sent(buffer);
        }
        return super.writePacket(buffer);
    }

    /** The packet-level activity the timeouts read; null when no timeout is configured. */
    public ChannelActivity activity() {
        return activity;
    }

    @Override
    protected boolean handleServiceRequest(String serviceName, Buffer buffer) throws Exception {
        if (isAuthenticated()) {
            notImplemented(SshConstants.SSH_MSG_SERVICE_REQUEST, buffer);
            return false;
        }
        Service running = currentService.getService();
        if (running instanceof ResumableUserAuth && USERAUTH.equals(serviceName)) {
            Buffer accept = createBuffer(SshConstants.SSH_MSG_SERVICE_ACCEPT, serviceName.length() + 8);
            accept.putString(serviceName);
            writePacket(accept);
            return true;
        }
        return super.handleServiceRequest(serviceName, buffer);
    }

    @Override
    public void disconnect(int reason, String message) throws IOException {
        if (!serverDisconnected && !peerDisconnected && !refusedAtStart) {
            serverDisconnected = true;
            TimeoutIndicator t = getTimeoutStatus();
            if (t != null && t.getStatus() == TimeoutIndicator.TimeoutStatus.AuthTimeout) {
                SshdLog.timeoutBeforeAuthentication(getClientAddress());
            } else {
                SshdLog.disconnecting(who(), message, !isAuthenticated());
            }
        }
        serverDisconnected = true;
        super.disconnect(reason, message);
    }

    @Override
    protected void handleDisconnect(int code, String message, String language, Buffer buffer) throws Exception {
        if (!peerDisconnected && !serverDisconnected) {
            peerDisconnected = true;
            SshdLog.receivedDisconnect(getClientAddress(), code, message, !isAuthenticated());
        }
        super.handleDisconnect(code, message, language, buffer);
    }

    private void logClosed() {
        if (refusedAtStart || serverDisconnected && !peerDisconnected) {
            return;
        }
        SocketAddress peer = getClientAddress();
        if (peer == null) {
            return;
        }
        if (peerDisconnected || isAuthenticated()) {
            SshdLog.disconnectedFrom(who(), !isAuthenticated());
        } else {
            SshdLog.connectionClosedBy(who(), true);
        }
    }
}
