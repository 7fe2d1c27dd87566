package io.pqssh.inventory.audit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.pqssh.inventory.scan.Algorithms;

/**
 * Audits {@code sshd_config}/{@code ssh_config} files: {@code Include} (globs, relative paths against the including
 * file's directory, depth 16 as OpenSSH), {@code Match}/{@code Host} blocks named in the findings.
 *
 * <p>sshd_config is read as {@code sshd -T} does: the first value of a keyword wins (later ones are reported as
 * ignored); keywords sshd does not allow in a {@code Match} block ({@code KexAlgorithms}, {@code Ciphers}, ...) make
 * the whole config invalid (sshd refuses to start), which is reported as such and not as a classical pin; algorithm
 * lists starting with {@code +}, {@code -} or {@code ^} are resolved against OpenSSH 10's defaults before they are
 * judged. ssh_config blocks are judged each on its own (which blocks apply depends on the host).
 */
public final class ConfigAudit {
    static final int MAX_DEPTH = 16;
    private static final Set<String> ALGORITHM_KEYWORDS = Set.of("kexalgorithms", "ciphers", "macs",
            "hostkeyalgorithms", "pubkeyacceptedalgorithms", "pubkeyacceptedkeytypes", "casignaturealgorithms",
            "hostbasedacceptedalgorithms", "hostbasedkeytypes");
    /**
     * sshd keywords that may not appear inside a Match block (servconf.c: everything not marked SSHCFG_ALL) among
     * those pqssh reads; sshd exits with "Directive '...' is not allowed within a Match block".
     */
    private static final Set<String> NOT_IN_MATCH = Set.of("kexalgorithms", "ciphers", "macs", "hostkeyalgorithms",
            "hostkey", "port", "listenaddress", "usedns");
    /** OpenSSH 10.5's KEX_DEFAULT_PK_ALG: {@code ssh-mldsa44-ed25519@openssh.com} is not in it (enabled in 10.6). */
    public static final List<String> OPENSSH105_PUBKEY_ALGORITHMS = List.of(
            "ssh-ed25519-cert-v01@openssh.com", "ecdsa-sha2-nistp256-cert-v01@openssh.com",
            "ecdsa-sha2-nistp384-cert-v01@openssh.com", "ecdsa-sha2-nistp521-cert-v01@openssh.com",
            "sk-ssh-ed25519-cert-v01@openssh.com", "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
            "rsa-sha2-512-cert-v01@openssh.com", "rsa-sha2-256-cert-v01@openssh.com", "ssh-ed25519",
            "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com",
            "sk-ecdsa-sha2-nistp256@openssh.com", "rsa-sha2-512", "rsa-sha2-256");
    /**
     * OpenSSH 10.6's default as reported (no 10.6 source or binary was available): 10.5's with the IETF composite
     * and its certificate added last. Used only to judge keys of the IETF name, which a 10.5 sshd does not know.
     */
    public static final List<String> OPENSSH106_PUBKEY_ALGORITHMS = java.util.stream.Stream.concat(
            OPENSSH105_PUBKEY_ALGORITHMS.stream(), java.util.stream.Stream.of("ssh-mldsa44-ed25519-cert",
                    "ssh-mldsa44-ed25519")).toList();
    /** sshd's default AuthorizedKeysFile. */
    public static final List<String> DEFAULT_AUTHORIZED_KEYS_FILES = List.of(".ssh/authorized_keys",
            ".ssh/authorized_keys2");

    private final List<Finding> findings;
    private final Set<Path> seen = new HashSet<>();

    ConfigAudit(List<Finding> findings) {
        this.findings = findings;
    }

    /** One keyword line, after Include expansion, with the block it is in (null: global). */
    record Directive(String file, int line, String keyword, String kw, List<String> args, String block) {
        String where() {
            return block == null ? "" : " (in " + block + ")";
        }
    }

    /** The global values sshd uses (first one wins), by lower-case keyword; what the key audit needs from it. */
    public static final class Effective {
        private final Map<String, Directive> global = new LinkedHashMap<>();
        /** Every global HostCertificate (sshd uses them all, not the first only). */
        private final List<String> hostCertificates = new ArrayList<>();
        private final Path file;

        Effective(Path file) {
            this.file = file;
        }

        /** The defaults only (no sshd_config known). */
        public static Effective defaults() {
            return new Effective(null);
        }

        public Path file() {
            return file;
        }

