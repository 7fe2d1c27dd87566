package io.pqssh.client.forward;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.Locale;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.ObjIntConsumer;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.session.forward.PortForwardingTracker;
import org.apache.sshd.common.util.net.SshdSocketAddress;

import io.pqssh.client.config.ForwardSpec;
import io.pqssh.common.forward.LocalForwardListener;
import io.pqssh.common.forward.LocalTarget;
import io.pqssh.common.forward.RelayChannel;
import io.pqssh.common.forward.RemoteForwards;

/**
 * Starts a session's TCP -L forwardings through MINA's forwarder, -L with a Unix socket and -D (a SOCKS4/4a/5 server
 * whose connections become {@code direct-tcpip} channels) through {@link LocalForwardListener}, -R through
 * {@link RemoteForwards} (with a SOCKS server on the client for -R's dynamic form). As ssh: a
 * forwarding that cannot be set up is a warning unless {@code ExitOnForwardFailure yes}, then an error; -L and -D
 * listen on loopback unless a bind address is given or {@code GatewayPorts yes}; -R asks for "localhost" unless a
 * bind address is given ("*" asks for every interface, which the server's GatewayPorts decides).
 */
public final class PortForwards implements AutoCloseable {
    /** The session's forwardings, for the escape command line ({@code ~C}) and the mux master's {@code -O}. */
    public static final org.apache.sshd.common.AttributeRepository.AttributeKey<PortForwards> KEY =
            new org.apache.sshd.common.AttributeRepository.AttributeKey<>();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** One forwarding set up: its spec, the port it listens on, what stops it. */
    private record Active(ForwardSpec spec, int port, AutoCloseable stop) {
    }

    private final ClientSession session;
    private final boolean gatewayPorts;
    private final BiPredicate<String, Integer> remoteOpen;
    private final UnixSockets unix;
    private final Consumer<String> warn;
    private final ObjIntConsumer<String> debug;
    private final List<Active> active = new java.util.concurrent.CopyOnWriteArrayList<>();

    private PortForwards(ClientSession session, boolean gatewayPorts, BiPredicate<String, Integer> remoteOpen,
            UnixSockets unix, Consumer<String> warn, ObjIntConsumer<String> debug) {
        this.session = session;
        this.gatewayPorts = gatewayPorts;
        this.remoteOpen = remoteOpen;
        this.unix = unix;
        this.warn = warn;
        this.debug = debug;
    }

    /**
     * @param gatewayPorts the client's {@code GatewayPorts}: -L/-D without a bind address listen on every interface
     * @param remoteOpen the client's {@code PermitRemoteOpen}: where a remote dynamic forwarding may connect
     * @param debug ssh's {@code -v} lines with their level (1, 2)
     * @throws IOException when {@code exitOnFailure} and one forwarding failed (the others are stopped)
     */
    public static PortForwards start(ClientSession session, List<ForwardSpec> specs, boolean gatewayPorts,
            boolean exitOnFailure, BiPredicate<String, Integer> remoteOpen, UnixSockets unix, Consumer<String> warn,
            ObjIntConsumer<String> debug) throws IOException {
        PortForwards pf = new PortForwards(session, gatewayPorts, remoteOpen, unix, warn, debug);
        for (ForwardSpec s : specs) {
            try {
                pf.add(s);
            } catch (IOException | RuntimeException e) {
                String msg = failure(s, e);
                if (exitOnFailure) {
                    pf.close();
                    throw new IOException("Error: " + msg, e);
                }
                warn.accept("Warning: " + msg);
            }
        }
        session.setAttribute(KEY, pf);
        return pf;
    }

    /** ssh's words for a forwarding that could not be set up (after "Warning: " or "Error: "). */
    public static String failure(ForwardSpec s, Throwable e) {
        String where = s.bindPath() != null ? "path " + s.bindPath() : "port " + s.bindPort();
        return s.kind() == ForwardSpec.Kind.REMOTE
                ? "remote port forwarding failed for listen " + where
                : "Could not request " + s.kind().name().toLowerCase(Locale.ROOT) + " forwarding on "
                        + where + ": " + e.getMessage();
    }

