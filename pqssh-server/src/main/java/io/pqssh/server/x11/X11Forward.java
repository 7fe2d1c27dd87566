package io.pqssh.server.x11;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.server.session.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code x11-req} granted on a session channel, as sshd's {@code session_x11_req} and
 * {@code session_setup_x11fwd}: the display listening for X clients, the session's {@code DISPLAY}
 * ({@code localhost:N.S} with X11UseLocalhost yes, else {@code hostname:N.S}) and what the session's process hands
 * to {@code xauth} as the user: the display name for the authority file ({@code unix:N.S} for a localhost display,
 * which Xlib looks up for TCP connections to localhost), the protocol and the client's (fake) cookie. The cookie is
 * a secret: it is never logged and reaches the user's process only outside its command line.
 */
public final class X11Forward {
    private static final Logger LOG = LoggerFactory.getLogger(X11Forward.class);

    private final X11Display listener;
    private final String display;
    private final String authDisplay;
    private final String protocol;
    private final String cookie;
    private final Path xauth;

    private X11Forward(X11Display listener, String display, String authDisplay, String protocol, String cookie,
            Path xauth) {
        this.listener = listener;
        this.display = display;
        this.authDisplay = authDisplay;
        this.protocol = protocol;
        this.cookie = cookie;
        this.xauth = xauth;
    }

    /** sshd's {@code xauth_valid_string}: what may reach xauth's input unquoted. */
    static boolean validXauthString(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == ':' || c == '/' || c == '-' || c == '_';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * Grants the request once the policy allowed it (X11Forwarding, DisableForwarding and the key's options are the
     * forwarding filter's): checks the request's data and the xauth program, then listens. Null: refused, the reason
     * logged and, where sshd sends one, told to the client as a debug message.
     */
    public static X11Forward grant(ServerSession session, ConnectionService service, X11Settings settings,
            boolean singleConnection, String protocol, String cookie, int screen) {
        if (!validXauthString(protocol) || !validXauthString(cookie)) {
            LOG.error("Invalid X11 forwarding data");
            return null;
        }
        if (settings.xauthLocation() == null || !Files.exists(settings.xauthLocation())) {
            LOG.info("No xauth program; cannot forward X11. ({} for {})",
                    settings.xauthLocation() == null ? "XAuthLocation none" : settings.xauthLocation(),
                    session.getUsername());
            debug(session, "No xauth program; cannot forward X11.");
            return null;
        }
        X11Display listener;
        try {
            listener = X11Display.open(service, settings, singleConnection);
        } catch (IOException e) {
            LOG.error("{}", e.getMessage());
            return null;
        }
        int n = listener.number();
        String display;
        String authDisplay;
        if (settings.useLocalhost()) {
            display = "localhost:" + n + "." + screen;
            authDisplay = "unix:" + n + "." + screen;
        } else {
            display = hostname() + ":" + n + "." + screen;
            authDisplay = display;
        }
        LOG.debug("X11 display {} for {}", display, session.getUsername());
        return new X11Forward(listener, display, authDisplay, protocol, cookie, settings.xauthLocation());
    }

    /** sshd sends some refusals to the client as SSH_MSG_DEBUG (ssh -v shows them). */
    public static void debug(ServerSession session, String message) {
        try {
            session.sendDebugMessage(false, message, "");
        } catch (IOException | RuntimeException e) {
            LOG.debug("debug message not sent: {}", e.toString());
        }
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /** The session's DISPLAY. */
    public String display() {
        return display;
    }

    /** The display name xauth adds the cookie under. */
    public String authDisplay() {
        return authDisplay;
    }

    public String protocol() {
        return protocol;
    }

    /** The client's cookie (hex), for the session's xauth step only. */
    public String cookie() {
        return cookie;
    }

    public Path xauth() {
        return xauth;
    }

    /** Stops listening (the session channel closed). */
    public void close() {
        listener.close();
    }
}
