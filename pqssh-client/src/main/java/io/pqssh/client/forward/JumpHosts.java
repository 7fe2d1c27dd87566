package io.pqssh.client.forward;

import java.util.ArrayList;
import java.util.List;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.session.ClientSessionCreator;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.util.net.SshdSocketAddress;

import io.pqssh.client.PqsshClient;

/**
 * {@code -J}/{@code ProxyJump}: each hop is logged in to as {@code pqssh ssh} would (its own ssh_config settings, the
 * same {@code -F}, {@code -v}/{@code -q}; not the command line's {@code -i}/{@code -o}, as OpenSSH), through the hops
 * before it; the destination's SSH connection then runs inside a {@code direct-tcpip} channel of the last hop's
 * session, as OpenSSH's {@code ssh -W} does over stdio: nothing listens on this machine.
 */
public final class JumpHosts {
    /** The rest of the login, given the authenticated session to the last hop. */
    @FunctionalInterface
    public interface Through {
        int connect(ClientSession lastHop) throws Exception;
    }

    /** Logs in to one hop with {@code pqssh ssh}'s arguments and runs {@code then} on its session. */
    @FunctionalInterface
    public interface HopLogin {
        int login(List<String> sshArguments, Through then);
    }

    private JumpHosts() {
    }

    public static int connect(List<String> hops, String host, int port, String configFile, int verbosity,
            boolean quiet, HopLogin login, Through then) {
        String last = hops.get(hops.size() - 1).strip();
        List<String> before = hops.subList(0, hops.size() - 1);
        List<String> args = new ArrayList<>();
        if (configFile != null) {
            args.addAll(List.of("-F", configFile));
        }
        if (!before.isEmpty()) {
            args.addAll(List.of("-J", String.join(",", before)));
        }
        for (int i = 0; i < verbosity; i++) {
            args.add("-v");
        }
        if (quiet) {
            args.add("-q");
        }
        String dest = last;
        if (!last.startsWith("ssh://")) {
            // [user@]host[:port], as ssh -J
            int at = last.lastIndexOf('@');
            int colon = last.lastIndexOf(':');
            if (colon > at && last.indexOf(']') < colon && last.substring(colon + 1).matches("\\d+")) {
                args.addAll(List.of("-p", last.substring(colon + 1)));
                dest = last.substring(0, colon).replace("[", "").replace("]", "");
            }
        }
        args.addAll(List.of("-T", dest));
        return login.login(args, then);
    }

    /**
     * Connects the client through {@code lastHop} and marks its sessions as being for {@code host:port}, the name the
     * host key check then uses (never an address of the hop).
     */
    public static void through(PqsshClient.Builder b, ClientSession lastHop, String host, int port) {
        b.through(lastHop);
        target(b, host, port);
    }

    /**
     * Marks the client's sessions as being for {@code host:port}, for a transport whose connections have no address
     * of their own (a jump host's channel, a ProxyCommand): the host key check and the KEX guess use this name.
     */
    public static void target(PqsshClient.Builder b, String host, int port) {
        SshdSocketAddress target = new SshdSocketAddress(host, port);
        b.customize(c -> c.addSessionListener(new SessionListener() {
            @Override
            public void sessionCreated(Session session) {
                session.setAttribute(ClientSessionCreator.TARGET_SERVER, target);
            }
        }));
    }
}