    /** The session's forwardings (none started yet: an empty set, to which {@code ~C} and the mux add). */
    public static PortForwards of(ClientSession session) {
        return session.getAttribute(KEY);
    }

    /**
     * Sets up one forwarding on the running session; it lives until cancelled or the session ends.
     *
     * @return the port it listens on (the server's choice for a remote {@code 0}), -1 for a Unix socket
     */
    public int add(ForwardSpec s) throws IOException {
        switch (s.kind()) {
            case LOCAL -> {
                if (s.bindPath() == null && s.targetPath() == null) {
                    debug.accept(localConnections(s, gatewayPorts, s.targetHost() + ":" + s.targetPort()), 1);
                    PortForwardingTracker t = session.createLocalPortForwardingTracker(
                            new SshdSocketAddress(localBind(s, gatewayPorts), s.bindPort()),
                            new SshdSocketAddress(s.targetHost(), s.targetPort()));
                    InetSocketAddress bound = t.getBoundAddress().toInetSocketAddress();
                    active.add(new Active(s, bound.getPort(), t));
                    debug.accept(listening(bound), 1);
                    return bound.getPort();
                }
                LocalForwardListener l = localStreamLocal(session, s, gatewayPorts, unix, warn);
                int port = s.bindPort() == null ? -1 : ((InetSocketAddress) l.boundAddress()).getPort();
                active.add(new Active(s, port, l));
                return port;
            }
            case DYNAMIC -> {
                debug.accept(localConnections(s, gatewayPorts, "socks:0"), 1);
                LocalForwardListener l = LocalForwardListener.socks(session,
                        new InetSocketAddress(localBind(s, gatewayPorts), s.bindPort()), warn, debug);
                InetSocketAddress bound = (InetSocketAddress) l.boundAddress();
                active.add(new Active(s, bound.getPort(), l));
                debug.accept(listening(bound), 1);
                return bound.getPort();
            }
            case REMOTE -> {
                int port = remote(session, s, remoteOpen, warn);
                String address = s.bindPath() != null ? null : remoteBind(s);
                active.add(new Active(s, port, () -> {
                    if (s.bindPath() != null) {
                        RemoteForwards.cancelStreamLocal(session, s.bindPath());
                    } else {
                        RemoteForwards.cancelTcp(session, address, port);
                    }
                }));
                return port;
            }
            default -> throw new IllegalArgumentException(s.kind().name());
        }
    }

    /** Whether exactly this forwarding is set up already (a fixed port; ssh's mux then answers OK again). */
    public boolean isActive(ForwardSpec s) {
        return (s.bindPort() == null || s.bindPort() != 0) && active.stream().anyMatch(a -> a.spec().equals(s));
    }

    /**
     * Stops the forwarding of {@code kind} that listens on {@code cancel}'s {@code [bind_address:]port} (or path),
     * as ssh's {@code -KL}/{@code -KR}/{@code -KD} and mux {@code -O cancel}: -KL does not match a -D listener.
     *
     * @return false when no such forwarding is active
     */
    public boolean cancel(ForwardSpec.Kind kind, ForwardSpec cancel) throws IOException {
        for (Active a : active) {
            ForwardSpec s = a.spec();
            boolean match = s.kind() == kind && (cancel.bindPath() != null
                    ? cancel.bindPath().equals(s.bindPath())
                    : s.bindPath() == null && cancel.bindPort() != null
                            && (cancel.bindPort() == a.port() || cancel.bindPort().equals(s.bindPort()))
                            && sameBind(kind, s, cancel));
            if (match && active.remove(a)) {
                try {
                    a.stop().close();
                } catch (IOException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException(e);
                }
                return true;
            }
        }
        return false;
    }

    private boolean sameBind(ForwardSpec.Kind kind, ForwardSpec a, ForwardSpec b) {
        if (b.bindAddress() == null) {
            return true; // ssh: a port alone names the listener on that port
        }
        return kind == ForwardSpec.Kind.REMOTE ? remoteBind(a).equals(remoteBind(b))
                : localBind(a, gatewayPorts).equals(localBind(b, gatewayPorts));
    }

