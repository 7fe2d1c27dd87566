package io.pqssh.inventory.scan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A server policy, as ssh-audit's: what a compliant server must and may offer. Text format, one {@code key = value}
 * per line, {@code #} comments; lists are comma-separated names ({@code *} and {@code ?} wildcards in
 * {@code *_allowed}):
 *
 * <pre>
 * name = web servers
 * kex_required = mlkem768x25519-sha256          # each must be offered
 * kex_allowed = mlkem768x25519-sha256, curve25519-sha256   # nothing else may be (ext-info/strict markers aside)
 * host_keys_required / host_keys_allowed, ciphers_required / ciphers_allowed, macs_required / macs_allowed
 * pq_kex_required = yes                          # OpenSSH 10 (or pqssh) negotiates a post-quantum exchange
 * strict_kex_required = yes                      # kex-strict-s-v00@openssh.com (Terrapin)
 * weak_allowed = no                              # no fail/warn algorithm of pqssh's weak list
 * </pre>
 *
 * The built-in {@code pq-baseline} is {@code pq_kex_required = yes, strict_kex_required = yes, weak_allowed = no}.
 */
public record Policy(String name, Map<String, List<String>> lists, boolean pqKexRequired, boolean strictKexRequired,
        boolean weakAllowed) {

    static final List<String> LIST_KEYS = List.of("kex_required", "kex_allowed", "host_keys_required",
            "host_keys_allowed", "ciphers_required", "ciphers_allowed", "macs_required", "macs_allowed");
    public static final String BASELINE = "pq-baseline";

    public static Policy builtin(String name) {
        if (!name.equals(BASELINE)) {
            throw new IllegalArgumentException("unknown built-in policy '" + name + "' (built in: " + BASELINE + ")");
        }
        return new Policy(BASELINE, Map.of(), true, true, false);
    }

    /** {@code pq-baseline}, or a policy file. */
    public static Policy load(String nameOrFile) throws IOException {
        if (nameOrFile.equals(BASELINE)) {
            return builtin(BASELINE);
        }
        Path p = Path.of(nameOrFile);
        return parse(Files.readString(p, StandardCharsets.UTF_8), p.toString());
    }

    public static Policy parse(String text, String source) {
        String name = source;
        Map<String, List<String>> lists = new LinkedHashMap<>();
        boolean pq = false;
        boolean strict = false;
        boolean weak = true;
        int n = 0;
        for (String raw : text.split("\n", -1)) {
            n++;
            String line = raw.contains("#") ? raw.substring(0, raw.indexOf('#')) : raw;
            if (line.isBlank()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException(source + ":" + n + ": expected 'key = value'");
            }
            String key = line.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(eq + 1).strip();
            switch (key) {
                case "name" -> name = value;
                case "pq_kex_required" -> pq = bool(value, source, n);
                case "strict_kex_required" -> strict = bool(value, source, n);
                case "weak_allowed" -> weak = bool(value, source, n);
                default -> {
                    if (!LIST_KEYS.contains(key)) {
                        throw new IllegalArgumentException(source + ":" + n + ": unknown key '" + key + "' (known: name, "
                                + String.join(", ", LIST_KEYS) + ", pq_kex_required, strict_kex_required, weak_allowed)");
                    }
                    List<String> l = new ArrayList<>();
                    for (String s : value.split(",")) {
                        if (!s.isBlank()) {
                            l.add(s.strip());
                        }
                    }
                    if (lists.put(key, List.copyOf(l)) != null) {
                        throw new IllegalArgumentException(source + ":" + n + ": '" + key + "' given twice");
                    }
                }
            }
        }
        return new Policy(name, Map.copyOf(lists), pq, strict, weak);
    }

    private static boolean bool(String v, String source, int n) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "yes", "true" -> true;
            case "no", "false" -> false;
            default -> throw new IllegalArgumentException(source + ":" + n + ": expected yes or no, got '" + v + "'");
        };
    }

    /**
     * The failed checks for one result (empty: compliant). Only SSH results are checked; with partial evidence only
     * what it shows is checked, and what could not be is a failure ("cannot check ...").
     */
    public List<String> check(ScanResult r) {
        List<String> out = new ArrayList<>();
        if (r.status() != ScanResult.Status.SSH) {
            return out;
        }
        KexInit k = r.kexInit();
        if (k == null || r.classification() == null) {
            out.add("cannot check: only " + (r.evidence() == ScanResult.Evidence.BANNER ? "the banner" : "part of the"
                    + " handshake") + " is known");
            return out;
        }
        List<String> kex = k.kex().stream().filter(x -> !Algorithms.isPseudoKex(x)).toList();
        boolean full = r.evidence() == ScanResult.Evidence.KEXINIT;
        set(out, "kex", kex);
        if (full) {
            set(out, "host_keys", k.hostKey());
            set(out, "ciphers", union(k.ciphersC2S(), k.ciphersS2C()));
            set(out, "macs", union(k.macsC2S(), k.macsS2C()));
        } else if (lists.keySet().stream().anyMatch(x -> !x.startsWith("kex"))) {
            out.add("cannot check host keys, ciphers and MACs: only the KEX list is known ("
                    + r.evidence().jsonName() + ")");
        }
        if (pqKexRequired && !r.classification().pqReady()) {
            out.add("no post-quantum key exchange that OpenSSH 10 negotiates"
                    + (r.classification().pqKexOffered().isEmpty() ? "" : " (only non-standard "
                            + String.join(", ", r.classification().pqKexOffered()) + ")"));
        }
        if (strictKexRequired && !r.classification().strictKex()) {
            out.add("no strict KEX (kex-strict-s-v00@openssh.com)");
        }
        if (!weakAllowed && !r.classification().weak().isEmpty()) {
            out.add("weak algorithms offered: " + String.join(", ", r.classification().weak()));
        }
        return out;
    }

    private void set(List<String> out, String what, List<String> offered) {
        List<String> required = lists.get(what + "_required");
        if (required != null) {
            List<String> missing = required.stream().filter(x -> !offered.contains(x)).toList();
            if (!missing.isEmpty()) {
                out.add(what + " required but not offered: " + String.join(", ", missing));
            }
        }
        List<String> allowed = lists.get(what + "_allowed");
        if (allowed != null) {
            List<String> extra = offered.stream().filter(x -> allowed.stream().noneMatch(p -> matches(p, x))).toList();
            if (!extra.isEmpty()) {
                out.add(what + " offered but not allowed: " + String.join(", ", extra));
            }
        }
    }

    private static boolean matches(String pattern, String s) {
        return s.matches(("\\Q" + pattern + "\\E").replace("*", "\\E.*\\Q").replace("?", "\\E.\\Q"));
    }

    private static List<String> union(List<String> a, List<String> b) {
        List<String> l = new ArrayList<>(a);
        b.stream().filter(x -> !l.contains(x)).forEach(l::add);
        return l;
    }

    /** A policy that the given server complies with exactly: its lists as allowed, its PQ KEX as required. */
    public static String make(ScanResult r) {
        if (r.status() != ScanResult.Status.SSH || r.evidence() != ScanResult.Evidence.KEXINIT) {
            throw new IllegalArgumentException("--make-policy needs an SSH server's KEXINIT; " + r.target() + " is "
                    + r.category() + (r.error() == null ? "" : " (" + r.error() + ")"));
        }
        KexInit k = r.kexInit();
        Classification c = r.classification();
        List<String> kex = k.kex().stream().filter(x -> !Algorithms.isPseudoKex(x)).toList();
        StringBuilder b = new StringBuilder();
        b.append("# pqssh policy made from ").append(r.target()).append(" (").append(r.software()).append(")\n");
        b.append("name = ").append(r.target()).append('\n');
        if (!c.pqKexOffered().isEmpty()) {
            b.append("kex_required = ").append(String.join(", ", c.pqKexOffered())).append('\n');
        }
        b.append("kex_allowed = ").append(String.join(", ", kex)).append('\n');
        b.append("host_keys_allowed = ").append(String.join(", ", k.hostKey())).append('\n');
        b.append("ciphers_allowed = ").append(String.join(", ", union(k.ciphersC2S(), k.ciphersS2C()))).append('\n');
        b.append("macs_allowed = ").append(String.join(", ", union(k.macsC2S(), k.macsS2C()))).append('\n');
        b.append("pq_kex_required = ").append(c.pqReady() ? "yes" : "no").append('\n');
        b.append("strict_kex_required = ").append(c.strictKex() ? "yes" : "no").append('\n');
        b.append("weak_allowed = ").append(c.weak().isEmpty() ? "no" : "yes").append('\n');
        return b.toString();
    }
}