        /** AuthorizedKeysFile patterns ({@code %h %u %%}, relative to the home directory), or sshd's default. */
        public List<String> authorizedKeysFiles() {
            Directive d = global.get("authorizedkeysfile");
            if (d == null || d.args().isEmpty()) {
                return DEFAULT_AUTHORIZED_KEYS_FILES;
            }
            if (d.args().size() == 1 && d.args().get(0).equalsIgnoreCase("none")) {
                return List.of();
            }
            return d.args();
        }

        /** The HostCertificate files, in order. */
        public List<String> hostCertificates() {
            return List.copyOf(hostCertificates);
        }

        /** TrustedUserCAKeys (sshd's first value), or null when unset or {@code none}. */
        public String trustedUserCaKeys() {
            Directive d = global.get("trustedusercakeys");
            return d == null || d.args().isEmpty() || d.args().get(0).equalsIgnoreCase("none") ? null
                    : d.args().get(0);
        }

        /** The resolved PubkeyAcceptedAlgorithms (against OpenSSH 10.5's default). */
        public List<String> pubkeyAcceptedAlgorithms() {
            Directive d = global.get("pubkeyacceptedalgorithms");
            if (d == null) {
                d = global.get("pubkeyacceptedkeytypes");
            }
            return d == null || d.args().isEmpty() ? OPENSSH105_PUBKEY_ALGORITHMS
                    : resolve(String.join("", d.args()), OPENSSH105_PUBKEY_ALGORITHMS);
        }

        /** Whether sshd accepts user keys of this type ({@code PubkeyAcceptedAlgorithms}, wildcards honoured). */
        public boolean acceptsUserKey(String type) {
            return pubkeyAcceptedAlgorithms().stream().anyMatch(p -> wildcard(p, type));
        }

        /**
         * As {@link #acceptsUserKey} against OpenSSH 10.6's default ({@link #OPENSSH106_PUBKEY_ALGORITHMS}): for the
         * composite's IETF name, which only a 10.6 sshd (or pqssh) accepts at all.
         */
        public boolean acceptsUserKeyOn106(String type) {
            Directive d = global.get("pubkeyacceptedalgorithms");
            if (d == null) {
                d = global.get("pubkeyacceptedkeytypes");
            }
            List<String> l = d == null || d.args().isEmpty() ? OPENSSH106_PUBKEY_ALGORITHMS
                    : resolve(String.join("", d.args()), OPENSSH106_PUBKEY_ALGORITHMS);
            return l.stream().anyMatch(p -> wildcard(p, type));
        }

        /** Where the accepted list comes from when judged as OpenSSH 10.6, for messages. */
        public String pubkeySource106() {
            Directive d = global.get("pubkeyacceptedalgorithms");
            return d == null ? "OpenSSH 10.6's default PubkeyAcceptedAlgorithms"
                    : "PubkeyAcceptedAlgorithms at " + d.file() + ":" + d.line();
        }

        /** Where the accepted list comes from, for messages. */
        public String pubkeySource() {
            Directive d = global.get("pubkeyacceptedalgorithms");
            return d == null ? "OpenSSH 10.5's default PubkeyAcceptedAlgorithms"
                    : "PubkeyAcceptedAlgorithms at " + d.file() + ":" + d.line();
        }
    }

    /** Audits one config file and what it includes. {@code server}: sshd_config (else ssh_config). */
    Effective audit(Path file, boolean server) {
        List<Directive> ds = new ArrayList<>();
        read(file, server, 0, null, ds);
        Effective eff = new Effective(file);
        if (server) {
            server(ds, eff);
        } else {
            client(ds);
        }
        return eff;
    }

    /** Audits config lines that are not in a local file (osquery rows); Include cannot be followed there. */
    Effective auditLines(String name, List<String> lines, boolean server) {
        List<Directive> ds = new ArrayList<>();
        parse(name, null, lines, server, 0, null, ds);
        Effective eff = new Effective(null);
        if (server) {
            server(ds, eff);
        } else {
            client(ds);
        }
        return eff;
    }

    private void read(Path file, boolean server, int depth, String block, List<Directive> out) {
        Path real = file.toAbsolutePath().normalize();
        if (!seen.add(real)) {
            return;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            findings.add(Finding.config(Finding.Rules.UNREADABLE, "note", file.toString(), 0,
                    "cannot read config: " + e.getMessage()));
            return;
        }
        parse(file.toString(), file, lines, server, depth, block, out);
    }

