package io.pqssh.server.forward;

import io.pqssh.common.forward.HostPortPattern;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * sshd's forwarding keywords as one immutable value: {@code AllowTcpForwarding}, {@code PermitOpen},
 * {@code PermitListen}, {@code GatewayPorts}, {@code AllowAgentForwarding}, {@code DisableForwarding},
 * {@code AllowStreamLocalForwarding}, {@code StreamLocalBindMask}, {@code StreamLocalBindUnlink}. Defaults are
 * OpenSSH 10's: TCP forwarding in both directions, any destination, any listen port, remote listeners on loopback
 * only, agent forwarding allowed.
 */
public final class ForwardingPolicy {
    /** {@code AllowTcpForwarding}: which directions a client may forward. */
    public enum TcpForwarding {
        ALL, NO, LOCAL, REMOTE;

        boolean local() {
            return this == ALL || this == LOCAL;
        }

        boolean remote() {
            return this == ALL || this == REMOTE;
        }

        public static TcpForwarding parse(String v) {
            switch (v.toLowerCase(Locale.ROOT)) {
                case "yes":
                case "all":
                    return ALL;
                case "no":
                    return NO;
                case "local":
                    return LOCAL;
                case "remote":
                    return REMOTE;
                default:
                    throw new IllegalArgumentException("expected yes, all, no, local or remote, got '" + v + "'");
            }
        }
    }

    /** {@code GatewayPorts}: which address a remote (-R) listener binds. */
    public enum GatewayPorts {
        NO, YES, CLIENTSPECIFIED;

        public static GatewayPorts parse(String v) {
            switch (v.toLowerCase(Locale.ROOT)) {
                case "no":
                    return NO;
                case "yes":
                    return YES;
                case "clientspecified":
                    return CLIENTSPECIFIED;
                default:
                    throw new IllegalArgumentException("expected no, yes or clientspecified, got '" + v + "'");
            }
        }
    }

    public static final ForwardingPolicy DEFAULT = new ForwardingPolicy(TcpForwarding.ALL, null, null,
            GatewayPorts.NO, true, false, TcpForwarding.ALL, 0177, false);

    private final TcpForwarding tcp;
    private final List<HostPortPattern> permitOpen; // null: any
    private final List<HostPortPattern> permitListen; // null: any
    private final GatewayPorts gatewayPorts;
    private final boolean agent;
    private final boolean disableForwarding;
    private final TcpForwarding streamLocal;
    private final int streamLocalBindMask;
    private final boolean streamLocalBindUnlink;

    private ForwardingPolicy(TcpForwarding tcp, List<HostPortPattern> permitOpen, List<HostPortPattern> permitListen,
            GatewayPorts gatewayPorts, boolean agent, boolean disableForwarding, TcpForwarding streamLocal,
            int streamLocalBindMask, boolean streamLocalBindUnlink) {
        this.tcp = tcp;
        this.permitOpen = permitOpen == null ? null : Collections.unmodifiableList(new ArrayList<>(permitOpen));
        this.permitListen = permitListen == null ? null : Collections.unmodifiableList(new ArrayList<>(permitListen));
        this.gatewayPorts = gatewayPorts;
        this.agent = agent;
        this.disableForwarding = disableForwarding;
        this.streamLocal = streamLocal;
        this.streamLocalBindMask = streamLocalBindMask;
        this.streamLocalBindUnlink = streamLocalBindUnlink;
    }

    public ForwardingPolicy allowTcpForwarding(TcpForwarding t) {
        return new ForwardingPolicy(t, permitOpen, permitListen, gatewayPorts, agent, disableForwarding,
                streamLocal, streamLocalBindMask, streamLocalBindUnlink);
    }

    /** {@code PermitOpen any|none|host:port ...} (host or port may be {@code *}). */
    public ForwardingPolicy permitOpen(String value) {
        return new ForwardingPolicy(tcp, patterns(value, true), permitListen, gatewayPorts, agent,
                disableForwarding, streamLocal, streamLocalBindMask, streamLocalBindUnlink);
    }

    /** {@code PermitListen any|none|[host:]port ...} (host or port may be {@code *}). */
    public ForwardingPolicy permitListen(String value) {
        return new ForwardingPolicy(tcp, permitOpen, patterns(value, false), gatewayPorts, agent,
                disableForwarding, streamLocal, streamLocalBindMask, streamLocalBindUnlink);
    }

    public ForwardingPolicy gatewayPorts(GatewayPorts g) {
        return new ForwardingPolicy(tcp, permitOpen, permitListen, g, agent, disableForwarding,
                streamLocal, streamLocalBindMask, streamLocalBindUnlink);
    }

    public ForwardingPolicy allowAgentForwarding(boolean allow) {
        return new ForwardingPolicy(tcp, permitOpen, permitListen, gatewayPorts, allow, disableForwarding,
                streamLocal, streamLocalBindMask, streamLocalBindUnlink);
    }

    public ForwardingPolicy disableForwarding(boolean disable) {
        return new ForwardingPolicy(tcp, permitOpen, permitListen, gatewayPorts, agent, disable,
                streamLocal, streamLocalBindMask, streamLocalBindUnlink);
    }

