package io.pqssh.server.config;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * sshd's listening sockets from {@code Port}, {@code ListenAddress} and {@code AddressFamily}: every ListenAddress
 * without a port is listened on at every Port, one with a port ({@code host:port}, {@code [v6]:port}) at that port
 * only. Names are resolved (as sshd's getaddrinfo) and kept to the family.
 */
public final class ListenAddresses {
    /** sshd's MAX_PORTS. */
    public static final int MAX_PORTS = 256;

    /** One ListenAddress line: host and port (0: every Port). */
    public record Entry(String host, int port) {
        /** Parses sshd's forms: {@code host}, {@code host:port}, {@code [v6]}, {@code [v6]:port}, bare {@code v6}. */
        public static Entry parse(String value) {
            String v = value.strip();
            if (v.split("\\s+").length > 1) {
                throw new IllegalArgumentException("ListenAddress " + v + ": routing domains (rdomain) are not"
                        + " implemented by pqssh server");
            }
            int first = v.indexOf(':');
            if (!v.startsWith("[") && first >= 0 && v.indexOf(':', first + 1) >= 0) {
                return new Entry(v, 0); // a bare IPv6 address
            }
            String host;
            String port = null;
            if (v.startsWith("[")) {
                int close = v.indexOf(']');
                if (close < 0 || (close + 1 < v.length() && v.charAt(close + 1) != ':')) {
                    throw new IllegalArgumentException("bad address:port usage");
                }
                host = v.substring(1, close);
                port = close + 1 < v.length() ? v.substring(close + 2) : null;
            } else {
                host = first < 0 ? v : v.substring(0, first);
                port = first < 0 ? null : v.substring(first + 1);
            }
            if (host.isEmpty()) {
                throw new IllegalArgumentException("bad address:port usage");
            }
            int p = 0;
            if (port != null) {
                try {
                    p = Integer.parseInt(port);
                } catch (NumberFormatException e) {
                    p = -1;
                }
                if (p <= 0 || p > 65535) {
                    throw new IllegalArgumentException("bad port number");
                }
            }
            return new Entry(host, p);
        }
    }

    private ListenAddresses() {
    }

    /** sshd's AddressFamily values. */
    public static String family(String value) {
        String v = value.toLowerCase(Locale.ROOT);
        if (!v.equals("any") && !v.equals("inet") && !v.equals("inet6")) {
            throw new IllegalArgumentException("unsupported option \"" + value + "\".");
        }
        return v;
    }

    /**
     * The sockets to listen on, in sshd's order, duplicates removed; {@code ports} must not be empty. Without a
     * ListenAddress the caller passes the family's wildcard: {@code ::} for {@code any}, which on Linux accepts IPv4
     * too (sshd binds 0.0.0.0 and an IPV6_V6ONLY {@code ::}; the JDK cannot set IPV6_V6ONLY).
     */
    public static List<InetSocketAddress> resolve(List<Entry> entries, List<Integer> ports, String family)
            throws UnknownHostException {
        LinkedHashSet<InetSocketAddress> out = new LinkedHashSet<>();
        for (Entry e : entries) {
            List<InetAddress> addrs = new ArrayList<>();
            InetAddress[] all;
            try {
                all = InetAddress.getAllByName(e.host());
            } catch (UnknownHostException ex) {
                throw new UnknownHostException("bad addr or host: " + e.host() + " (Name or service not known)");
            }
            for (InetAddress a : all) {
                if (family.equals("any") || family.equals("inet") && a instanceof Inet4Address
                        || family.equals("inet6") && a instanceof Inet6Address) {
                    addrs.add(a);
                }
            }
            if (addrs.isEmpty()) {
                throw new UnknownHostException("bad addr or host: " + e.host() + " (no " + family
                        + " address; AddressFamily " + family + ")");
            }
            for (int p : e.port() != 0 ? List.of(e.port()) : ports) {
                for (InetAddress a : addrs) {
                    out.add(new InetSocketAddress(a, p));
                }
            }
        }
        return List.copyOf(out);
    }

    /** sshd -T's form: {@code 127.0.0.1:22}, {@code [::1]:22}. */
    public static String format(InetSocketAddress a) {
        String h = a.getAddress().getHostAddress();
        int zone = h.indexOf('%');
        h = zone < 0 ? h : h.substring(0, zone);
        if (a.getAddress() instanceof Inet6Address) {
            return "[" + compress(h) + "]:" + a.getPort();
        }
        return h + ":" + a.getPort();
    }

    /** RFC 5952's short form of the JDK's {@code 0:0:0:0:0:0:0:1}: the longest run of zero groups becomes {@code ::}. */
    static String compress(String full) {
        String[] g = full.split(":");
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < g.length; i++) {
            int j = i;
            while (j < g.length && g[j].equals("0")) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = Math.max(i, j);
        }
        if (bestStart < 0) {
            return full;
        }
        String head = String.join(":", java.util.Arrays.copyOfRange(g, 0, bestStart));
        String tail = String.join(":", java.util.Arrays.copyOfRange(g, bestStart + bestLen, g.length));
        return head + "::" + tail;
    }
}
