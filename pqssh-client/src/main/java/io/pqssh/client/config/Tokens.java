package io.pqssh.client.config;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.function.Function;

import io.pqssh.common.text.PercentExpand;

/**
 * ssh_config's {@code %} tokens ({@code %%}, {@code %d}, {@code %h}, {@code %i}, {@code %L}, {@code %l}, {@code %n},
 * {@code %p}, {@code %r}, {@code %u}), {@code ~} for the home directory and {@code ${VAR}} environment references
 * in the keywords where ssh expands them. An unknown token is an error, as in ssh.
 */
public final class Tokens {
    /** What the tokens stand for on this connection. */
    public record Context(String host, String originalHost, int port, String remoteUser, String localUser,
            Path home) {
    }

    private Tokens() {
    }

    public static String expand(String s, Context c) throws ConfigException {
        return expand(s, c, null);
    }

    /**
     * {@link #expand(String, Context)} plus {@code %C} (ControlPath and the other keywords ssh gives it);
     * {@code jumpHost} (ProxyJump's value or "") is kept for OpenSSH 9.6's hash, which includes it.
     */
    public static String expandWithHash(String s, Context c, String jumpHost) throws ConfigException {
        return expand(s, c, jumpHost);
    }

    /**
     * ssh's connection hash {@code %C}: SHA-1 in hex of {@code %l%h%p%r}, OpenSSH 9.2's (Debian 12's ssh, the one
     * this is tested against), so both can share a ControlPath. OpenSSH 9.6 and later also hash the ProxyJump
     * value; without ProxyJump the two agree.
     */
    public static String connectionHash(Context c, String jumpHost) {
        try {
            java.security.MessageDigest d = java.security.MessageDigest.getInstance("SHA-1");
            String in = localHostName() + c.host() + c.port() + c.remoteUser();
            return java.util.HexFormat.of().formatHex(d.digest(in.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 missing from the JDK", e);
        }
    }

    private static String expand(String s, Context c, String jumpHost) throws ConfigException {
        return expand(s, t -> value(t, c, jumpHost), "");
    }

    private static String value(char t, Context c, String jumpHost) {
        return switch (t) {
            case 'd' -> c.home().toString();
            case 'h' -> c.host();
            case 'n' -> c.originalHost();
            case 'p' -> Integer.toString(c.port());
            case 'r' -> c.remoteUser();
            case 'u' -> c.localUser();
            case 'i' -> uid();
            case 'C' -> jumpHost == null ? null : connectionHash(c, jumpHost);
            case 'l' -> localHostName();
            case 'L' -> {
                String h = localHostName();
                int dot = h.indexOf('.');
                yield dot < 0 ? h : h.substring(0, dot);
            }
            default -> null;
        };
    }

    /** {@link PercentExpand} with ssh's messages: {@code unknown key %x in "s"}, {@code invalid token at end of "s"}. */
    private static String expand(String s, Function<Character, String> tokens, String keyword) throws ConfigException {
        try {
            return PercentExpand.expand(s, tokens);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(s.endsWith("%") && e.getMessage().equals("unknown key %")
                    ? "invalid token at end of \"" + s + "\""
                    : keyword + e.getMessage() + " in \"" + s + "\"");
        }
    }

    /**
     * ProxyCommand's tokens, as OpenSSH 9.2 expands them there: {@code %%}, {@code %h} (HostName), {@code %n} (the
     * name given), {@code %p}, {@code %r}; any other {@code %x} is an error, as ssh's "unknown key".
     */
    public static String proxyCommand(String s, Context c) throws ConfigException {
        return expand(s, t -> "hnpr".indexOf(t) < 0 ? null : value(t, c, null), "ProxyCommand: ");
    }

    /** Tokens, then ~ and ${VAR}: the expansion of file names (IdentityFile, UserKnownHostsFile, ...). */
    public static String path(String s, Context c) throws ConfigException {
        return env(tilde(expand(s, c), c.home()));
    }

    /** HostName takes only {@code %h} (the name given) and {@code %%}. */
    static String hostName(String hostName, String originalHost) {
        return hostName.replace("%%", "\u0000").replace("%h", originalHost).replace("\u0000", "%");
    }

    static String tilde(String s, Path home) {
        if (s.equals("~")) {
            return home.toString();
        }
        if (s.startsWith("~/")) {
            return home + s.substring(1);
        }
        return s;
    }

    static String env(String s) throws ConfigException {
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (i < s.length()) {
            int start = s.indexOf("${", i);
            if (start < 0) {
                b.append(s, i, s.length());
                break;
            }
            int end = s.indexOf('}', start);
            if (end < 0) {
                throw new ConfigException("unterminated ${ in \"" + s + "\"");
            }
            String name = s.substring(start + 2, end);
            String v = System.getenv(name);
            if (v == null) {
                throw new ConfigException("env var ${" + name + "} has no value");
            }
            b.append(s, i, start).append(v);
            i = end + 1;
        }
        return b.toString();
    }

    private static String uid() {
        try {
            Object uid = java.nio.file.Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return String.valueOf(uid);
        } catch (Exception e) {
            return "-1";
        }
    }

    /** gethostname(2), as ssh's {@code %l}: the kernel's name, not what a lookup of it returns. */
    public static String localHostName() {
        try {
            String h = java.nio.file.Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            if (!h.isEmpty()) {
                return h;
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux: ask the resolver
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }
}
