package io.pqssh.server;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.session.Session;

import io.pqssh.server.config.ConnectionInfo;

/**
 * sshd's Match evaluated per connection: once the user name is known (the first USERAUTH_REQUEST, as sshd's
 * {@code getpwnamallow}) the server's {@link Evaluator} turns the connection into its settings, which are kept on
 * the session; the auth service, forwarding filter, timeouts, session limit and session launch read them from
 * there ({@link #of}) and fall back to the server-wide values they were built with when the server has no Match
 * blocks (or is embedded without one).
 * <p>
 * The connection's values are the server's own view of the socket, never what the client says: Host is the
 * address as text, as sshd's with {@code UseDNS no} (pqssh never resolves client addresses), and Group comes from
 * the system's group database.
 */
public final class ConnectionConfig {
    /** The connection's evaluated settings (session attribute). */
    public static final AttributeKey<ServerConfig> KEY = new AttributeKey<>();
    /** The server's evaluator (SshServer attribute); absent: nothing is evaluated per connection. */
    public static final AttributeKey<Evaluator> EVALUATOR = new AttributeKey<>();

    /**
     * Evaluates the configuration for one connection; {@code groupsOf} is called only when a Match block tests
     * groups.
     */
    public record Evaluator(ServerConfig.Source source, Function<String, List<String>> groupsOf) {
        public ServerConfig evaluate(ConnectionInfo ci) throws ServerConfig.ConfigException {
            return source.evaluate(ci);
        }

        /** The connection as Match sees it, from the socket's addresses and the requested user name. */
        public ConnectionInfo describe(String user, SocketAddress client, SocketAddress local) {
            String addr = address(client);
            String laddr = address(local);
            Integer lport = local instanceof InetSocketAddress l ? l.getPort() : null;
            List<String> groups = source.matchesGroups() ? groupsOf.apply(user) : null;
            // UseDNS no (the only mode pqssh has): sshd's remote host name is the address itself
            return new ConnectionInfo(user, groups, addr, addr, laddr, lport, null);
        }

        private static String address(SocketAddress a) {
            if (a instanceof InetSocketAddress i && i.getAddress() != null) {
                String s = i.getAddress().getHostAddress();
                int zone = s.indexOf('%');
                // sshd prints IPv4-mapped IPv6 peers as IPv4 (ipv64_normalise_mapped)
                s = zone < 0 ? s : s.substring(0, zone);
                return s.startsWith("::ffff:") && s.indexOf('.') > 0 ? s.substring(7) : s;
            }
            return null;
        }
    }

    private ConnectionConfig() {
    }

    /** The connection's evaluated settings, if the server evaluates Match blocks and the user is known. */
    public static Optional<ServerConfig> of(Session session) {
        return session == null ? Optional.empty() : Optional.ofNullable(session.getAttribute(KEY));
    }

    /** {@code value} of the connection's settings, or {@code fallback} (the server-wide value). */
    public static <T> T get(Session session, Function<ServerConfig, T> value, T fallback) {
        return of(session).map(value).orElse(fallback);
    }
}
