package io.pqssh.server.login;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * sshd's {@code DenyUsers}, {@code AllowUsers}, {@code DenyGroups}, {@code AllowGroups}, checked in that order as in
 * {@code allowed_user()} (auth.c). A user entry is a pattern ({@code *}, {@code ?}) or {@code user@host}, where host
 * is a comma list of address patterns or CIDR blocks, each may be negated with {@code !}, matched against the
 * client's address (sshd with {@code UseDNS no}, its default). Group entries are patterns matched against the
 * names of the user's primary and supplementary groups. Immutable.
 */
public final class AccessLists {
    public static final AccessLists NONE = new AccessLists(List.of(), List.of(), List.of(), List.of());

    private final List<String> denyUsers;
    private final List<String> allowUsers;
    private final List<String> denyGroups;
    private final List<String> allowGroups;

    private AccessLists(List<String> denyUsers, List<String> allowUsers, List<String> denyGroups,
            List<String> allowGroups) {
        this.denyUsers = denyUsers;
        this.allowUsers = allowUsers;
        this.denyGroups = denyGroups;
        this.allowGroups = allowGroups;
    }

    public AccessLists denyUsers(String line) {
        return new AccessLists(plus(denyUsers, line, true), allowUsers, denyGroups, allowGroups);
    }

    public AccessLists allowUsers(String line) {
        return new AccessLists(denyUsers, plus(allowUsers, line, true), denyGroups, allowGroups);
    }

    public AccessLists denyGroups(String line) {
        return new AccessLists(denyUsers, allowUsers, plus(denyGroups, line, false), allowGroups);
    }

    public AccessLists allowGroups(String line) {
        return new AccessLists(denyUsers, allowUsers, denyGroups, plus(allowGroups, line, false));
    }

    /** The lines {@code sshd -T} prints: one per entry, as sshd's. */
    public List<String> sshdTLines() {
        List<String> o = new ArrayList<>();
        denyUsers.forEach(e -> o.add("denyusers " + e));
        allowUsers.forEach(e -> o.add("allowusers " + e));
        denyGroups.forEach(e -> o.add("denygroups " + e));
        allowGroups.forEach(e -> o.add("allowgroups " + e));
        return o;
    }

    /** Each keyword line adds its whitespace-separated entries, as sshd's; a bad CIDR block is an error now. */
    private static List<String> plus(List<String> list, String line, boolean hostAllowed) {
        List<String> out = new ArrayList<>(list);
        for (String e : line.strip().split("\\s+")) {
            int at = e.indexOf('@');
            if (at >= 0) {
                if (!hostAllowed) {
                    throw new IllegalArgumentException("a group pattern has no @host part: " + e);
                }
                for (String h : e.substring(at + 1).split(",")) {
                    String p = h.startsWith("!") ? h.substring(1) : h;
                    if (p.isEmpty() || p.contains("/") && cidr(p) == null) {
                        throw new IllegalArgumentException("bad host pattern in " + e);
                    }
                }
            }
            out.add(e);
        }
        return Collections.unmodifiableList(out);
    }

    public boolean isEmpty() {
        return denyUsers.isEmpty() && allowUsers.isEmpty() && denyGroups.isEmpty() && allowGroups.isEmpty();
    }

    /**
     * Why {@code user} connecting from {@code address} is refused (sshd's words after "not allowed because"), or
     * empty. {@code groups} is asked only when a group list is set.
     */
    public Optional<String> refusal(String user, String address, Supplier<List<String>> groups) {
        for (String p : denyUsers) {
            if (matchUser(user, address, p)) {
                return Optional.of("listed in DenyUsers");
            }
        }
        if (!allowUsers.isEmpty() && allowUsers.stream().noneMatch(p -> matchUser(user, address, p))) {
            return Optional.of("not listed in AllowUsers");
        }
        if (denyGroups.isEmpty() && allowGroups.isEmpty()) {
            return Optional.empty();
        }
        List<String> mine = groups.get();
        if (mine.isEmpty()) {
            return Optional.of("not in any group");
        }
        if (mine.stream().anyMatch(g -> denyGroups.stream().anyMatch(p -> wildcard(g, p, false)))) {
            return Optional.of("a group is listed in DenyGroups");
        }
        if (!allowGroups.isEmpty()
                && mine.stream().noneMatch(g -> allowGroups.stream().anyMatch(p -> wildcard(g, p, false)))) {
            return Optional.of("none of user's groups are listed in AllowGroups");
        }
        return Optional.empty();
    }

