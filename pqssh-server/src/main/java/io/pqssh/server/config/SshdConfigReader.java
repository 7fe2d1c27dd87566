package io.pqssh.server.config;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.pqssh.server.ServerConfig.ConfigException;

/**
 * Reads an sshd_config file as sshd does: {@code Include} (glob patterns, relative to /etc/ssh, files in lexical
 * order, nested at most {@value #MAX_DEPTH} deep), {@code Match} blocks that run to the next Match or the end of
 * the file that opened them, {@code Keyword value} and {@code Keyword=value}, {@code #} comments. Which keyword is
 * allowed where is checked here; what a keyword means is ServerConfig's business.
 */
public final class SshdConfigReader {
    /** sshd's SERVCONF_MAX_DEPTH. */
    static final int MAX_DEPTH = 16;

    private final Path includeBase;
    private final List<ConfigLine> lines = new ArrayList<>();

    private SshdConfigReader(Path includeBase) {
        this.includeBase = includeBase;
    }

    /** Every keyword line of {@code file} and what it includes, in order. */
    public static List<ConfigLine> read(Path file) throws IOException, ConfigException {
        return read(file, Path.of("/etc/ssh"));
    }

    /** As {@link #read(Path)}, with relative Include patterns resolved against {@code includeBase}. */
    public static List<ConfigLine> read(Path file, Path includeBase) throws IOException, ConfigException {
        SshdConfigReader r = new SshdConfigReader(includeBase);
        r.file(file, null, 0);
        return List.copyOf(r.lines);
    }

    private void file(Path file, MatchCondition inherited, int depth) throws IOException, ConfigException {
        if (depth > MAX_DEPTH) {
            throw new ConfigException(file + ": Include nested too deeply (more than " + MAX_DEPTH + " levels)");
        }
        List<String> text;
        try {
            text = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": No such file or directory");
        }
        MatchCondition match = inherited;
        for (int i = 0; i < text.size(); i++) {
            String where = file + " line " + (i + 1);
            String line = text.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] kv = line.split("\\s*=\\s*|\\s+", 2);
            String key = kv[0];
            String value = kv.length > 1 ? stripComment(kv[1].strip()) : "";
            String lower = key.toLowerCase(Locale.ROOT);
            if (value.chars().anyMatch(ch -> ch < 0x20 && ch != '\t' || ch == 0x7f)) {
                throw new ConfigException(where + ": control character in the value of " + key);
            }
            SshdKeywords.Keyword kw = SshdKeywords.find(lower)
                    .orElseThrow(() -> new ConfigException(where + ": Bad configuration option: " + key));
            if (value.isEmpty()) {
                throw new ConfigException(where + ": " + key + ": missing argument.");
            }
            switch (lower) {
                case "match" -> {
                    try {
                        match = MatchCondition.parse(value);
                    } catch (IllegalArgumentException e) {
                        throw new ConfigException(where + ": " + e.getMessage());
                    }
                }
                case "include" -> {
                    for (String pattern : value.split("\\s+")) {
                        for (Path p : expand(pattern)) {
                            file(p, match, depth + 1);
                        }
                    }
                }
                default -> {
                    if (match != null && !kw.inMatch()) {
                        throw new ConfigException(where + ": Directive '" + kw.name()
                                + "' is not allowed within a Match block");
                    }
                    lines.add(new ConfigLine(lower, value, where, match));
                }
            }
        }
    }

    /** sshd ends an argument list at a word starting with '#'. */
    private static String stripComment(String v) {
        int hash = v.indexOf(" #");
        int tab = v.indexOf("\t#");
        int cut = hash < 0 ? tab : tab < 0 ? hash : Math.min(hash, tab);
        return cut < 0 ? v : v.substring(0, cut).strip();
    }

    /** A glob in the last path element (as sshd's glob(3) for Include), sorted; no match is no file. */
    private List<Path> expand(String pattern) throws IOException {
        Path p = Path.of(pattern);
        if (!p.isAbsolute()) {
            p = includeBase.resolve(p);
        }
        Path dir = p.getParent();
        String name = p.getFileName().toString();
        if (dir.toString().matches(".*[*?\\[].*")) {
            throw new IOException("Include " + pattern + ": wildcards are supported in the file name only");
        }
        List<Path> out = new ArrayList<>();
        if (!name.matches(".*[*?\\[].*")) {
            if (Files.exists(p)) {
                out.add(p);
            }
            return out;
        }
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, name)) {
            for (Path f : ds) {
                if (!f.getFileName().toString().startsWith(".") || name.startsWith(".")) {
                    out.add(f);
                }
            }
        }
        out.sort(null);
        return out;
    }
}
