package io.pqssh.cli.forward;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.Locale;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.session.forward.PortForwardingTracker;
import org.apache.sshd.common.util.net.SshdSocketAddress;

import io.pqssh.cli.config.ConfigException;
import io.pqssh.cli.config.ForwardSpec;
import io.pqssh.mina.forward.LocalTarget;
import io.pqssh.mina.forward.RelayChannel;
import io.pqssh.mina.forward.RemoteForwards;

/**
 * Starts a session's -L and -D forwardings through MINA's forwarder (its SOCKS4/5 proxy serves -D), -R through
 * {@link RemoteForwards} (with a SOCKS server on the client for -R's dynamic form). As ssh: a
 * forwarding that cannot be set up is a warning unless {@code ExitOnForwardFailure yes}, then an error; -L and -D
 * listen on loopback unless a bind address is given or {@code GatewayPorts yes}; -R asks for "localhost" unless a
 * bind address is given ("*" asks for every interface, which the server's GatewayPorts decides).
 */
public final class PortForwards implements AutoCloseable {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private final List<PortForwardingTracker> trackers = new ArrayList<>();

    private PortForwards() {
    }

    /** Refuses, before connecting, what pqssh cannot forward (Unix sockets). */
    public static void checkSupported(List<ForwardSpec> specs) throws ConfigException {
        for (ForwardSpec s : specs) {
            if (s.bindPath() != null || s.targetPath() != null) {
                throw new ConfigException("forwarding " + describe(s) + ": Unix domain socket forwarding is not"
                        + " supported by pqssh ssh");
            }
        }
    }

    /**
     * @param gatewayPorts the client's {@code GatewayPorts}: -L/-D without a bind address listen on every interface
     * @param remoteOpen the client's {@code PermitRemoteOpen}: where a remote dynamic forwarding may connect
     * @throws IOException when {@code exitOnFailure} and one forwarding failed (the others are stopped)
     */
    public static PortForwards start(ClientSession session, List<ForwardSpec> specs, boolean gatewayPorts,
            boolean exitOnFailure, BiPredicate<String, Integer> remoteOpen, Consumer<String> warn)
            throws IOException {
        PortForwards pf = new PortForwards();
        for (ForwardSpec s : specs) {
            try {
                switch (s.kind()) {
                    case LOCAL -> pf.trackers.add(session.createLocalPortForwardingTracker(
                            new SshdSocketAddress(localBind(s, gatewayPorts), s.bindPort()),
                            new SshdSocketAddress(s.targetHost(), s.targetPort())));
                    case DYNAMIC -> pf.trackers.add(session.createDynamicPortForwardingTracker(
                            new SshdSocketAddress(localBind(s, gatewayPorts), s.bindPort())));
                    case REMOTE -> remote(session, s, remoteOpen, warn);
                }
            } catch (IOException | RuntimeException e) {
                String msg = s.kind() == ForwardSpec.Kind.REMOTE
                        ? "remote port forwarding failed for listen port " + s.bindPort()
                        : "Could not request " + s.kind().name().toLowerCase(Locale.ROOT) + " forwarding on port "
                                + s.bindPort() + ": " + e.getMessage();
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
        RelayChannel.Route route = s.targetHost() == null
                ? RelayChannel.Route.socks(remoteOpen, warn)
                : RelayChannel.Route.to(LocalTarget.tcp(s.targetHost(), s.targetPort()));
        int bound = RemoteForwards.listenTcp(session, remoteBind(s), s.bindPort(), route, REQUEST_TIMEOUT);
        if (s.bindPort() == 0) {
            // as ssh: the server chose the port, tell the user which
            warn.accept("Allocated port " + bound + " for remote forward to " + (s.targetHost() == null
                    ? "a SOCKS proxy" : s.targetHost() + ":" + s.targetPort()));
        }
    }

    private static String localBind(ForwardSpec s, boolean gatewayPorts) {
        String a = s.bindAddress();
        if (a == null) {
            return gatewayPorts ? "0.0.0.0" : "127.0.0.1";
        }
        if (a.equals("localhost")) {
            return "127.0.0.1";
        }
        return a.equals("*") ? "0.0.0.0" : a;
    }

    private static String remoteBind(ForwardSpec s) {
        String a = s.bindAddress();
        if (a == null) {
            return "localhost";
        }
        return a.equals("*") ? "" : a;
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
    }
}
