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
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private final List<PortForwardingTracker> trackers = new ArrayList<>();
    private final List<LocalForwardListener> listeners = new ArrayList<>();

    private PortForwards() {
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
        PortForwards pf = new PortForwards();
        for (ForwardSpec s : specs) {
            try {
                switch (s.kind()) {
                    case LOCAL -> {
                        if (s.bindPath() == null && s.targetPath() == null) {
                            debug.accept(localConnections(s, gatewayPorts, s.targetHost() + ":" + s.targetPort()), 1);
                            PortForwardingTracker t = session.createLocalPortForwardingTracker(
                                    new SshdSocketAddress(localBind(s, gatewayPorts), s.bindPort()),
                                    new SshdSocketAddress(s.targetHost(), s.targetPort()));
                            pf.trackers.add(t);
                            debug.accept(listening(t.getBoundAddress().toInetSocketAddress()), 1);
                        } else {
                            pf.listeners.add(localStreamLocal(session, s, gatewayPorts, unix, warn));
                        }
                    }
                    case DYNAMIC -> {
                        debug.accept(localConnections(s, gatewayPorts, "socks:0"), 1);
                        LocalForwardListener l = LocalForwardListener.socks(session,
                                new InetSocketAddress(localBind(s, gatewayPorts), s.bindPort()), warn, debug);
                        pf.listeners.add(l);
                        debug.accept(listening((InetSocketAddress) l.boundAddress()), 1);
                    }
                    case REMOTE -> remote(session, s, remoteOpen, warn);
                }
            } catch (IOException | RuntimeException e) {
                String where = s.bindPath() != null ? "path " + s.bindPath() : "port " + s.bindPort();
                String msg = s.kind() == ForwardSpec.Kind.REMOTE
                        ? "remote port forwarding failed for listen " + where
                        : "Could not request " + s.kind().name().toLowerCase(Locale.ROOT) + " forwarding on "
                                + where + ": " + e.getMessage();
                if (exitOnFailure) {
                    pf.close();
                    throw new IOException("Error: " + msg, e);
                }
                warn.accept("Warning: " + msg);
            }
        }
        return pf;
    }

    /**
     * -R through {@link RemoteForwards} (MINA's remote forwarding cannot serve SOCKS): connections to the server's
     * listener go to the target, or, without one, to a SOCKS4/5 server on the channel limited by PermitRemoteOpen.
     */
    private static void remote(ClientSession session, ForwardSpec s, BiPredicate<String, Integer> remoteOpen,
            Consumer<String> warn) throws IOException {
        RelayChannel.Route route = s.targetPath() != null
                ? RelayChannel.Route.to(LocalTarget.unix(Path.of(s.targetPath())))
                : s.targetHost() == null
                ? RelayChannel.Route.socks(remoteOpen, warn)
                : RelayChannel.Route.to(LocalTarget.tcp(s.targetHost(), s.targetPort()));
        if (s.bindPath() != null) {
            RemoteForwards.listenStreamLocal(session, s.bindPath(), route, REQUEST_TIMEOUT);
            return;
        }
        int bound = RemoteForwards.listenTcp(session, remoteBind(s), s.bindPort(), route, REQUEST_TIMEOUT);
        if (s.bindPort() == 0) {
            // as ssh: the server chose the port, tell the user which
            warn.accept("Allocated port " + bound + " for remote forward to " + (s.targetPath() != null
                    ? s.targetPath() : s.targetHost() == null ? "a SOCKS proxy" : s.targetHost() + ":"
                    + s.targetPort()));
        }
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

    private static String describe(ForwardSpec s) {
        return s.kind().name().toLowerCase(Locale.ROOT) + " " + s;
    }

    @Override
    public void close() {
        for (PortForwardingTracker t : trackers) {
            try {
                t.close();
            } catch (IOException e) {
                // the session is going away; nothing to do about a listener that did not close
            }
        }
        trackers.clear();
        listeners.forEach(LocalForwardListener::close);
        listeners.clear();
    }
}