    private void parse(String name, Path file, List<String> lines, boolean server, int depth, String block,
            List<Directive> out) {
        String context = block;
        for (int i = 0; i < lines.size(); i++) {
            List<String> toks = tokens(lines.get(i));
            if (toks.isEmpty()) {
                continue;
            }
            String kw = toks.get(0).toLowerCase(Locale.ROOT);
            List<String> args = toks.subList(1, toks.size());
            switch (kw) {
                case "match", "host" -> context = String.join(" ", toks);
                case "include" -> {
                    if (file == null) {
                        findings.add(Finding.config(Finding.Rules.UNREADABLE, "note", name, i + 1,
                                "Include not followed (the config came as rows, not as a file)"));
                        continue;
                    }
                    if (depth >= MAX_DEPTH) {
                        findings.add(Finding.config(Finding.Rules.UNREADABLE, "note", name, i + 1,
                                "Include nested deeper than " + MAX_DEPTH));
                        continue;
                    }
                    for (String pattern : args) {
                        for (Path inc : expand(file, pattern, server)) {
                            read(inc, server, depth + 1, context, out);
                        }
                    }
                }
                default -> out.add(new Directive(name, i + 1, toks.get(0), kw, List.copyOf(args), context));
            }
        }
    }

    private void server(List<Directive> ds, Effective eff) {
        for (Directive d : ds) {
            if (d.block() != null) {
                if (NOT_IN_MATCH.contains(d.kw())) {
                    findings.add(Finding.config(Finding.Rules.INVALID_CONFIG, "error", d.file(), d.line(),
                            d.keyword() + " is not allowed within a Match block" + d.where() + ": sshd refuses to start"
                                    + " with this config (\"Directive '" + d.keyword() + "' is not allowed within a"
                                    + " Match block\")"));
                } else if (ALGORITHM_KEYWORDS.contains(d.kw()) && !d.args().isEmpty()) {
                    judge(d, true, defaultsFor(d.kw(), true));
                }
                continue;
            }
            if (d.kw().equals("hostcertificate") && !d.args().isEmpty()) {
                eff.hostCertificates.add(d.args().get(0));
            }
            Directive first = eff.global.putIfAbsent(d.kw(), d);
            if (first != null) {
                if (ALGORITHM_KEYWORDS.contains(d.kw()) || d.kw().equals("authorizedkeysfile")) {
                    findings.add(Finding.config(Finding.Rules.IGNORED_CONFIG, "note", d.file(), d.line(),
                            d.keyword() + " ignored: sshd uses the first value, from " + first.file() + ":"
                                    + first.line() + " (sshd -T)"));
                }
                continue;
            }
            if (ALGORITHM_KEYWORDS.contains(d.kw()) && !d.args().isEmpty()) {
                judge(d, true, defaultsFor(d.kw(), true));
            }
        }
    }

    private void client(List<Directive> ds) {
        // first value wins within one block; which blocks apply depends on the destination host
        Set<String> seenInBlock = new HashSet<>();
        for (Directive d : ds) {
            if (!ALGORITHM_KEYWORDS.contains(d.kw()) || d.args().isEmpty()) {
                continue;
            }
            if (!seenInBlock.add(d.block() + "\0" + d.kw())) {
                findings.add(Finding.config(Finding.Rules.IGNORED_CONFIG, "note", d.file(), d.line(),
                        d.keyword() + " ignored: an earlier value in the same block wins" + d.where()));
                continue;
            }
            judge(d, false, defaultsFor(d.kw(), false));
        }
    }

    private static List<String> defaultsFor(String kw, boolean server) {
        return switch (kw) {
            case "kexalgorithms" -> Algorithms.OPENSSH10_CLIENT_KEX;
            case "pubkeyacceptedalgorithms", "pubkeyacceptedkeytypes" -> OPENSSH105_PUBKEY_ALGORITHMS;
            default -> List.of();
        };
    }

    /** Resolves {@code +list}, {@code -list} (wildcards), {@code ^list} or a plain list against the defaults. */
    public static List<String> resolve(String spec, List<String> defaults) {
        char op = spec.isEmpty() ? ' ' : spec.charAt(0);
        List<String> items = items(op == '+' || op == '-' || op == '^' ? spec.substring(1) : spec);
        List<String> out = new ArrayList<>();
        switch (op) {
            case '+' -> {
                out.addAll(defaults);
                items.stream().filter(i -> !out.contains(i)).forEach(out::add);
            }
            case '-' -> defaults.stream().filter(d -> items.stream().noneMatch(p -> wildcard(p, d))).forEach(out::add);
            case '^' -> {
                out.addAll(items);
                defaults.stream().filter(d -> !items.contains(d)).forEach(out::add);
            }
            default -> out.addAll(items);
        }
        return out;
    }

