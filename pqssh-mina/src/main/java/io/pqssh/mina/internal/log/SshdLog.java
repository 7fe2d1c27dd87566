package io.pqssh.mina.internal.log;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * sshd's authentication and connection log lines, one line per event, on the logger {@value #LOGGER} (INFO, as
 * sshd logs them to syslog at INFO; {@code pqssh server} shows that logger at its default level). Every string that
 * came from the peer (user name, method name, disconnect message) goes through {@link LogText#escape}; no secret is
 * ever an argument. Lines that sshd's unprivileged pre-authentication child writes end in {@code [preauth]}; those
 * its monitor writes (Accepted, Failed, Partial, Invalid user) do not, as in sshd. A key that is not authorized
 * shows as a {@code Failed} line naming the key's type and fingerprint.
 */
public final class SshdLog {
    public static final String LOGGER = "io.pqssh.sshd";
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private SshdLog() {
    }

    /** {@code 1.2.3.4 port 5555}. */
    public static String hostPort(SocketAddress a) {
        if (a instanceof InetSocketAddress inet) {
            String ip = inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
            return ip + " port " + inet.getPort();
        }
        return LogText.escape(String.valueOf(a)) + " port 0";
    }

    private static String hostPortFrom(SocketAddress a) {
        return "from " + hostPort(a);
    }

    private static String extra(String extra) {
        return extra == null || extra.isEmpty() ? "" : ": " + extra;
    }

    private static String userTag(String user, boolean valid) {
        return (valid ? "" : "invalid user ") + LogText.escape(user);
    }

    /** {@code Accepted publickey-kem for alice from 1.2.3.4 port 5555 ssh2: ML-KEM-768 SHA256:...}. */
    public static void accepted(SocketAddress peer, String method, String user, String extra) {
        LOG.info("Accepted {} for {} {} ssh2{}", LogText.escape(method), LogText.escape(user), hostPortFrom(peer),
                extra(extra));
    }

    /** Partial success: a step of {@code AuthenticationMethods} done, more to come. */
    public static void partial(SocketAddress peer, String method, String user, String extra) {
        LOG.info("Partial {} for {} {} ssh2{}", LogText.escape(method), LogText.escape(user),
                hostPortFrom(peer), extra(extra));
    }

    public static void failed(SocketAddress peer, String method, String user, boolean validUser, String extra) {
        LOG.info("Failed {} for {} {} ssh2{}", LogText.escape(method), userTag(user, validUser),
                hostPortFrom(peer), extra(extra));
    }

    /** sshd's allowed_user() refusal, already in its words ({@code User alice from 1.2.3.4 not allowed because ...}). */
    public static void notAllowed(String line) {
        LOG.info("{}", line);
    }

    public static void invalidUser(SocketAddress peer, String user) {
        LOG.info("Invalid user {} {}", LogText.escape(user), hostPortFrom(peer));
    }

    public static void maxAuthTriesExceeded(SocketAddress peer, String user, boolean validUser) {
        LOG.warn("maximum authentication attempts exceeded for {} {} ssh2 [preauth]", userTag(user, validUser),
                hostPortFrom(peer));
    }

    /** The server ends the connection; {@code who} from {@link #who}. */
    public static void disconnecting(String who, String message, boolean preauth) {
        LOG.info("Disconnecting {}: {}{}", who, LogText.escape(message), preauth ? " [preauth]" : "");
    }

    public static void receivedDisconnect(SocketAddress peer, int code, String message, boolean preauth) {
        LOG.info("Received disconnect from {}:{}: {}{}", hostPort(peer), code, LogText.escape(message),
                preauth ? " [preauth]" : "");
    }

    public static void disconnectedFrom(String who, boolean preauth) {
        LOG.info("Disconnected from {}{}", who, preauth ? " [preauth]" : "");
    }

    public static void connectionClosedBy(String who, boolean preauth) {
        LOG.info("Connection closed by {}{}", who, preauth ? " [preauth]" : "");
    }

    public static void timeoutBeforeAuthentication(SocketAddress peer) {
        LOG.info("Timeout before authentication for {}", hostPort(peer));
    }

    /** A connection refused by MaxStartups, PerSourceMaxStartups or PerSourceConnectRate, before the banner. */
    public static void dropConnection(int startups, SocketAddress peer, SocketAddress local, String reason) {
        LOG.info("drop connection #{} from {} on {} {}", startups, bracketed(peer), bracketed(local), reason);
    }

    /** A pre-authentication packet over MaxPreauthPacketSize. */
    public static void packetTooLarge(String who, int size, int max) {
        LOG.info("Disconnecting {}: {}-byte packet before authentication, MaxPreauthPacketSize {} [preauth]", who,
                size, max);
    }

    /**
     * sshd's connection preamble: {@code 1.2.3.4 port 5555} before a user name is known, then
     * {@code authenticating user alice 1.2.3.4 port 5555} (or {@code invalid user}), {@code user alice ...} after.
     */
    public static String who(SocketAddress peer, String user, boolean validUser, boolean authenticated) {
        if (user == null) {
            return hostPort(peer);
        }
        String tag = authenticated ? "user " : validUser ? "authenticating user " : "invalid user ";
        return tag + LogText.escape(user) + " " + hostPort(peer);
    }

    private static String bracketed(SocketAddress a) {
        if (a instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return "[" + inet.getAddress().getHostAddress() + "]:" + inet.getPort();
        }
        return LogText.escape(String.valueOf(a));
    }
}
