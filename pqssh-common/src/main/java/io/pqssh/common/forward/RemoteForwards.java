package io.pqssh.common.forward;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.SshException;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.channel.ChannelFactory;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * The client side of remote forwarding ({@code -R}), in place of MINA's: the listeners a client asked the server
 * for ({@code tcpip-forward}, {@code streamlocal-forward@openssh.com}) and where each one's connections go. The
 * server's {@code forwarded-tcpip} and {@code forwarded-streamlocal@openssh.com} channels are served by
 * {@link #CHANNEL_FACTORIES} only for listeners this session requested; any other is refused, so a server never
 * makes the client connect anywhere it did not configure.
 */
public final class RemoteForwards {
    private static final AttributeKey<RemoteForwards> KEY = new AttributeKey<>();

    /** Install on the client ({@code SshClient.setChannelFactories}) before it starts. */
    public static final List<ChannelFactory> CHANNEL_FACTORIES = List.of(
            factory("forwarded-tcpip", (s, b) -> {
                b.getString(); // the address the server listens on: the port identifies the listener
                int port = (int) b.getUInt();
                return of(s).tcp.get(port);
            }),
            factory("forwarded-streamlocal@openssh.com", (s, b) -> of(s).streamLocal.get(b.getString())));

    private final Map<Integer, RelayChannel.Route> tcp = new ConcurrentHashMap<>();
    private final Map<String, RelayChannel.Route> streamLocal = new ConcurrentHashMap<>();

    private RemoteForwards() {
    }

    private static RemoteForwards of(Session s) {
        return s.computeAttributeIfAbsent(KEY, k -> new RemoteForwards());
    }

    private interface SessionRouter {
        RelayChannel.Route route(Session s, Buffer openData) throws IOException;
    }

    private static ChannelFactory factory(String type, SessionRouter router) {
        return new ChannelFactory() {
            @Override
            public String getName() {
                return type;
            }

            @Override
            public Channel createChannel(Session session) {
                return new RelayChannel(b -> router.route(session, b));
            }
        };
    }

    /**
     * Sends {@code tcpip-forward} for {@code address:port} ({@code ""} every interface, {@code localhost} loopback,
     * port 0 the server's choice) and routes its connections.
     *
     * @return the port the server listens on
     * @throws IOException when the server refused or did not answer within {@code timeout}
     */
    public static int listenTcp(Session session, String address, int port, RelayChannel.Route route,
            Duration timeout) throws IOException {
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_GLOBAL_REQUEST, address.length() + 32);
        b.putString("tcpip-forward");
        b.putBoolean(true);
        b.putString(address);
        b.putUInt(port);
        Map<Integer, RelayChannel.Route> routes = of(session).tcp;
        // a fixed port is routed before asking: the first connection may arrive before the reply is read
        if (port != 0 && routes.putIfAbsent(port, route) != null) {
            throw new SshException("remote port " + port + " is already forwarded");
        }
        Buffer reply;
        try {
            reply = session.request("tcpip-forward", b, timeout);
        } catch (IOException | RuntimeException e) {
            routes.remove(port, route);
            throw e;
        }
        if (reply == null) {
            routes.remove(port, route);
            throw new SshException("remote port forwarding failed for listen port " + port);
        }
        if (port != 0) {
            return port;
        }
        int bound = (int) reply.getUInt();
        if (routes.putIfAbsent(bound, route) != null) {
            throw new SshException("remote port " + bound + " is already forwarded");
        }
        return bound;
    }

    /** Sends {@code streamlocal-forward@openssh.com} for the server-side socket {@code path} and routes it. */
    public static void listenStreamLocal(Session session, String path, RelayChannel.Route route, Duration timeout)
            throws IOException {
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_GLOBAL_REQUEST, path.length() + 64);
        b.putString("streamlocal-forward@openssh.com");
        b.putBoolean(true);
        b.putString(path);
        Map<String, RelayChannel.Route> routes = of(session).streamLocal;
        if (routes.putIfAbsent(path, route) != null) {
            throw new SshException("remote socket " + path + " is already forwarded");
        }
        Buffer reply;
        try {
            reply = session.request("streamlocal-forward@openssh.com", b, timeout);
        } catch (IOException | RuntimeException e) {
            routes.remove(path, route);
            throw e;
        }
        if (reply == null) {
            routes.remove(path, route);
            throw new SshException("remote port forwarding failed for listen path " + path);
        }
    }

    /**
     * Sends {@code cancel-tcpip-forward} for a listener this session asked for (no reply wanted, as ssh's
     * {@code channel_request_rforward_cancel}) and stops routing its connections.
     */
    public static void cancelTcp(Session session, String address, int port) throws IOException {
        of(session).tcp.remove(port);
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_GLOBAL_REQUEST, address.length() + 48);
        b.putString("cancel-tcpip-forward");
        b.putBoolean(false);
        b.putString(address);
        b.putUInt(port);
        session.writePacket(b);
    }

    /** {@link #cancelTcp} for a server-side socket ({@code cancel-streamlocal-forward@openssh.com}). */
    public static void cancelStreamLocal(Session session, String path) throws IOException {
        of(session).streamLocal.remove(path);
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_GLOBAL_REQUEST, path.length() + 64);
        b.putString("cancel-streamlocal-forward@openssh.com");
        b.putBoolean(false);
        b.putString(path);
        session.writePacket(b);
    }
}
