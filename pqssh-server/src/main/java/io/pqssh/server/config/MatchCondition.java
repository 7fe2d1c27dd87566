package io.pqssh.server.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.pqssh.server.login.AccessLists;

/**
 * One {@code Match} line: criteria (User, Group, Host, Address, LocalAddress, LocalPort, RDomain, All), all of which
 * must hold; each takes sshd's comma-separated pattern list where a {@code !pattern} that matches vetoes the list.
 */
public final class MatchCondition {
    private record Criterion(String name, String patterns) {
    }

    private final List<Criterion> criteria;
    private final String text;

    private MatchCondition(List<Criterion> criteria, String text) {
        this.criteria = criteria;
        this.text = text;
    }

    /** Parses the arguments of a Match line; errors carry sshd's wording (the caller adds file and line). */
    public static MatchCondition parse(String args) {
        String[] t = args.strip().split("\\s+");
        List<Criterion> out = new ArrayList<>();
        if (t.length == 0 || t[0].isEmpty()) {
            throw new IllegalArgumentException("Missing Match criteria");
        }
        for (int i = 0; i < t.length; i++) {
            String name = t[i].toLowerCase(Locale.ROOT);
            if (name.equals("all")) {
                if (t.length != 1) {
                    throw new IllegalArgumentException("'all' cannot be combined with other Match attributes");
                }
                out.add(new Criterion("all", ""));
                continue;
            }
            if (!List.of("user", "group", "host", "address", "localaddress", "localport", "rdomain")
                    .contains(name)) {
                throw new IllegalArgumentException("Unsupported Match attribute " + t[i]);
            }
            if (i + 1 >= t.length || t[i + 1].isEmpty()) {
                throw new IllegalArgumentException("Missing Match criteria for " + t[i]);
            }
            String v = t[++i];
            if (name.equals("localport")) {
                try {
                    int p = Integer.parseInt(v);
                    if (p <= 0 || p > 65535) {
                        throw new NumberFormatException();
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("Invalid LocalPort '" + v + "' on Match line");
                }
            }
            out.add(new Criterion(name, v));
        }
        return new MatchCondition(List.copyOf(out), args.strip());
    }

    /** True if every criterion holds for {@code ci}; null (the server's start-up) matches nothing, as in sshd. */
    public boolean matches(ConnectionInfo ci) {
        if (ci == null) {
            return false;
        }
        for (Criterion c : criteria) {
            boolean ok = switch (c.name()) {
                case "all" -> true;
                case "user" -> ci.user() != null && list(ci.user(), c.patterns(), false);
                case "group" -> ci.groups() != null && groups(ci.groups(), c.patterns());
                case "host" -> ci.host() != null && list(ci.host(), c.patterns(), true);
                case "address" -> ci.address() != null && addresses(ci.address(), c.patterns());
                case "localaddress" -> ci.localAddress() != null && addresses(ci.localAddress(), c.patterns());
                case "localport" -> ci.localPort() != null && ci.localPort() == Integer.parseInt(c.patterns());
                case "rdomain" -> ci.rdomain() != null && list(ci.rdomain(), c.patterns(), false);
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Whether a Group criterion needs the user's groups. */
    public boolean usesGroups() {
        return criteria.stream().anyMatch(c -> c.name().equals("group"));
    }

    @Override
    public String toString() {
        return text;
    }

    /** sshd's match_pattern_list: a matching negated pattern is a veto, otherwise any positive match. */
    static boolean list(String s, String patterns, boolean ignoreCase) {
        boolean hit = false;
        for (String p : patterns.split(",")) {
            boolean neg = p.startsWith("!");
            String pat = neg ? p.substring(1) : p;
            if (AccessLists.wildcard(s, pat, ignoreCase)) {
                if (neg) {
                    return false;
                }
                hit = true;
            }
        }
        return hit;
    }

    /** Group: any of the user's groups satisfies the list, unless one of them is vetoed. */
    private static boolean groups(List<String> groups, String patterns) {
        boolean hit = false;
        for (String g : groups) {
            for (String p : patterns.split(",")) {
                boolean neg = p.startsWith("!");
                if (AccessLists.wildcard(g, neg ? p.substring(1) : p, false)) {
                    if (neg) {
                        return false;
                    }
                    hit = true;
                }
            }
        }
        return hit;
    }

    /** sshd's addr_match_list: CIDR or wildcard entries, {@code !} vetoes. */
    private static boolean addresses(String addr, String patterns) {
        boolean hit = false;
        for (String p : patterns.split(",")) {
            boolean neg = p.startsWith("!");
            String pat = neg ? p.substring(1) : p;
            boolean m = pat.contains("/") ? AccessLists.inCidr(addr, pat) : AccessLists.wildcard(addr, pat, true);
            if (m) {
                if (neg) {
                    return false;
                }
                hit = true;
            }
        }
        return hit;
    }
}