    /** {@code AllowStreamLocalForwarding} (same values as AllowTcpForwarding, default yes). */
    public ForwardingPolicy allowStreamLocalForwarding(TcpForwarding t) {
        return new ForwardingPolicy(tcp, permitOpen, permitListen, gatewayPorts, agent, disableForwarding, t,
                streamLocalBindMask, streamLocalBindUnlink);
    }

    /** {@code StreamLocalBindMask}: octal mask for the sockets -R creates (default 0177: owner only). */
    public ForwardingPolicy streamLocalBindMask(String octal) {
        if (!octal.matches("[0-7]{1,4}") || Integer.parseInt(octal, 8) > 0777) {
            throw new IllegalArgumentException("expected an octal mask such as 0177, got '" + octal + "'");
        }
        return new ForwardingPolicy(tcp, permitOpen, permitListen, gatewayPorts, agent, disableForwarding,
                streamLocal, Integer.parseInt(octal, 8), streamLocalBindUnlink);
    }

    /** {@code StreamLocalBindUnlink}: remove an existing file before listening on a -R socket path. */
    public ForwardingPolicy streamLocalBindUnlink(boolean unlink) {
        return new ForwardingPolicy(tcp, permitOpen, permitListen, gatewayPorts, agent, disableForwarding,
                streamLocal, streamLocalBindMask, unlink);
    }

    public boolean localStreamLocalAllowed() {
        return !disableForwarding && streamLocal.local();
    }

    public boolean remoteStreamLocalAllowed() {
        return !disableForwarding && streamLocal.remote();
    }

    public int streamLocalBindMask() {
        return streamLocalBindMask;
    }

    public boolean streamLocalBindUnlink() {
        return streamLocalBindUnlink;
    }

    public TcpForwarding tcpForwarding() {
        return tcp;
    }

    public GatewayPorts gatewayPorts() {
        return gatewayPorts;
    }

    public boolean localForwardingAllowed() {
        return !disableForwarding && tcp.local();
    }

    public boolean remoteForwardingAllowed() {
        return !disableForwarding && tcp.remote();
    }

    /** DisableForwarding leaves X11 forwarding to X11Forwarding (sshd: both must allow it). */
    public boolean x11ForwardingAllowed() {
        return !disableForwarding;
    }

    public boolean agentForwardingAllowed() {
        return !disableForwarding && agent;
    }

    /** {@code PermitOpen} admits a connection to {@code host:port} (as the client named it). */
    public boolean openPermitted(String host, int port) {
        return permitOpen == null || HostPortPattern.anyMatches(permitOpen, host, port);
    }

    /** {@code PermitListen} admits a listener on {@code host:port} (as the client requested it). */
    public boolean listenPermitted(String host, int port) {
        return permitListen == null || HostPortPattern.anyMatches(permitListen, host, port);
    }

    /** null for "any", an empty list for "none". */
    private static List<HostPortPattern> patterns(String value, boolean hostRequired) {
        String v = value.strip();
        if (v.equalsIgnoreCase("any")) {
            return null;
        }
        List<HostPortPattern> out = new ArrayList<>();
        if (v.equalsIgnoreCase("none")) {
            return out;
        }
        for (String s : v.split("\\s+")) {
            out.add(HostPortPattern.parse(s, hostRequired));
        }
        return out;
    }

    /** The lines {@code sshd -T} prints for these keywords, with sshd's value spellings. */
    public List<String> sshdTLines() {
        List<String> o = new ArrayList<>();
        o.add("streamlocalbindmask 0" + Integer.toOctalString(streamLocalBindMask));
        o.add("gatewayports " + gatewayPorts.name().toLowerCase(java.util.Locale.ROOT));
        o.add("allowtcpforwarding " + sshdT(tcp));
        o.add("allowagentforwarding " + (agent ? "yes" : "no"));
        o.add("disableforwarding " + (disableForwarding ? "yes" : "no"));
        o.add("allowstreamlocalforwarding " + sshdT(streamLocal));
        o.add("streamlocalbindunlink " + (streamLocalBindUnlink ? "yes" : "no"));
        o.add("permitopen " + (permitOpen == null ? "any" : permitOpen.isEmpty() ? "none"
                : String.join(" ", permitOpen.stream().map(Object::toString).toList())));
        o.add("permitlisten " + (permitListen == null ? "any" : permitListen.isEmpty() ? "none"
                : String.join(" ", permitListen.stream().map(Object::toString).toList())));
        return o;
    }

    private static String sshdT(TcpForwarding t) {
        return t == TcpForwarding.ALL ? "yes" : t.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return "ForwardingPolicy[tcp=" + tcp + ", permitOpen=" + (permitOpen == null ? "any" : permitOpen)
                + ", permitListen=" + (permitListen == null ? "any" : permitListen) + ", gatewayPorts="
                + gatewayPorts + ", agent=" + agent + ", disable=" + disableForwarding + ", streamLocal=" + streamLocal
                + ", streamLocalBindMask=0" + Integer.toOctalString(streamLocalBindMask) + ", streamLocalBindUnlink="
                + streamLocalBindUnlink + "]";
    }
}
