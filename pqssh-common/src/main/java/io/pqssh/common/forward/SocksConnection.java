package io.pqssh.common.forward;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.ObjIntConsumer;

import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.session.Session;

/**
 * One connection to ssh's dynamic forwarding listener ({@code -D}), on a thread of its own: the SOCKS4/4a/5
 * handshake is read from the connection ({@link SocksHandshake}: no authentication, CONNECT only), then a
 * {@code direct-tcpip} channel is opened to the requested host and port with the connection's own address as
 * originator, as ssh does. As with ssh, the SOCKS success reply reaches the client once the server confirmed the
 * channel; unlike ssh, which then just closes, a refused open answers a SOCKS failure first, so the client can say
 * why. A malformed handshake is answered as {@link SocksHandshake} says and closed. Once open, the connection is an {@link OutgoingRelayChannel} (half-close
 * both ways).
 */
final class SocksConnection {
    private final Session session;
    private final SocketChannel c;
    private final int listenPort;
    private final Consumer<String> warn;
    private final ObjIntConsumer<String> debug;

    private SocksConnection(Session session, SocketChannel c, int listenPort, Consumer<String> warn,
            ObjIntConsumer<String> debug) {
        this.session = session;
        this.c = c;
        this.listenPort = listenPort;
        this.warn = warn;
        this.debug = debug;
    }

    static void start(Session session, SocketChannel c, int listenPort, Consumer<String> warn,
            ObjIntConsumer<String> debug) {
        debug.accept("Connection to port " + listenPort + " forwarding to socks port 0 requested.", 1);
        SocksConnection conn = new SocksConnection(session, c, listenPort, warn, debug);
        Thread t = new Thread(conn::run, "forward-socks");
        t.setDaemon(true);
        t.start();
    }

    private void run() {
        SocksHandshake h = new SocksHandshake();
        ByteBuffer buf = ByteBuffer.allocate(SocksHandshake.MAX_BYTES + 1);
        try {
            while (true) {
                buf.clear();
                int n = c.read(buf);
                if (n < 0) {
                    debug.accept("dynamic forwarding on port " + listenPort + ": connection closed before its"
                            + " SOCKS request", 2);
                    LocalForwardListener.closeQuietly(c);
                    return;
                }
                SocksHandshake.Step step = h.feed(buf.array(), 0, n);
                write(step.reply());
                if (step.error() != null) {
                    debug.accept("dynamic forwarding on port " + listenPort + ": " + step.error(), 2);
                    LocalForwardListener.closeQuietly(c);
                    return;
                }
                if (step.host() != null) {
                    open(h, step);
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            LocalForwardListener.closeQuietly(c);
        }
    }

    private void open(SocksHandshake h, SocksHandshake.Step step) throws IOException {
        InetSocketAddress from = (InetSocketAddress) c.getRemoteAddress();
        LocalForwardListener.Opening opening = LocalForwardListener.Opening.directTcpip(step.host(), step.port(),
                from.getAddress().getHostAddress(), from.getPort());
        OutgoingRelayChannel ch = LocalForwardListener.relay(session, c, opening, h.success(), step.rest(), warn,
                t -> {
                    try {
                        write(h.failure(socksReply(t)));
                    } catch (IOException e) {
                        // the SOCKS client went away: it is closed anyway
                    }
                });
        debug.accept("channel " + ch.getChannelId() + ": dynamic request: socks" + h.version() + " host "
                + step.host() + " port " + step.port() + " command 1", 2);
    }

    /** The SOCKS5 reply code (RFC 1928 section 6) for a refused channel (SOCKS4 has only "rejected"). */
    static int socksReply(Throwable refusal) {
        int reason = OpenFailure.reasonCode(refusal);
        if (reason == SshConstants.SSH_OPEN_ADMINISTRATIVELY_PROHIBITED) {
            return SocksHandshake.NOT_ALLOWED;
        }
        if (reason == SshConstants.SSH_OPEN_CONNECT_FAILED) {
            // sshd's description is strerror's or the resolver's; MINA's servers send a generic text instead
            String m = String.valueOf(refusal.getMessage()).toLowerCase(Locale.ROOT);
            if (m.contains("network is unreachable")) {
                return SocksHandshake.NETWORK_UNREACHABLE;
            }
            boolean host = m.contains("no route") || m.contains("unreachable") || m.contains("not known")
                    || m.contains("unknown host") || m.contains("resolve");
            return host ? SocksHandshake.HOST_UNREACHABLE : SocksHandshake.CONNECTION_REFUSED;
        }
        return SocksHandshake.GENERAL_FAILURE;
    }

    private void write(byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            c.write(b);
        }
    }
}