    private static List<String> items(String list) {
        List<String> items = new ArrayList<>();
        for (String s : list.split(",")) {
            if (!s.isBlank()) {
                items.add(s.strip());
            }
        }
        return items;
    }

    private void judge(Directive d, boolean server, List<String> defaults) {
        String spec = String.join("", d.args());
        char op = spec.charAt(0);
        List<String> items = items(op == '+' || op == '-' || op == '^' ? spec.substring(1) : spec);
        String f = d.file();
        String where = d.where();
        if (op != '-') {
            List<String> weak = items.stream().filter(Algorithms::isWeakName).toList();
            if (!weak.isEmpty()) {
                findings.add(Finding.config(Finding.Rules.WEAK_ALGORITHM_CONFIG, "warning", f, d.line(),
                        d.keyword() + " enables weak algorithms " + String.join(",", weak) + where));
            }
        }
        if (!d.kw().equals("kexalgorithms")) {
            return;
        }
        List<String> effective = resolve(spec, defaults);
        List<String> pq = effective.stream().filter(Algorithms::isPqKex).toList();
        if (op == '-') {
            List<String> removed = defaults.stream().filter(x -> Algorithms.isPqKex(x) && !effective.contains(x))
                    .toList();
            if (!removed.isEmpty()) {
                findings.add(Finding.config(Finding.Rules.PQ_KEX_REMOVED, "error", f, d.line(),
                        d.keyword() + " removes post-quantum key exchange " + String.join(",", removed)
                                + (pq.isEmpty() ? ": no post-quantum method is left" : "") + where));
            }
            return;
        }
        if (pq.isEmpty()) {
            findings.add(Finding.config(Finding.Rules.CLASSICAL_KEX_CONFIG, "error", f, d.line(),
                    d.keyword() + " pins classical-only key exchange " + String.join(",", effective) + where));
        } else if (op == '^' && !server && !Algorithms.isPqKex(effective.get(0))) {
            findings.add(Finding.config(Finding.Rules.CLASSICAL_KEX_CONFIG, "warning", f, d.line(),
                    d.keyword() + " puts classical " + effective.get(0) + " first: it is negotiated with every"
                            + " server that offers it" + where));
        }
    }

    /** Include targets: absolute, or relative to the including file's directory; glob in the file name part. */
    private List<Path> expand(Path including, String pattern, boolean server) {
        String p = pattern;
        if (p.startsWith("~/")) {
            p = System.getProperty("user.home") + p.substring(1);
        }
        Path base = Path.of(p).isAbsolute() ? Path.of(p)
                : (including.toAbsolutePath().getParent() == null ? Path.of(p)
                        : including.toAbsolutePath().getParent().resolve(p));
        Path dir = base.getParent();
        String name = base.getFileName() == null ? "" : base.getFileName().toString();
        List<Path> out = new ArrayList<>();
        if (dir == null || !Files.isDirectory(dir)) {
            return out;
        }
        if (!name.contains("*") && !name.contains("?") && !name.contains("[")) {
            if (Files.isRegularFile(base)) {
                out.add(base);
            }
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, name)) {
            for (Path x : ds) {
                if (Files.isRegularFile(x)) {
                    out.add(x);
                }
            }
        } catch (IOException e) {
            findings.add(Finding.config(Finding.Rules.UNREADABLE, "note", including.toString(), 0,
                    "cannot list Include " + pattern + ": " + e.getMessage()));
        }
        out.sort(null); // OpenSSH includes glob matches in lexical order
        return out;
    }

    /** OpenSSH config tokens: whitespace or one {@code =} separate, double quotes group, {@code #} comments. */
    static List<String> tokens(String line) {
        List<String> out = new ArrayList<>();
        String s = line.strip();
        if (s.isEmpty() || s.startsWith("#")) {
            return out;
        }
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quoted) {
                if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
                any = true;
            } else if (c == '#' && cur.length() == 0 && !any) {
                break;
            } else if (c == ' ' || c == '\t' || (c == '=' && out.isEmpty())) {
                if (cur.length() > 0 || any) {
                    out.add(cur.toString());
                    cur.setLength(0);
                    any = false;
                }
            } else {
                cur.append(c);
            }
        }
        if (cur.length() > 0 || any) {
            out.add(cur.toString());
        }
        return out;
    }

    static boolean wildcard(String pattern, String s) {
        return s.matches(("\\Q" + pattern + "\\E").replace("*", "\\E.*\\Q").replace("?", "\\E.\\Q"));
    }
}
