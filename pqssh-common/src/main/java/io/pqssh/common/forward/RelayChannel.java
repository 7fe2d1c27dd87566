package io.pqssh.common.forward;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Collections;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

import org.apache.sshd.client.future.DefaultOpenFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.ChannelOutputStream;
import org.apache.sshd.common.channel.exception.SshChannelOpenException;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.channel.AbstractServerChannel;

/**
 * A channel the peer opened ({@code forwarded-tcpip}, {@code forwarded-streamlocal@openssh.com},
 * {@code direct-streamlocal@openssh.com}, {@code x11}) whose bytes are relayed to a socket on this machine. A
 * {@link Router} reads the open request and names the {@link Route}: a fixed {@link LocalTarget} (connected before the
 * channel is confirmed; a failure is {@code SSH_OPEN_CONNECT_FAILED}), optionally with a {@link Preamble} that checks
 * and rewrites the peer's first bytes (X11's authentication), or a SOCKS handshake on the channel's first bytes (ssh's
 * remote dynamic forwarding: confirmed at once, then connected where the SOCKS client asks, if permitted).
 * Half-closes pass through: the peer's EOF shuts the socket's output, the socket's end of input sends EOF; the channel
 * closes when both directions ended.
 */
public final class RelayChannel extends AbstractServerChannel {
    /** Reads a channel-open request's type-specific data; null refuses it (administratively prohibited). */
    public interface Router {
        Route route(Buffer openData) throws IOException;
    }

    /**
     * The first bytes the peer sends, checked and possibly rewritten before anything reaches the socket (X11's
     * connection setup, whose cookie the client substitutes). One per channel.
     */
    public interface Preamble {
        /**
         * @return null while more bytes are needed; else what to write to the socket (the whole preamble and
         *         whatever followed it)
         * @throws IOException the connection is refused; its message is the route's warning line
         */
        byte[] feed(byte[] data, int off, int len) throws IOException;
    }

    /** Where a channel goes. */
    public static final class Route {
        private final LocalTarget target;
        private final BiPredicate<String, Integer> socksPermits;
        private final Consumer<String> warn;
        private final java.util.function.Supplier<Preamble> preamble;

        private Route(LocalTarget target, BiPredicate<String, Integer> socksPermits, Consumer<String> warn,
                java.util.function.Supplier<Preamble> preamble) {
            this.target = target;
            this.socksPermits = socksPermits;
            this.warn = warn;
            this.preamble = preamble;
        }

        public static Route to(LocalTarget target) {
            return new Route(Objects.requireNonNull(target), null, m -> {
            }, null);
        }

        /** To {@code target}, the peer's first bytes passing through a new {@code preamble} of each channel. */
        public static Route to(LocalTarget target, java.util.function.Supplier<Preamble> preamble,
                Consumer<String> warn) {
            return new Route(Objects.requireNonNull(target), null, Objects.requireNonNull(warn),
                    Objects.requireNonNull(preamble));
        }

        /**
         * A SOCKS4/5 server on the channel; {@code permits} decides each requested host and port (as given by the
         * SOCKS client, no DNS); {@code warn} gets a line for each refusal.
         */
        public static Route socks(BiPredicate<String, Integer> permits, Consumer<String> warn) {
            return new Route(null, Objects.requireNonNull(permits), Objects.requireNonNull(warn), null);
        }
    }

    private final Router router;
    private final Object lock = new Object();
    private SocketChannel socket; // guarded by lock
    private SocksHandshake socks; // guarded by lock; non-null until the SOCKS request is read
    private SocksHandshake handshake; // the SOCKS handshake of this channel (its version shapes the replies)
    private Route socksRoute;
    private final ByteArrayOutputStream early = new ByteArrayOutputStream(); // bytes before the socket exists
    private long earlyUnreleased;
    private final RelayEnds ends = new RelayEnds(lock);
    private OutputStream toPeer;
    private Preamble preamble; // guarded by lock; non-null until the peer's preamble is complete
    private Consumer<String> warn = m -> {
    };

    public RelayChannel(Router router) {
        super("", Collections.emptyList(), null);
        this.router = Objects.requireNonNull(router);
    }

    @Override
    protected OpenFuture doInit(Buffer buffer) {
        OpenFuture f = new DefaultOpenFuture(this, this);
        Route route;
        try {
            route = router.route(buffer);
        } catch (IOException | RuntimeException e) {
            f.setException(new SshChannelOpenException(getChannelId(), SshConstants.SSH_OPEN_CONNECT_FAILED,
                    "bad channel open request: " + e.getMessage(), e));
            return f;
        }
        if (route == null) {
            f.setException(new SshChannelOpenException(getChannelId(),
                    SshConstants.SSH_OPEN_ADMINISTRATIVELY_PROHIBITED, "no such forwarding was requested"));
            return f;
        }
        toPeer = new ChannelOutputStream(this, getRemoteWindow(), log, SshConstants.SSH_MSG_CHANNEL_DATA, true);
        if (route.preamble != null) {
            synchronized (lock) {
                preamble = route.preamble.get();
            }
            warn = route.warn;
        }
        addCloseFutureListener(cf -> closeSocket());
        if (route.target == null) {
            synchronized (lock) {
                socksRoute = route;
                handshake = new SocksHandshake();
                socks = handshake;
            }
            opened(f);
            return f;
        }
        Thread connector = new Thread(() -> {
            try {
                SocketChannel s = route.target.connect();
                synchronized (lock) {
                    socket = s;
                }
                opened(f);
                startPump(s);
            } catch (IOException | RuntimeException e) {
                route.warn.accept("connect " + route.target + ": " + e.getMessage()); // ssh's x11_connect_display
                f.setException(new SshChannelOpenException(getChannelId(), SshConstants.SSH_OPEN_CONNECT_FAILED,
                        "connect to " + route.target + " failed: " + e.getMessage(), e));
            }
        }, "forward-connect");
        connector.setDaemon(true);
        connector.start();
        return f;
    }

