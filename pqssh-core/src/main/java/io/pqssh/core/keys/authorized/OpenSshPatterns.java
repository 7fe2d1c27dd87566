package io.pqssh.core.keys.authorized;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

import org.bouncycastle.util.IPAddress;

/**
 * OpenSSH's pattern matching (match.c, addrmatch.c), as used by {@code from="..."}: wildcard patterns with
 * {@code *} and {@code ?}, comma-separated lists where a {@code !}-negated match wins over any positive one, and
 * address lists with CIDR entries ({@code 10.0.0.0/8}, {@code 2001:db8::/32}). No name resolution is done.
 */
public final class OpenSshPatterns {
    /** Results of the list matchers, as OpenSSH's. */
    public static final int MATCH = 1;
    public static final int NO_MATCH = 0;
    public static final int NEGATED = -1;
    public static final int ERROR = -2;

    private OpenSshPatterns() {
    }

    /** Wildcard match of the whole string: {@code *} any run (also empty), {@code ?} exactly one character. */
    public static boolean matchPattern(String s, String pattern) {
        int si = 0;
        int pi = 0;
        int starP = -1;
        int starS = 0;
        while (si < s.length()) {
            if (pi < pattern.length() && (pattern.charAt(pi) == '?' || pattern.charAt(pi) == s.charAt(si))) {
                si++;
                pi++;
            } else if (pi < pattern.length() && pattern.charAt(pi) == '*') {
                starP = pi++;
                starS = si;
            } else if (starP >= 0) {
                pi = starP + 1;
                si = ++starS;
            } else {
                return false;
            }
        }
        while (pi < pattern.length() && pattern.charAt(pi) == '*') {
            pi++;
        }
        return pi == pattern.length();
    }

    /**
     * OpenSSH's {@code match_pattern_list}: {@link #MATCH} if some positive entry matches and no negated one does,
     * {@link #NEGATED} if a negated entry matches, else {@link #NO_MATCH}. With {@code lower}, the string and the
     * patterns are compared in lower case (host names).
     */
    public static int matchPatternList(String s, String list, boolean lower) {
        String str = lower ? s.toLowerCase(Locale.ROOT) : s;
        boolean positive = false;
        for (String entry : list.split(",", -1)) {
            boolean neg = entry.startsWith("!");
            String p = neg ? entry.substring(1) : entry;
            if (lower) {
                p = p.toLowerCase(Locale.ROOT);
            }
            if (matchPattern(str, p)) {
                if (neg) {
                    return NEGATED;
                }
                positive = true;
            }
        }
        return positive ? MATCH : NO_MATCH;
    }

    /**
     * OpenSSH's {@code addr_match_list}: entries are CIDR blocks or plain addresses (compared numerically) or, when
     * not addresses, wildcard patterns compared to the address text. Returns {@link #MATCH}, {@link #NO_MATCH},
     * {@link #NEGATED}, or {@link #ERROR} for an empty entry or a CIDR block with host bits set
     * ({@code 10.0.0.1/8}).
     */
    public static int addrMatchList(String addr, String list) {
        byte[] a = addr == null ? null : parseAddress(addr);
        if (addr != null && a == null) {
            return NO_MATCH;
        }
        int ret = NO_MATCH;
        for (String entry : list.split(",", -1)) {
            boolean neg = entry.startsWith("!");
            String p = neg ? entry.substring(1) : entry;
            if (p.isEmpty()) {
                return ERROR;
            }
            Cidr c;
            try {
                c = Cidr.parse(p);
            } catch (IllegalArgumentException inconsistent) {
                return ERROR;
            }
            boolean found;
            if (c != null) {
                found = a != null && c.contains(a);
            } else {
                found = addr != null && matchPattern(addr, p);
            }
            if (found) {
                if (neg) {
                    return NEGATED;
                }
                ret = MATCH;
            }
        }
        return ret;
    }

    /**
     * OpenSSH's {@code addr_match_cidr_list}, the check of a certificate's {@code source-address} (and of ssh-keygen's
     * {@code -O source-address=}): every entry must be an address or a CIDR block with no host bits set, without
     * wildcards or negation. Returns {@link #MATCH} when {@code addr} is in one of the blocks, {@link #NO_MATCH} when
     * not (also for an {@code addr} that is no address), {@link #ERROR} when any entry is invalid, whatever the
     * address. With a null {@code addr} only the list is checked ({@link #NO_MATCH} when valid).
     */
    public static int addrMatchCidrList(String addr, String list) {
        byte[] a = addr == null ? null : parseAddress(addr);
        if (addr != null && a == null) {
            return NO_MATCH;
        }
        int ret = NO_MATCH;
        for (String entry : list.split(",", -1)) {
            // OpenSSH: empty, longer than INET6_ADDRSTRLEN + 3, or characters outside "0-9a-fA-F.:/" are invalid
            if (entry.isEmpty() || entry.length() > 46 + 3 || !entry.matches("[0-9a-fA-F.:/]+")) {
                return ERROR;
            }
            Cidr c;
            try {
                c = Cidr.parse(entry);
            } catch (IllegalArgumentException inconsistent) {
                return ERROR;
            }
            if (c == null) {
                return ERROR;
            }
            if (a != null && c.contains(a)) {
                ret = MATCH;
            }
        }
        return ret;
    }