    /** sshd's match_user(): {@code pattern} or {@code pattern@hosts}; hosts needs a known address to match. */
    static boolean matchUser(String user, String address, String entry) {
        int at = entry.indexOf('@');
        if (at < 0) {
            return wildcard(user, entry, false);
        }
        if (!wildcard(user, entry.substring(0, at), false) || address == null) {
            return false;
        }
        boolean matched = false;
        for (String h : entry.substring(at + 1).split(",")) {
            boolean negated = h.startsWith("!");
            String p = negated ? h.substring(1) : h;
            boolean m = p.contains("/") ? inCidr(address, p) : wildcard(address, p, true);
            if (m && negated) {
                return false; // sshd: a negated match decides
            }
            matched |= m;
        }
        return matched;
    }

    /** sshd's match_pattern(): {@code *} any run, {@code ?} one character. */
    public static boolean wildcard(String s, String pattern, boolean ignoreCase) {
        if (ignoreCase) {
            s = s.toLowerCase(Locale.ROOT);
            pattern = pattern.toLowerCase(Locale.ROOT);
        }
        int si = 0;
        int pi = 0;
        int star = -1;
        int mark = 0;
        while (si < s.length()) {
            if (pi < pattern.length() && (pattern.charAt(pi) == '?' || pattern.charAt(pi) == s.charAt(si))) {
                si++;
                pi++;
            } else if (pi < pattern.length() && pattern.charAt(pi) == '*') {
                star = pi++;
                mark = si;
            } else if (star >= 0) {
                pi = star + 1;
                si = ++mark;
            } else {
                return false;
            }
        }
        while (pi < pattern.length() && pattern.charAt(pi) == '*') {
            pi++;
        }
        return pi == pattern.length();
    }

    public static boolean inCidr(String address, String block) {
        Object[] c = cidr(block);
        if (c == null || !isLiteral(address)) {
            return false;
        }
        try {
            byte[] a = InetAddress.getByName(address).getAddress();
            byte[] net = (byte[]) c[0];
            int bits = (int) c[1];
            if (a.length != net.length) {
                return false;
            }
            BigInteger mask = BigInteger.ONE.shiftLeft(a.length * 8).subtract(BigInteger.ONE)
                    .shiftRight(bits).not();
            return new BigInteger(1, a).and(mask).equals(new BigInteger(1, net).and(mask));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** {address bytes, prefix length} of {@code a.b.c.d/n} or {@code v6/n}; null when malformed. */
    private static Object[] cidr(String block) {
        int slash = block.indexOf('/');
        if (slash < 0) {
            return null;
        }
        String addr = block.substring(0, slash);
        if (!isLiteral(addr)) {
            return null;
        }
        try {
            byte[] a = InetAddress.getByName(addr).getAddress();
            int bits = Integer.parseInt(block.substring(slash + 1));
            return bits < 0 || bits > a.length * 8 ? null : new Object[] {a, bits};
        } catch (UnknownHostException | NumberFormatException e) {
            return null;
        }
    }

    /** An address literal (never a name: no DNS lookup here). */
    private static boolean isLiteral(String s) {
        return s.matches("[0-9.]+") && s.chars().filter(ch -> ch == '.').count() == 3 || s.matches("[0-9A-Fa-f:.]+")
                && s.contains(":");
    }
}