    private void opened(OpenFuture f) {
        try {
            signalChannelOpenSuccess();
            f.setOpened();
        } catch (RuntimeException e) {
            signalChannelOpenFailure(e);
            f.setException(e);
        }
    }

    @Override
    protected void doWriteData(byte[] data, int off, long len) throws IOException {
        SocksHandshake.Step step = null;
        SocketChannel s;
        synchronized (lock) {
            s = socket;
            if (s == null) {
                if (socks != null) {
                    step = socks.feed(data, off, (int) len);
                    getLocalWindow().release(len);
                    if (step.host() != null || step.error() != null) {
                        socks = null;
                        early.writeBytes(step.rest());
                    }
                } else {
                    // SOCKS request read, target still connecting: kept until then (the window is released then)
                    early.write(data, off, (int) len);
                    earlyUnreleased += len;
                    return;
                }
            }
        }
        if (step != null) {
            try {
                socksStep(step);
            } catch (IOException e) {
                close(false); // the channel is going away: this connection ends, the session goes on
            }
            return;
        }
        ByteBuffer out = ByteBuffer.wrap(data, off, (int) len);
        synchronized (lock) {
            if (preamble != null) {
                byte[] passed;
                try {
                    passed = preamble.feed(data, off, (int) len);
                } catch (IOException e) {
                    preamble = null;
                    warn.accept(e.getMessage());
                    close(false);
                    return;
                }
                if (passed == null) {
                    getLocalWindow().release(len);
                    return;
                }
                preamble = null;
                out = ByteBuffer.wrap(passed);
            }
        }
        try {
            RelayEnds.writeFully(s, out);
        } catch (IOException e) {
            close(false); // the local end went away
            return;
        }
        getLocalWindow().release(len);
    }

    private void socksStep(SocksHandshake.Step step) throws IOException {
        byte[] reply = step.reply();
        if (reply.length > 0) {
            toPeer.write(reply);
            toPeer.flush();
        }
        if (step.error() != null) {
            log.debug("SOCKS handshake on {} failed: {}", this, step.error());
            close(false);
            return;
        }
        if (step.host() != null) {
            Thread t = new Thread(() -> socksConnect(step.host(), step.port()), "forward-socks-connect");
            t.setDaemon(true);
            t.start();
        }
    }

    private void socksConnect(String host, int port) {
        Route r = socksRoute;
        SocksHandshake h = handshake;
        try {
            if (!r.socksPermits.test(host, port)) {
                r.warn.accept("Warning: remote dynamic forwarding to host " + host + " port " + port
                        + " denied by PermitRemoteOpen");
                toPeer.write(h.failure(SocksHandshake.NOT_ALLOWED));
                toPeer.flush();
                close(false);
                return;
            }
            SocketChannel s;
            try {
                s = LocalTarget.tcp(host, port).connect();
            } catch (IOException | RuntimeException e) {
                r.warn.accept("Warning: remote dynamic forwarding: connect to host " + host + " port " + port
                        + " failed: " + e.getMessage());
                toPeer.write(h.failure(SocksHandshake.CONNECTION_REFUSED));
                toPeer.flush();
                close(false);
                return;
            }
            toPeer.write(h.success());
            toPeer.flush();
            synchronized (lock) {
                RelayEnds.writeFully(s, ByteBuffer.wrap(early.toByteArray()));
                early.reset();
                socket = s;
                if (ends.peerEofLocked()) {
                    s.shutdownOutput();
                }
            }
            getLocalWindow().release(earlyUnreleased);
            startPump(s);
        } catch (IOException e) {
            close(false);
        }
    }

    private void startPump(SocketChannel s) {
        SocketPump.start(s, toPeer, new byte[0], "forward-relay", () -> {
            if (ends.localEnded()) {
                close(false);
            }
        }, () -> close(false));
    }

    @Override
    protected void doWriteExtendedData(byte[] data, int off, long len) throws IOException {
        throw new IOException("a forwarded connection carries no extended data");
    }

    @Override
    public void handleEof() throws IOException {
        super.handleEof();
        boolean closeNow;
        synchronized (lock) {
            boolean socketEof = ends.peerEndedLocked();
            closeNow = socketEof || (socket == null && socks != null);
            if (socket != null && !socketEof) {
                try {
                    socket.shutdownOutput();
                } catch (IOException e) {
                    closeNow = true;
                }
            }
        }
        if (closeNow) {
            close(false);
        }
    }

    private void closeSocket() {
        SocketChannel s;
        synchronized (lock) {
            s = socket;
        }
        RelayEnds.closeQuietly(s);
    }
}