    /**
     * OpenSSH's {@code match_host_and_ip}, the {@code from=} check: 1 if the host name or the address matches and
     * neither is negated, 0 if not permitted, -1 if the list is invalid. Without a resolved host name pass the
     * address as {@code host} (sshd's {@code UseDNS no}).
     */
    public static int matchHostAndIp(String host, String addr, String list) {
        int mip = addrMatchList(addr, list);
        if (mip == ERROR) {
            return -1;
        }
        int mhost = host == null ? NO_MATCH : matchPatternList(host, list, true);
        if (mhost == NEGATED || mip == NEGATED) {
            return 0;
        }
        return mhost == MATCH || mip == MATCH ? 1 : 0;
    }

    /** Checks a {@code from=} list for entries OpenSSH would refuse at login; returns a problem or null. */
    static String validateList(String list) {
        for (String entry : list.split(",", -1)) {
            String p = entry.startsWith("!") ? entry.substring(1) : entry;
            if (p.isEmpty()) {
                return "empty entry in pattern list";
            }
            try {
                Cidr.parse(p);
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
        return null;
    }

    /** A literal IPv4 (dotted quad) or IPv6 address as bytes, IPv4-mapped IPv6 as IPv4; null if not an address. */
    static byte[] parseAddress(String s) {
        if (s.indexOf(':') >= 0) {
            String t = s;
            int pct = t.indexOf('%');
            if (pct >= 0) {
                t = t.substring(0, pct);
            }
            if (t.startsWith("[") && t.endsWith("]")) {
                t = t.substring(1, t.length() - 1);
            }
            // a validated literal never reaches a name lookup in getByName
            if (!t.matches("[0-9A-Fa-f:.]+") || !IPAddress.isValidIPv6(t)) {
                return null;
            }
            try {
                byte[] b = InetAddress.getByName(t).getAddress();
                if (b.length == 4) {
                    return b; // the JDK returns mapped addresses as IPv4 already
                }
                boolean mapped = true;
                for (int i = 0; i < 10; i++) {
                    mapped &= b[i] == 0;
                }
                if (mapped && b[10] == (byte) 0xff && b[11] == (byte) 0xff) {
                    return new byte[] {b[12], b[13], b[14], b[15]};
                }
                return b;
            } catch (UnknownHostException e) {
                return null;
            }
        }
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            if (parts[i].isEmpty() || parts[i].length() > 3 || !parts[i].chars().allMatch(Character::isDigit)) {
                return null;
            }
            int v = Integer.parseInt(parts[i]);
            if (v > 255) {
                return null;
            }
            b[i] = (byte) v;
        }
        return b;
    }

    /** An address block. */
    private record Cidr(byte[] network, int bits) {
        /** null when {@code s} is not an address (so it is a wildcard pattern); throws when inconsistent. */
        static Cidr parse(String s) {
            int slash = s.indexOf('/');
            String a = slash < 0 ? s : s.substring(0, slash);
            byte[] net = parseAddress(a);
            if (net == null) {
                return null;
            }
            int max = net.length * 8;
            int bits = max;
            if (slash >= 0) {
                String m = s.substring(slash + 1);
                if (m.isEmpty() || m.length() > 3 || !m.chars().allMatch(Character::isDigit)) {
                    return null;
                }
                bits = Integer.parseInt(m);
                if (bits > max) {
                    return null;
                }
            }
            for (int i = bits; i < max; i++) {
                if ((net[i / 8] & (0x80 >>> (i % 8))) != 0) {
                    throw new IllegalArgumentException("inconsistent mask length for match network '" + s + "'");
                }
            }
            return new Cidr(net, bits);
        }

        boolean contains(byte[] addr) {
            if (addr.length != network.length) {
                return false;
            }
            for (int i = 0; i < bits; i++) {
                int m = 0x80 >>> (i % 8);
                if ((addr[i / 8] & m) != (network[i / 8] & m)) {
                    return false;
                }
            }
            return true;
        }
    }
}