    /**
     * -R through {@link RemoteForwards} (MINA's remote forwarding cannot serve SOCKS): connections to the server's
     * listener go to the target, or, without one, to a SOCKS4/5 server on the channel limited by PermitRemoteOpen.
     */
    private static int remote(ClientSession session, ForwardSpec s, BiPredicate<String, Integer> remoteOpen,
            Consumer<String> warn) throws IOException {
        RelayChannel.Route route = s.targetPath() != null
                ? RelayChannel.Route.to(LocalTarget.unix(Path.of(s.targetPath())))
                : s.targetHost() == null
                ? RelayChannel.Route.socks(remoteOpen, warn)
                : RelayChannel.Route.to(LocalTarget.tcp(s.targetHost(), s.targetPort()));
        if (s.bindPath() != null) {
            RemoteForwards.listenStreamLocal(session, s.bindPath(), route, REQUEST_TIMEOUT);
            return -1;
        }
        int bound = RemoteForwards.listenTcp(session, remoteBind(s), s.bindPort(), route, REQUEST_TIMEOUT);
        if (s.bindPort() == 0) {
            // as ssh: the server chose the port, tell the user which
            warn.accept("Allocated port " + bound + " for remote forward to " + (s.targetPath() != null
                    ? s.targetPath() : s.targetHost() == null ? "a SOCKS proxy" : s.targetHost() + ":"
                    + s.targetPort()));
        }
        return bound;
    }

    /** ssh's StreamLocalBindMask and StreamLocalBindUnlink, for the Unix sockets -L creates. */
    public record UnixSockets(int mask, boolean unlink) {
    }

    /** -L with a Unix socket on either side, which MINA's forwarder cannot do. */
    private static LocalForwardListener localStreamLocal(ClientSession session, ForwardSpec s, boolean gatewayPorts,
            UnixSockets unix, Consumer<String> warn) throws IOException {
        LocalForwardListener.Opening opening = s.targetPath() != null
                ? LocalForwardListener.Opening.directStreamLocal(s.targetPath())
                : LocalForwardListener.Opening.directTcpip(s.targetHost(), s.targetPort());
        if (s.bindPath() != null) {
            return LocalForwardListener.unix(session, Path.of(s.bindPath()), unix.mask(), unix.unlink(), opening,
                    warn);
        }
        return LocalForwardListener.tcp(session, new InetSocketAddress(localBind(s, gatewayPorts), s.bindPort()),
                opening, warn);
    }

    /** ssh's first {@code -v} line for a TCP -L or -D ({@code target}: {@code host:port}, {@code socks:0} for -D). */
    private static String localConnections(ForwardSpec s, boolean gatewayPorts, String target) {
        String listen = s.bindAddress() != null ? s.bindAddress() : gatewayPorts ? "*" : "LOCALHOST";
        return "Local connections to " + listen + ":" + s.bindPort() + " forwarded to remote address " + target;
    }

    private static String listening(InetSocketAddress bound) {
        return "Local forwarding listening on " + bound.getAddress().getHostAddress() + " port " + bound.getPort()
                + ".";
    }

    private static String localBind(ForwardSpec s, boolean gatewayPorts) {
        String a = s.bindAddress();
        if (a == null) {
            return gatewayPorts ? "0.0.0.0" : "127.0.0.1";
        }
        if (a.equals("localhost")) {
            return "127.0.0.1";
        }
        return a.equals("*") || a.isEmpty() ? "0.0.0.0" : a;
    }

    private static String remoteBind(ForwardSpec s) {
        String a = s.bindAddress();
        if (a == null) {
            return "localhost";
        }
        return a.equals("*") ? "" : a; // "" (given empty) asks for every interface too
    }

    @Override
    public void close() {
        for (Active a : active) {
            if (a.spec().kind() == ForwardSpec.Kind.REMOTE) {
                continue; // the server's listeners end with the connection
            }
            try {
                a.stop().close();
            } catch (Exception e) {
                // the session is going away; nothing to do about a listener that did not close
            }
        }
        active.clear();
    }
}
