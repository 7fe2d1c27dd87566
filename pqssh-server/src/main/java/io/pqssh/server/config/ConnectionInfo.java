package io.pqssh.server.config;

import java.util.List;

/**
 * What a Match block is evaluated against: sshd's {@code -C user=,host=,addr=,laddr=,lport=,rdomain=} for
 * {@code -T}, or a connection's values. A null field is unknown: a criterion that needs it does not match.
 */
public record ConnectionInfo(String user, List<String> groups, String host, String address, String localAddress,
        Integer localPort, String rdomain) {

    /** Parses sshd's {@code -C} spec: comma-separated {@code key=value}. */
    public static ConnectionInfo parse(String spec, java.util.function.Function<String, List<String>> groupsOf) {
        String user = null, host = null, addr = null, laddr = null, rdomain = null;
        Integer lport = null;
        for (String kv : spec.split(",")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("Invalid test mode specification " + kv);
            }
            String k = kv.substring(0, eq).strip();
            String v = kv.substring(eq + 1).strip();
            switch (k) {
                case "user" -> user = v;
                case "host" -> host = v;
                case "addr" -> addr = v;
                case "laddr" -> laddr = v;
                case "lport" -> {
                    try {
                        lport = Integer.valueOf(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("Invalid port '" + v + "' in test mode specification");
                    }
                }
                case "rdomain" -> rdomain = v;
                default -> throw new IllegalArgumentException("Invalid test mode specification " + kv);
            }
        }
        return new ConnectionInfo(user, user == null ? null : groupsOf.apply(user), host, addr, laddr, lport,
                rdomain);
    }
}
