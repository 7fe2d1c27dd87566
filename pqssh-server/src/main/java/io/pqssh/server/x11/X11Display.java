package io.pqssh.server.x11;

import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.sshd.common.io.IoAcceptor;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.Readable;
import org.apache.sshd.server.x11.ChannelForwardedX11;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One forwarded X11 display, as sshd's {@code x11_create_display_inet}: the first display number from
 * X11DisplayOffset whose TCP port 6000+N is free on every address it listens on (loopback, both families, with
 * X11UseLocalhost yes; every address otherwise), so that no X client can reach another listener of the same number.
 * Each connection to it becomes an {@code x11} channel to the client (MINA's {@link ChannelForwardedX11}, which
 * names the X client's address and port); with single-connection only the first one is taken. The listener goes
 * away with {@link #close} (the session channel closed) and with the SSH connection; channels already open carry on
 * until they end, as in sshd.
 */
public final class X11Display implements IoHandler {
    private static final Logger LOG = LoggerFactory.getLogger(X11Display.class);
    /** The X protocol's TCP base port. */
    static final int X_TCP_PORT = 6000;

    private final ConnectionService service;
    private final boolean singleConnection;
    private final AtomicBoolean taken = new AtomicBoolean();
    private IoAcceptor acceptor;
    private List<SocketAddress> bound = List.of();
    private int number = -1;

    private X11Display(ConnectionService service, boolean singleConnection) {
        this.service = service;
        this.singleConnection = singleConnection;
    }

    /**
     * Listens on the next free display.
     *
     * @throws IOException with sshd's reason when no display number from the offset to 999 is free
     */
    public static X11Display open(ConnectionService service, X11Settings settings, boolean singleConnection)
            throws IOException {
        X11Display d = new X11Display(service, singleConnection);
        Session session = service.getSession();
        d.acceptor = session.getFactoryManager().getIoServiceFactory().createAcceptor(d);
        session.addCloseFutureListener(f -> d.acceptor.close(true));
        List<InetAddress> hosts = addresses(settings.useLocalhost());
        for (int n = settings.displayOffset(); n < X11Settings.MAX_DISPLAYS; n++) {
            List<SocketAddress> ok = new ArrayList<>();
            try {
                for (InetAddress h : hosts) {
                    SocketAddress a = new InetSocketAddress(h, X_TCP_PORT + n);
                    d.acceptor.bind(a);
                    ok.add(a);
                }
            } catch (BindException e) {
                LOG.debug("X11 display {}: {}", n, e.getMessage());
                ok.forEach(d.acceptor::unbind);
                continue;
            }
            d.bound = List.copyOf(ok);
            d.number = n;
            return d;
        }
        d.acceptor.close(true);
        throw new IOException("Failed to allocate internet-domain X11 display socket.");
    }

    /** Loopback of both families (IPv6 only when this host has it), or the wildcard (dual-stack when it can). */
    private static List<InetAddress> addresses(boolean localhost) throws IOException {
        boolean v6 = ipv6Loopback();
        if (localhost) {
            return v6 ? List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("::1"))
                    : List.of(InetAddress.getByName("127.0.0.1"));
        }
        return List.of(InetAddress.getByName(v6 ? "::" : "0.0.0.0"));
    }

    private static boolean ipv6Loopback() {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The display number N (TCP port 6000+N). */
    public int number() {
        return number;
    }

    /** Stops listening; open x11 channels are not affected. */
    public void close() {
        IoAcceptor a = acceptor;
        bound.forEach(a::unbind);
    }

    @Override
    public void sessionCreated(IoSession session) throws Exception {
        if (singleConnection && taken.getAndSet(true)) {
            session.close(true);
            return;
        }
        if (singleConnection) {
            close(); // sshd: the listener is closed once its single connection is accepted
        }
        ChannelForwardedX11 channel = new ChannelForwardedX11(session);
        session.setAttribute(ChannelForwardedX11.class, channel);
        service.registerChannel(channel);
        // wait for the client's confirmation before reading from the X client: data goes to the channel's stream,
        // which exists once the channel is open (MINA's own X11 support does the same)
        try {
            channel.open().verify(OPEN_TIMEOUT_MS);
        } catch (IOException | RuntimeException e) {
            LOG.debug("x11 channel refused by the client: {}", e.getMessage());
            session.close(true);
        }
    }

    /** How long the client may take to confirm an x11 channel. */
    private static final long OPEN_TIMEOUT_MS = 30_000;

    @Override
    public void sessionClosed(IoSession session) throws Exception {
        Object c = session.getAttribute(ChannelForwardedX11.class);
        if (c instanceof ChannelForwardedX11 channel) {
            channel.close(false);
        }
    }

    @Override
    public void messageReceived(IoSession session, Readable message) throws Exception {
        ChannelForwardedX11 channel = (ChannelForwardedX11) session.getAttribute(ChannelForwardedX11.class);
        OutputStream out = channel == null ? null : channel.getInvertedIn();
        if (out == null) {
            session.close(true);
            return;
        }
        byte[] b = new byte[message.available()];
        message.getRawBytes(b, 0, b.length);
        out.write(b);
        out.flush();
    }

    @Override
    public void exceptionCaught(IoSession session, Throwable cause) throws Exception {
        LOG.debug("X11 connection {}: {}", session, cause.toString());
        session.close(true);
    }
}
