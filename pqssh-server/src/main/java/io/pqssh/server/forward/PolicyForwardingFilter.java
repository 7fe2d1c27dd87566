package io.pqssh.server.forward;

import io.pqssh.common.forward.HostPortPattern;

import java.util.List;
import java.util.Objects;

import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.apache.sshd.server.forward.ForwardingFilter;
import org.apache.sshd.server.session.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.server.login.Account;
import io.pqssh.server.login.AdmittingUserAuthFactory;
import io.pqssh.server.login.KeyRestrictions;
import io.pqssh.server.login.ProcessIdentity;
import io.pqssh.server.x11.X11Settings;

/**
 * The server's forwarding decisions: the {@link ForwardingPolicy} keywords first, then the options of the
 * {@code authorized_keys} entries the session logged in with ({@code no-port-forwarding}, {@code restrict},
 * {@code permitopen=}, {@code permitlisten=}, {@code no-agent-forwarding}, {@code no-X11-forwarding}).
 * Every refusal is logged once at INFO, as sshd does.
 */
public final class PolicyForwardingFilter implements ForwardingFilter {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyForwardingFilter.class);

    private final ForwardingPolicy global;

    public PolicyForwardingFilter(ForwardingPolicy policy) {
        this.global = Objects.requireNonNull(policy);
    }

    /** The connection's forwarding keywords: its Match evaluation's, else the server's. */
    private ForwardingPolicy policy(Session session) {
        return io.pqssh.server.ConnectionConfig.get(session, c -> c.forwarding, global);
    }

    @Override
    public boolean canForwardAgent(Session session, String requestType) {
        if (!policy(session).agentForwardingAllowed()) {
            return refuse(session, "agent forwarding disabled by AllowAgentForwarding/DisableForwarding");
        }
        if (!keys(session).agentForwardingAllowed()) {
            return refuse(session, "agent forwarding disabled by the key's options");
        }
        return true;
    }

    /**
     * sshd's {@code session_setup_x11fwd} checks, in its order and with its messages: the key's options
     * ({@code no-X11-forwarding}, {@code restrict}; also sent to the client), then X11Forwarding and
     * DisableForwarding (the connection's Match evaluation, else the server's {@link X11Settings}).
     */
    @Override
    public boolean canForwardX11(Session session, String requestType) {
        if (!keys(session).x11ForwardingAllowed()) {
            if (session instanceof ServerSession s) {
                io.pqssh.server.x11.X11Forward.debug(s, "X11 forwarding disabled by key options.");
            }
            return refuse(session, "X11 forwarding disabled by key options.");
        }
        X11Settings global = session.getFactoryManager().getAttribute(X11Settings.KEY);
        X11Settings x11 = io.pqssh.server.ConnectionConfig.get(session, c -> c.x11, global);
        if (x11 == null || !x11.forwarding() || !policy(session).x11ForwardingAllowed()) {
            return refuse(session, "X11 forwarding disabled in server configuration file.");
        }
        return true;
    }

    /** A remote (-R) listener: {@code tcpip-forward}. */
    @Override
    public boolean canListen(SshdSocketAddress address, Session session) {
        String host = address.getHostName();
        int port = address.getPort();
        if (!policy(session).remoteForwardingAllowed()) {
            return refuse(session, "remote forwarding of " + host + ":" + port + " disabled by AllowTcpForwarding");
        }
        if (!keys(session).portForwardingAllowed()) {
            return refuse(session, "remote forwarding of " + host + ":" + port + " disabled by the key's options");
        }
        if (!policy(session).listenPermitted(host, port)) {
            return refuse(session, "remote forwarding of " + host + ":" + port + " not permitted by PermitListen");
        }
        List<String> keyListen = keys(session).permitListen();
        if (!keyListen.isEmpty() && !matches(keyListen, false, host, port)) {
            return refuse(session, "remote forwarding of " + host + ":" + port + " not in the key's permitlisten=");
        }
        if (!bindPermitted(port, listenerUid(session), ProcessIdentity.current().uid())) {
            return refuse(session, "remote forwarding of " + host + ":" + port + ": a port below "
                    + IPPORT_RESERVED + " needs uid 0 (sshd's bind_permitted)");
        }
        return true;
    }

    /** Ports below it are privileged ({@code IPPORT_RESERVED} of netinet/in.h). */
    static final int IPPORT_RESERVED = 1024;

    /**
     * sshd's {@code bind_permitted}: a privileged port only for uid 0. sshd binds in the user's own process, where
     * the kernel says the same; pqssh binds in the server's, so a root server must ask for the logged-in account.
     * Without a known account (an embedding without login policy) a root JVM refuses, failing closed; a non-root
     * JVM leaves it to the kernel, which binds as that JVM's user anyway. Port 0 is the kernel's choice.
     */
    static boolean bindPermitted(int port, java.util.OptionalLong accountUid, long processUid) {
        if (port == 0 || port >= IPPORT_RESERVED) {
            return true;
        }
        if (accountUid.isPresent()) {
            return accountUid.getAsLong() == 0;
        }
        return processUid != 0;
    }

    private static java.util.OptionalLong listenerUid(Session session) {
        if (session instanceof ServerSession s) {
            java.util.Optional<Account> a = AdmittingUserAuthFactory.account(s);
            if (a.isPresent()) {
                return java.util.OptionalLong.of(a.get().uid());
            }
        }
        return java.util.OptionalLong.empty();
    }

    /** A {@code direct-tcpip} channel (the client's -L and -D). */
    @Override
    public boolean canConnect(Type type, SshdSocketAddress address, Session session) {
        if (type != Type.Direct) {
            return refuse(session, "a server does not accept " + type.getName() + " channels");
        }
        String host = address.getHostName();
        int port = address.getPort();
        if (!policy(session).localForwardingAllowed()) {
            return refuse(session, "connection to " + host + ":" + port + " disabled by AllowTcpForwarding");
        }
        if (!keys(session).portForwardingAllowed()) {
            return refuse(session, "connection to " + host + ":" + port + " disabled by the key's options");
        }
        if (!policy(session).openPermitted(host, port)) {
            return refuse(session, "connection to " + host + ":" + port + " not permitted by PermitOpen");
        }
        List<String> keyOpen = keys(session).permitOpen();
        if (!keyOpen.isEmpty() && !matches(keyOpen, true, host, port)) {
            return refuse(session, "connection to " + host + ":" + port + " not in the key's permitopen=");
        }
        return true;
    }

    private static KeyRestrictions keys(Session session) {
        return session instanceof ServerSession ? KeyRestrictions.of((ServerSession) session) : KeyRestrictions.NONE;
    }

    private static boolean matches(List<String> entries, boolean hostRequired, String host, int port) {
        for (String e : entries) {
            if (HostPortPattern.parse(e, hostRequired).matches(host, port)) {
                return true;
            }
        }
        return false;
    }

    private static boolean refuse(Session session, String why) {
        LOG.info("{}: refused: {}", session.getRemoteAddress(), why);
        return false;
    }
}
