package io.pqssh.inventory.scan;

/** One address to scan; {@code host} is a name or a literal address without brackets. */
public record Target(String host, int port) {
    public Target {
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("empty host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " out of range 1-65535");
        }
    }

    /** {@code host:port}, {@code [v6]:port}. */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
