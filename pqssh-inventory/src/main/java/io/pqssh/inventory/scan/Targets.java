package io.pqssh.inventory.scan;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Target specifications: {@code host}, {@code host:port}, {@code [v6]:port}, {@code v6}, CIDR ranges, files. */
public final class Targets {
    /** Largest CIDR range expanded without {@code --force-large}. */
    public static final long MAX_RANGE = 1L << 20;
    /** Hard cap even with force: a scan list is held in memory. */
    public static final long MAX_FORCED = 1L << 24;

    private Targets() {
    }

    /** Parses specs in order, dropping duplicates. Throws IllegalArgumentException with the bad spec named. */
    public static List<Target> parse(List<String> specs, int defaultPort, boolean forceLarge) {
        Set<Target> out = new LinkedHashSet<>();
        for (String s : specs) {
            String spec = s.strip();
            if (spec.isEmpty() || spec.startsWith("#")) {
                continue;
            }
            try {
                expand(spec, defaultPort, forceLarge, out);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bad target '" + spec + "': " + e.getMessage(), e);
            }
            if (out.size() > (forceLarge ? MAX_FORCED : MAX_RANGE)) {
                throw new IllegalArgumentException("more than " + (forceLarge ? MAX_FORCED : MAX_RANGE)
                        + " targets" + (forceLarge ? "" : " (use --force-large to go beyond)"));
            }
        }
        return new ArrayList<>(out);
    }

    /** Reads a targets file: one spec per line (several separated by whitespace allowed), {@code #} comments. */
    public static List<String> readFile(Path file) throws IOException {
        List<String> specs = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            int hash = line.indexOf('#');
            String l = hash >= 0 ? line.substring(0, hash) : line;
            for (String t : l.strip().split("\\s+")) {
                if (!t.isEmpty()) {
                    specs.add(t);
                }
            }
        }
        return specs;
    }

    private static void expand(String spec, int defaultPort, boolean forceLarge, Set<Target> out) {
        String hostPart = spec;
        int port = defaultPort;
        if (spec.startsWith("[")) {
            int close = spec.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("missing ']'");
            }
            hostPart = spec.substring(1, close);
            String rest = spec.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new IllegalArgumentException("expected ':port' after ']'");
                }
                port = port(rest.substring(1));
            }
        } else {
            int colons = (int) spec.chars().filter(c -> c == ':').count();
            if (colons == 1) {
                int c = spec.indexOf(':');
                hostPart = spec.substring(0, c);
                port = port(spec.substring(c + 1));
            } // 0 colons: host; 2+: bare IPv6 (with optional /len), default port
        }
        int slash = hostPart.indexOf('/');
        if (slash >= 0) {
            cidr(hostPart.substring(0, slash), hostPart.substring(slash + 1), port, forceLarge, out);
            return;
        }
        if (hostPart.isEmpty()) {
            throw new IllegalArgumentException("empty host");
        }
        if (hostPart.indexOf(':') >= 0 && !isLiteral(hostPart)) {
            throw new IllegalArgumentException("not an IPv6 address");
        }
        out.add(new Target(hostPart, port));
    }

    private static int port(String s) {
        try {
            int p = Integer.parseInt(s);
            if (p < 1 || p > 65535) {
                throw new IllegalArgumentException("port " + s + " out of range 1-65535");
            }
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port '" + s + "' is not a number");
        }
    }

    private static boolean isLiteral(String s) {
        if (!s.matches("[0-9a-fA-F:.%]+")) {
            return false;
        }
        try {
            InetAddress.getByName(s); // a literal: no DNS lookup happens
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static void cidr(String addr, String lenStr, int port, boolean forceLarge, Set<Target> out) {
        if (!isLiteral(addr)) {
            throw new IllegalArgumentException("CIDR base must be a literal IP address");
        }
        byte[] base;
        try {
            base = InetAddress.getByName(addr).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        int bits = base.length * 8;
        int len;
        try {
            len = Integer.parseInt(lenStr);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("prefix length '" + lenStr + "' is not a number");
        }
        if (len < 0 || len > bits) {
            throw new IllegalArgumentException("prefix length " + len + " out of range 0-" + bits);
        }
        int hostBits = bits - len;
        long limit = forceLarge ? MAX_FORCED : MAX_RANGE;
        if (hostBits > 62 || (1L << hostBits) > limit) {
            throw new IllegalArgumentException("range has 2^" + hostBits + " addresses, more than "
                    + (forceLarge ? "the hard limit of 2^24" : "2^20 (use --force-large)"));
        }
        BigInteger mask = BigInteger.ONE.shiftLeft(hostBits).subtract(BigInteger.ONE).not();
        BigInteger start = new BigInteger(1, base).and(mask);
        long count = 1L << hostBits;
        for (long i = 0; i < count; i++) {
            byte[] a = toBytes(start.add(BigInteger.valueOf(i)), base.length);
            try {
                out.add(new Target(InetAddress.getByAddress(a).getHostAddress(), port));
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static byte[] toBytes(BigInteger v, int n) {
        byte[] raw = v.toByteArray();
        byte[] out = new byte[n];
        int copy = Math.min(raw.length, n);
        System.arraycopy(raw, raw.length - copy, out, n - copy, copy);
        return out;
    }
}
