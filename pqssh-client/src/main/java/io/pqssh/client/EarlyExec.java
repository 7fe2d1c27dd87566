package io.pqssh.client;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Collections;
import java.util.Objects;

import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.session.AbstractClientSession;
import org.apache.sshd.client.session.ClientConnectionService;
import org.apache.sshd.client.session.ClientConnectionServiceFactory;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.Service;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.io.AbstractIoWriteFuture;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.ValidateUtils;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.core.CoreModuleProperties;

/**
 * Opt-in early channel open, for servers known to be pqssh: the session channel's CHANNEL_OPEN goes out right behind
 * the {@code publickey-kem} response, so USERAUTH_SUCCESS and OPEN_CONFIRMATION come back in one flight and the
 * login plus command costs one round trip less.
 *
 * <p>RFC 4252 §6 lets a server ignore (or, as OpenSSH does, treat as a protocol error) any non-authentication
 * message before USERAUTH_SUCCESS. A pqssh (MINA) server handles a KEM response synchronously and switches to the
 * connection service before it decodes the next packet, so a CHANNEL_OPEN that follows a successful final KEM
 * response is served. If the KEM response is not the last step (partial success) or fails, the server meets a
 * CHANNEL_OPEN before authentication and the connection fails: the caller must know the server and its policy.
 *
 * <p>How it fits MINA: the open is written with the channel number MINA's client will give its first channel (0)
 * and the session's window settings; when the connection service starts (inside the handling of USERAUTH_SUCCESS,
 * before the next packet is read) {@link ConnectionServiceFactory} registers an {@link ChannelExec} under that
 * number and opens it with its own CHANNEL_OPEN suppressed — after checking it is byte for byte the one already
 * sent — so the confirmation finds it and MINA's code runs {@code exec} as usual.
 */
public final class EarlyExec {
    /** Set on a client session whose KEM response should carry the early CHANNEL_OPEN. */
    public static final AttributeKey<EarlyExec> ATTRIBUTE = new AttributeKey<>();
    /** MINA's client connection service numbers channels from 0; the early open claims the first. */
    static final long CHANNEL_ID = 0;
    private static final String TYPE = "session";

    private final String command;
    private final OutputStream out;
    private final OutputStream err;
    private volatile byte[] sentOpen;
    private volatile Channel channel;
    private volatile org.apache.sshd.client.future.OpenFuture opened;
    private volatile IOException failure;

    public EarlyExec(String command, OutputStream out, OutputStream err) {
        this.command = Objects.requireNonNull(command);
        this.out = Objects.requireNonNull(out);
        this.err = Objects.requireNonNull(err);
    }

    /**
     * Arms a session before {@code auth()}: its KEM response will be followed by the CHANNEL_OPEN. The client must
     * have been built with {@link PqsshClient.Builder#earlyChannelOpen}, whose connection service attaches the
     * channel.
     */
    public void install(ClientSession session) {
        session.setAttribute(ATTRIBUTE, this);
        session.setAttribute(io.pqssh.mina.auth.ClientKemUserAuth.AFTER_RESPONSE, this::sendOpen);
    }

    /** Whether the login took the early path (the channel is registered and opening). */
    public boolean used() {
        return channel != null;
    }

    /** Waits for the confirmation and the channel's close; returns the exit status (or -1) and closes it. */
    public int awaitExit(java.time.Duration timeout) throws IOException {
        ChannelExec ch = channel();
        if (ch == null) {
            throw new IllegalStateException("the early channel was not opened (no KEM response on this session?)");
        }
        try (ch) {
            opened.verify(timeout);
            ch.waitFor(java.util.EnumSet.of(org.apache.sshd.client.channel.ClientChannelEvent.CLOSED), timeout);
            Integer status = ch.getExitStatus();
            return status == null ? -1 : status;
        }
    }

    /** Called right after the KEM response is written: sends the CHANNEL_OPEN (once per session). */
    public void sendOpen(ClientSession session) throws IOException {
        if (sentOpen != null) {
            return;
        }
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_CHANNEL_OPEN, TYPE.length() + 16);
        b.putString(TYPE);
        b.putUInt(CHANNEL_ID);
        b.putUInt(CoreModuleProperties.WINDOW_SIZE.getRequired(session));
        b.putUInt(CoreModuleProperties.MAX_PACKET_SIZE.getRequired(session));
        // writing encodes the buffer in place: keep the payload first
        sentOpen = Arrays.copyOfRange(b.array(), b.rpos(), b.wpos());
        session.writePacket(b);
    }

    /** Whether the early CHANNEL_OPEN went out on this session. */
    public boolean sent() {
        return sentOpen != null;
    }

    private ChannelExec channel() throws IOException {
        if (failure != null) {
            throw failure;
        }
        return channel;
    }

    private void attach(AbstractClientSession session, ClientConnectionService service) {
        try {
            Channel ch = new Channel(command, sentOpen);
            ch.setOut(out);
            ch.setErr(err);
            long id = service.registerChannel(ch);
            if (id != CHANNEL_ID) {
                throw new IOException("early CHANNEL_OPEN named channel " + CHANNEL_ID + ", MINA gave the channel " + id);
            }
            opened = ch.open();
            channel = ch;
        } catch (IOException | RuntimeException e) {
            failure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
            session.exceptionCaught(failure);
        }
    }

    /** An exec channel whose CHANNEL_OPEN was already sent by {@link #sendOpen}. */
    private static final class Channel extends ChannelExec {
        private final byte[] sentOpen;
        private boolean openSuppressed;

        Channel(String command, byte[] sentOpen) {
            super(command, null, Collections.emptyMap());
            this.sentOpen = sentOpen;
        }

        @Override
        public IoWriteFuture writePacket(Buffer buffer) throws IOException {
            if (!openSuppressed && buffer.array()[buffer.rpos()] == SshConstants.SSH_MSG_CHANNEL_OPEN) {
                openSuppressed = true;
                byte[] mine = Arrays.copyOfRange(buffer.array(), buffer.rpos(), buffer.wpos());
                if (!Arrays.equals(mine, sentOpen)) {
                    throw new IOException("the channel's CHANNEL_OPEN differs from the one sent early (window or"
                            + " packet size configured per channel?)");
                }
                return AbstractIoWriteFuture.fulfilled(toString(), Boolean.TRUE);
            }
            return super.writePacket(buffer);
        }
    }

    /**
     * MINA's client connection service factory, with a service that attaches a session's early channel when it
     * starts (inside the handling of USERAUTH_SUCCESS, before the confirmation is read).
     */
    public static final class ConnectionServiceFactory extends ClientConnectionServiceFactory {
        @Override
        public Service create(Session session) throws IOException {
            AbstractClientSession s = ValidateUtils.checkInstanceOf(session, AbstractClientSession.class,
                    "Not a client session: %s", session);
            ClientConnectionService service = new ClientConnectionService(s) {
                @Override
                public void start() {
                    super.start();
                    EarlyExec early = s.getAttribute(ATTRIBUTE);
                    if (early != null && early.sent()) {
                        early.attach(s, this);
                    }
                }
            };
            service.addPortForwardingEventListenerManager(this);
            return service;
        }
    }
}
