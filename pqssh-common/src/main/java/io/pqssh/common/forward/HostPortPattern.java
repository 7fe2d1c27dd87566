package io.pqssh.common.forward;

import java.util.List;
import java.util.Locale;

/**
 * One {@code PermitOpen}/{@code PermitListen}/{@code permitopen=}/{@code permitlisten=} entry: {@code host:port},
 * {@code [v6]:port} or (listen only) a bare port. {@code *} as host or port matches anything; a listen entry without a
 * host matches any listen address (the bound address is {@code GatewayPorts}'s choice). Host names compare
 * ASCII-case-insensitively and literally: no DNS, as in sshd. Also the client's {@code PermitRemoteOpen} entries.
 */
public final class HostPortPattern {
    private final String host; // null: any
    private final int port; // -1: any

    private HostPortPattern(String host, int port) {
        this.host = host;
        this.port = port;
    }

    public static HostPortPattern parse(String s, boolean hostRequired) {
        String host;
        String port;
        if (s.startsWith("[")) {
            int close = s.indexOf("]:");
            if (close < 0) {
                throw new IllegalArgumentException("bad [host]:port '" + s + "'");
            }
            host = s.substring(1, close);
            port = s.substring(close + 2);
        } else {
            int colon = s.lastIndexOf(':');
            if (colon < 0) {
                if (hostRequired) {
                    throw new IllegalArgumentException("expected host:port, got '" + s + "'");
                }
                host = null;
                port = s;
            } else {
                host = s.substring(0, colon);
                port = s.substring(colon + 1);
            }
        }
        if (host != null && host.isEmpty()) {
            throw new IllegalArgumentException("empty host in '" + s + "'");
        }
        int p;
        if (port.equals("*")) {
            p = -1;
        } else {
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad port in '" + s + "'");
            }
            if (p < 0 || p > 65535) {
                throw new IllegalArgumentException("port out of range in '" + s + "'");
            }
        }
        return new HostPortPattern(host == null || host.equals("*") ? null : host.toLowerCase(Locale.ROOT), p);
    }

    public boolean matches(String h, int p) {
        if (port != -1 && port != p) {
            return false;
        }
        return host == null || (h != null && host.equals(h.toLowerCase(Locale.ROOT)));
    }

    public static boolean anyMatches(List<HostPortPattern> list, String host, int port) {
        for (HostPortPattern pp : list) {
            if (pp.matches(host, port)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return (host == null ? "*" : host) + ":" + (port == -1 ? "*" : Integer.toString(port));
    }
}
