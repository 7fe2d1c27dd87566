package io.pqssh.client.x11;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.channel.ChannelFactory;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;

import io.pqssh.client.ssh.ClientLog;
import io.pqssh.common.forward.RelayChannel;

/**
 * X11 forwarding with authentication spoofing, as ssh's {@code -X}/{@code -Y}: the server gets a fake cookie of the
 * real one's length in {@code x11-req}; each {@code x11} channel it opens is connected to the local display and its
 * connection setup must carry that fake cookie, which is replaced by the real one ({@link X11AuthSpoof}). A server
 * that opens x11 channels nobody asked for is refused with ssh's warning; after ForwardX11Timeout (untrusted only)
 * new channels are refused. Immutable; kept on the session ({@link #install}).
 */
public final class X11Forwarding {
    /** ssh's SSH_X11_PROTO. */
    static final String PROTOCOL = "MIT-MAGIC-COOKIE-1";
    private static final AttributeKey<X11Forwarding> KEY = new AttributeKey<>();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final X11DisplayName display;
    private final String protocol;
    private final byte[] real;
    private final byte[] fake;
    private final long refuseAfterNanos; // System.nanoTime() deadline, or 0: never
    private final ClientLog log;

    private X11Forwarding(X11DisplayName display, String protocol, byte[] real, byte[] fake, long refuseAfterNanos,
            ClientLog log) {
        this.display = display;
        this.protocol = protocol;
        this.real = real;
        this.fake = fake;
        this.refuseAfterNanos = refuseAfterNanos;
        this.log = log;
    }

    /**
     * ssh's {@code ssh_session2_setup} X11 part: the local display's authorization and a fake cookie for the server.
     * Null (said why, as ssh) when DISPLAY is unset or invalid, or an untrusted cookie could not be generated.
     *
     * @param displayEnv     the local DISPLAY, or null
     * @param xauth          XAuthLocation, or null for none
     * @param timeoutSeconds ForwardX11Timeout (0: none)
     */
    public static X11Forwarding prepare(String displayEnv, Path xauth, boolean trusted, long timeoutSeconds,
            ClientLog log) {
        if (displayEnv == null || displayEnv.isEmpty()) {
            log.debug1("X11 forwarding requested but DISPLAY not set");
            return null;
        }
        X11DisplayName display;
        try {
            display = X11DisplayName.parse(displayEnv);
        } catch (IllegalArgumentException e) {
            log.error(e.getMessage());
            return null;
        }
        X11Cookies.Cookie cookie = X11Cookies.get(display, xauth, trusted, timeoutSeconds, log);
        if (cookie == null) {
            return null;
        }
        byte[] real = HexFormat.of().parseHex(cookie.hex());
        long refuse = !trusted && timeoutSeconds != 0 ? System.nanoTime() + timeoutSeconds * 1_000_000_000L : 0;
        return new X11Forwarding(display, cookie.protocol(), real, random(real.length), refuse, log);
    }

    /** Keeps this on the session, where the {@link #CHANNEL_FACTORY} finds it. */
    public void install(Session session) {
        session.setAttribute(KEY, this);
    }

    /** The session's X11 forwarding, if one was set up. */
    public static X11Forwarding of(Session session) {
        return session.getAttribute(KEY);
    }

    /**
     * {@code x11-req} for the session channel {@code recipient} (the peer's id), asking for a reply: not single
     * connection, the real protocol, the fake cookie, the display's screen.
     */
    public Buffer request(Session session, long recipient) {
        String fakeHex = hex(fake);
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_CHANNEL_REQUEST, 64 + protocol.length()
                + fakeHex.length());
        b.putUInt(recipient);
        b.putString("x11-req");
        b.putBoolean(true);
        b.putBoolean(false);
        b.putString(protocol);
        b.putString(fakeHex);
        b.putUInt(display.screen());
        return b;
    }

    /** The client's {@code x11} channel type (install with the client's other channel factories). */
    public static final ChannelFactory CHANNEL_FACTORY = new ChannelFactory() {
        @Override
        public String getName() {
            return "x11";
        }

        @Override
        public Channel createChannel(Session session) {
            return new RelayChannel(open -> route(session, open));
        }
    };

    private static RelayChannel.Route route(Session session, Buffer open) throws IOException {
        String originator = open.getString();
        long port = open.getUInt();
        X11Forwarding x = of(session);
        if (x == null) {
            // ssh's client_request_x11 for a server that opens x11 channels nobody asked for
            ClientLog l = session.getAttribute(LOG);
            if (l != null) {
                l.error("Warning: ssh server tried X11 forwarding.");
                l.error("Warning: this is probably a break-in attempt by a malicious server.");
            }
            return null;
        }
        if (x.refuseAfterNanos != 0 && System.nanoTime() - x.refuseAfterNanos >= 0) {
            x.log.debug1("Rejected X11 connection after ForwardX11Timeout expired");
            return null;
        }
        x.log.debug1("client_request_x11: request from " + originator + " " + port);
        byte[] proto = x.protocol.getBytes(StandardCharsets.US_ASCII);
        return RelayChannel.Route.to(x.display.target(), () -> new X11AuthSpoof(proto, x.fake, x.real),
                x.log::error);
    }

    /** Where the channel factory finds the log for a server's unrequested x11 channel. */
    public static final AttributeKey<ClientLog> LOG = new AttributeKey<>();

    static byte[] random(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
