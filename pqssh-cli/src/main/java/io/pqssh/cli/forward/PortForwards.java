package io.pqssh.cli.forward;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.session.forward.PortForwardingTracker;
import org.apache.sshd.common.util.net.SshdSocketAddress;

import io.pqssh.cli.config.ConfigException;
import io.pqssh.cli.config.ForwardSpec;

/**
 * Starts a session's -L, -R and -D forwardings through MINA's forwarder (its SOCKS4/5 proxy serves -D). As ssh: a
 * forwarding that cannot be set up is a warning unless {@code ExitOnForwardFailure yes}, then an error; -L and -D
 * listen on loopback unless a bind address is given or {@code GatewayPorts yes}; -R asks for "localhost" unless a
 * bind address is given ("*" asks for every interface, which the server's GatewayPorts decides).
 */
public final class PortForwards implements AutoCloseable {
    private final List<PortForwardingTracker> trackers = new ArrayList<>();

    private PortForwards() {
    }

    /** Refuses, before connecting, what pqssh cannot forward (Unix sockets, -R's dynamic form). */
    public static void checkSupported(List<ForwardSpec> specs) throws ConfigException {
        for (ForwardSpec s : specs) {
            if (s.bindPath() != null || s.targetPath() != null) {
                throw new ConfigException("forwarding " + describe(s) + ": Unix domain socket forwarding is not"
                        + " supported by pqssh ssh");
            }
            if (s.kind() == ForwardSpec.Kind.REMOTE && s.targetHost() == null) {
                throw new ConfigException("forwarding " + describe(s) + ": remote dynamic forwarding (-R [bind:]port)"
                        + " is not supported by pqssh ssh");
            }
        }
    }

    /**
     * @param gatewayPorts the client's {@code GatewayPorts}: -L/-D without a bind address listen on every interface
     * @throws IOException when {@code exitOnFailure} and one forwarding failed (the others are stopped)
     */
    public static PortForwards start(ClientSession session, List<ForwardSpec> specs, boolean gatewayPorts,
            boolean exitOnFailure, Consumer<String> warn) throws IOException {
        PortForwards pf = new PortForwards();
        for (ForwardSpec s : specs) {
            try {
                pf.trackers.add(switch (s.kind()) {
                    case LOCAL -> session.createLocalPortForwardingTracker(
                            new SshdSocketAddress(localBind(s, gatewayPorts), s.bindPort()),
                            new SshdSocketAddress(s.targetHost(), s.targetPort()));
                    case DYNAMIC -> session.createDynamicPortForwardingTracker(
                            new SshdSocketAddress(localBind(s, gatewayPorts), s.bindPort()));
                    case REMOTE -> {
                        PortForwardingTracker t = session.createRemotePortForwardingTracker(
                                new SshdSocketAddress(remoteBind(s), s.bindPort()),
                                new SshdSocketAddress(s.targetHost(), s.targetPort()));
                        if (s.bindPort() == 0) {
                            // as ssh: the server chose the port, tell the user which
                            warn.accept("Allocated port " + t.getBoundAddress().getPort() + " for remote forward to "
                                    + s.targetHost() + ":" + s.targetPort());
                        }
                        yield t;
                    }
                });
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

    /** The local (for -L, -D) or remote (for -R) address each started forwarding is bound to, in order. */
    public List<SshdSocketAddress> boundAddresses() {
        return trackers.stream().map(PortForwardingTracker::getBoundAddress).toList();
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
