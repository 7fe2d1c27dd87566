package io.pqssh.client.config;

import java.util.List;

/**
 * One {@code LocalForward}/{@code RemoteForward}/{@code DynamicForward} (or {@code -L}/{@code -R}/{@code -D}) as ssh
 * reads it: {@code [bind_address:]port} and, except for dynamic and for a remote SOCKS forward,
 * {@code host:hostport}. IPv6 addresses go in brackets. Unix-socket paths (containing {@code /}) are kept as paths.
 *
 * @param bindAddress null when not given (ssh then binds loopback unless GatewayPorts); "" when given empty, which
 *        ssh reads as {@code *}
 * @param bindPort 0 for "any free port" (remote forwards), or null when {@code bindPath} is set
 * @param bindPath a Unix socket path, or null
 * @param targetHost null for dynamic forwards and remote SOCKS forwards
 * @param targetPort null when {@code targetHost} is null or {@code targetPath} is set
 * @param targetPath a Unix socket path, or null
 */
public record ForwardSpec(Kind kind, String bindAddress, Integer bindPort, String bindPath, String targetHost,
        Integer targetPort, String targetPath) {
    public enum Kind { LOCAL, REMOTE, DYNAMIC }

    /** Parses the config form: one or two arguments. */
    public static ForwardSpec parse(Kind kind, List<String> args) throws ConfigException {
        if (args.isEmpty()) {
            throw new ConfigException("missing argument.");
        }
        int expected = kind == Kind.LOCAL ? 2 : kind == Kind.DYNAMIC ? 1 : -1;
        if ((expected > 0 && args.size() != expected) || args.size() > 2) {
            throw new ConfigException("Bad forwarding specification '" + String.join(" ", args) + "'");
        }
        return parse(kind, String.join(":", args), args);
    }

    /** Parses the command-line form ({@code -L [bind:]port:host:hostport}); errors in ssh's words for the flag. */
    public static ForwardSpec parseCommandLine(Kind kind, String spec) throws ConfigException {
        try {
            return parse(kind, spec, List.of(spec));
        } catch (ConfigException e) {
            throw new ConfigException("Bad " + kind.name().toLowerCase(java.util.Locale.ROOT)
                    + " forwarding specification '" + spec + "'");
        }
    }

    private static ForwardSpec parse(Kind kind, String spec, List<String> original) throws ConfigException {
        List<String> f = fields(spec);
        String bad = "Bad forwarding specification '" + String.join(" ", original) + "'";
        try {
            switch (kind) {
                case DYNAMIC -> {
                    if (f.size() == 1) {
                        return bind(kind, null, f.get(0), null, null, null);
                    }
                    if (f.size() == 2) {
                        return bind(kind, f.get(0), f.get(1), null, null, null);
                    }
                }
                case LOCAL, REMOTE -> {
                    if (kind == Kind.REMOTE && f.size() <= 2 && !isPath(f.get(f.size() - 1))) {
                        // remote dynamic (SOCKS) forward: only [bind:]port
                        return bind(kind, f.size() == 2 ? f.get(0) : null, f.get(f.size() - 1), null, null, null);
                    }
                    if (f.size() == 2 && isPath(f.get(0)) && isPath(f.get(1))) {
                        return bind(kind, null, f.get(0), null, null, f.get(1));
                    }
                    if (f.size() == 2 && isPath(f.get(1))) {
                        return bind(kind, null, f.get(0), null, null, f.get(1));
                    }
                    if (f.size() == 3 && isPath(f.get(2))) {
                        // [bind_address:]port to a Unix socket: "127.0.0.1:9001 /run/app.sock", as ssh reads it
                        return bind(kind, f.get(0), f.get(1), null, null, f.get(2));
                    }
                    if (f.size() == 3) {
                        return isPath(f.get(0)) ? bind(kind, null, f.get(0), f.get(1), f.get(2), null)
                                : bind(kind, null, f.get(0), f.get(1), f.get(2), null);
                    }
                    if (f.size() == 4) {
                        return bind(kind, f.get(0), f.get(1), f.get(2), f.get(3), null);
                    }
                }
                default -> {
                }
            }
        } catch (NumberFormatException e) {
            throw new ConfigException(bad);
        }
        throw new ConfigException(bad);
    }

    private static ForwardSpec bind(Kind kind, String addr, String port, String host, String hostPort,
            String targetPath) throws ConfigException {
        String bindPath = isPath(port) ? port : null;
        Integer bp = bindPath == null ? port(port, kind == Kind.REMOTE) : null;
        Integer tp = hostPort == null ? null : port(hostPort, false);
        if (host != null && host.isEmpty()) {
            throw new NumberFormatException();
        }
        // an empty bind address ("-D :1080") is kept: ssh reads it as "*" (every interface), unlike none at all
        return new ForwardSpec(kind, addr, bp, bindPath, host, tp, targetPath);
    }

    private static int port(String s, boolean zeroAllowed) {
        int p = Integer.parseInt(s);
        if (p < (zeroAllowed ? 0 : 1) || p > 65535) {
            throw new NumberFormatException();
        }
        return p;
    }

    private static boolean isPath(String s) {
        return s.contains("/");
    }

    /** Splits on ':' except inside [...] (IPv6) and inside paths; brackets are removed. */
    private static List<String> fields(String spec) {
        List<String> out = new java.util.ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean bracket = false;
        for (int i = 0; i < spec.length(); i++) {
            char c = spec.charAt(i);
            if (c == '[' && cur.length() == 0) {
                bracket = true;
            } else if (c == ']' && bracket) {
                bracket = false;
            } else if (c == ':' && !bracket) {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }
}
