package io.pqssh.inventory.audit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.pqssh.inventory.scan.Algorithms;

/**
 * Audits {@code sshd_config}/{@code ssh_config} files: {@code Include} (globs, relative paths against the including
 * file's directory, depth 16 as OpenSSH), {@code Match}/{@code Host} blocks named in the findings. Findings:
 * a {@code KexAlgorithms} list without any post-quantum method, a {@code -list} removing post-quantum methods, a
 * client {@code ^list} putting a classical method first, and weak algorithms enabled.
 */
public final class ConfigAudit {
    static final int MAX_DEPTH = 16;
    private static final Set<String> ALGORITHM_KEYWORDS = Set.of("kexalgorithms", "ciphers", "macs",
            "hostkeyalgorithms", "pubkeyacceptedalgorithms", "pubkeyacceptedkeytypes", "casignaturealgorithms",
            "hostbasedacceptedalgorithms", "hostbasedkeytypes");

    private final List<Finding> findings;
    private final Set<Path> seen = new HashSet<>();

    ConfigAudit(List<Finding> findings) {
        this.findings = findings;
    }

    /** Audits one config file and what it includes. {@code server}: sshd_config (else ssh_config). */
    void audit(Path file, boolean server) {
        audit(file, server, 0, null);
    }

    private void audit(Path file, boolean server, int depth, String block) {
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
        String context = block;
        for (int i = 0; i < lines.size(); i++) {
            List<String> toks = tokens(lines.get(i));
            if (toks.isEmpty()) {
                continue;
            }
            String kw = toks.get(0).toLowerCase(Locale.ROOT);
            List<String> args = toks.subList(1, toks.size());
            String where = context == null ? "" : " (in " + context + ")";
            switch (kw) {
                case "match", "host" -> context = String.join(" ", toks);
                case "include" -> {
                    if (depth >= MAX_DEPTH) {
                        findings.add(Finding.config(Finding.Rules.UNREADABLE, "note", file.toString(), i + 1,
                                "Include nested deeper than " + MAX_DEPTH));
                        continue;
                    }
                    for (String pattern : args) {
                        for (Path inc : expand(file, pattern, server)) {
                            audit(inc, server, depth + 1, context);
                        }
                    }
                }
                default -> {
                    if (ALGORITHM_KEYWORDS.contains(kw) && !args.isEmpty()) {
                        algorithms(file, i + 1, toks.get(0), kw, String.join("", args), server, where);
                    }
                }
            }
        }
    }

    private void algorithms(Path file, int line, String keyword, String kw, String spec, boolean server,
            String where) {
        char op = spec.charAt(0);
        String listPart = op == '+' || op == '-' || op == '^' ? spec.substring(1) : spec;
        List<String> items = new ArrayList<>();
        for (String s : listPart.split(",")) {
            if (!s.isBlank()) {
                items.add(s.strip());
            }
        }
        String f = file.toString();
        if (op != '-') {
            List<String> weak = items.stream().filter(Algorithms::isWeakName).toList();
            if (!weak.isEmpty()) {
                findings.add(Finding.config(Finding.Rules.WEAK_ALGORITHM_CONFIG, "warning", f, line,
                        keyword + " enables weak algorithms " + String.join(",", weak) + where));
            }
        }
        if (!kw.equals("kexalgorithms")) {
            return;
        }
        List<String> defaults = Algorithms.OPENSSH10_CLIENT_KEX;
        switch (op) {
            case '-' -> {
                List<String> removed = defaults.stream().filter(d -> Algorithms.isPqKex(d)
                        && items.stream().anyMatch(p -> wildcard(p, d))).toList();
                if (!removed.isEmpty()) {
                    boolean none = defaults.stream().filter(Algorithms::isPqKex).allMatch(removed::contains);
                    findings.add(Finding.config(Finding.Rules.PQ_KEX_REMOVED, "error", f, line,
                            keyword + " removes post-quantum key exchange " + String.join(",", removed)
                                    + (none ? ": no post-quantum method is left" : "") + where));
                }
            }
            case '^' -> {
                if (!server && !items.isEmpty() && !Algorithms.isPqKex(items.get(0))) {
                    findings.add(Finding.config(Finding.Rules.CLASSICAL_KEX_CONFIG, "warning", f, line,
                            keyword + " puts classical " + items.get(0) + " first: it is negotiated with every"
                                    + " server that offers it" + where));
                }
            }
            case '+' -> {
                // appending keeps the post-quantum defaults
            }
            default -> {
                if (items.stream().noneMatch(Algorithms::isPqKex)) {
                    findings.add(Finding.config(Finding.Rules.CLASSICAL_KEX_CONFIG, "error", f, line,
                            keyword + " pins classical-only key exchange " + String.join(",", items) + where));
                }
            }
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
