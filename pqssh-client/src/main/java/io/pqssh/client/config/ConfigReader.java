package io.pqssh.client.config;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Reads {@code -o} options and ssh_config files into an {@link OptionSet}, evaluating {@code Host} and
 * {@code Match} blocks for one destination as ssh does (readconf.c): first value wins, {@code Include} (relative
 * paths under {@code ~/.ssh}, globs, at most 16 deep), {@code IgnoreUnknown}. Every keyword is checked against
 * {@link Keywords}: an unknown one, or an unsupported one with a value pqssh does not behave as, is an error.
 */
final class ConfigReader {
    private static final int MAX_INCLUDE_DEPTH = 16;

    private final OptionSet options;
    private final String originalHost;
    private final String localUser;
    private final Path home;
    private final Consumer<String> debug;
    private boolean finalPass;
    private boolean wantsFinalPass;
    /** The directory relative {@code Include}s resolve to while reading the system file (ssh's SSHDIR), or null. */
    private Path systemDir;

    ConfigReader(OptionSet options, String originalHost, String localUser, Path home, Consumer<String> debug) {
        this.options = options;
        this.originalHost = originalHost;
        this.localUser = localUser;
        this.home = home;
        this.debug = debug;
    }

    void finalPass(boolean f) {
        this.finalPass = f;
    }

    /** True when a {@code Match canonical} or {@code Match final} asked for the second pass. */
    boolean wantsFinalPass() {
        return wantsFinalPass;
    }

    /** One {@code -o} option ("Key=value" or "Key value"). */
    void commandLine(String text) throws ConfigException {
        List<String> words = ConfigLine.split(text);
        String where = "command-line line 0";
        if (words.isEmpty()) {
            throw new ConfigException(where + ": missing keyword");
        }
        String kw = words.get(0).toLowerCase(Locale.ROOT);
        if (kw.equals("host") || kw.equals("match") || kw.equals("include")) {
            throw new ConfigException(where + ": " + words.get(0) + " directive not supported as a command-line"
                    + " option");
        }
        apply(words, where, true, 0, null);
    }

    /** Reads a config file; a missing file is skipped when {@code mustExist} is false (~/.ssh/config). */
    void file(Path file, boolean mustExist) throws ConfigException {
        if (!Files.exists(file)) {
            if (mustExist) {
                throw new ConfigException("Can't open user config file " + file + ": No such file or directory");
            }
            return;
        }
        read(file, 0, true);
    }

    /**
     * Reads the system-wide file (OpenSSH's {@code /etc/ssh/ssh_config}) if it exists. Relative {@code Include}s
     * resolve to its directory, as ssh's do to {@code /etc/ssh}. The file is written for OpenSSH and shared with it,
     * so a keyword pqssh does not implement is skipped with a debug line instead of being an error; an unknown keyword
     * is still an error, as in ssh.
     */
    void systemFile(Path file) throws ConfigException {
        if (!Files.exists(file)) {
            return;
        }
        Path abs = file.toAbsolutePath();
        systemDir = abs.getParent();
        try {
            read(abs, 0, true);
        } finally {
            systemDir = null;
        }
    }

    private void read(Path file, int depth, boolean activeAtStart) throws ConfigException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new ConfigException("Can't open config file " + file + ": " + e.getMessage(), e);
        }
        debug.accept("Reading configuration data " + file);
        boolean active = activeAtStart;
        for (int n = 0; n < lines.size(); n++) {
            String where = file + " line " + (n + 1);
            List<String> words;
            try {
                words = ConfigLine.split(lines.get(n));
            } catch (ConfigException e) {
                throw new ConfigException(where + ": " + e.getMessage());
            }
            if (words.isEmpty()) {
                continue;
            }
            String kw = words.get(0).toLowerCase(Locale.ROOT);
            List<String> args = words.subList(1, words.size());
            switch (kw) {
                case "host" -> active = hostMatches(args, where);
                case "match" -> active = matchMatches(args, where);
                case "include" -> {
                    if (args.isEmpty()) {
                        throw new ConfigException(where + ": Include: missing argument.");
                    }
                    if (active) {
                        include(args, where, depth);
                    }
                }
                default -> apply(words, where, active, depth, file);
            }
        }
    }

    private void include(List<String> args, String where, int depth) throws ConfigException {
        if (depth + 1 > MAX_INCLUDE_DEPTH) {
            throw new ConfigException(where + ": Include: too many nested includes (at most " + MAX_INCLUDE_DEPTH
                    + ")");
        }
        for (String a : args) {
            String p = Tokens.tilde(a, home);
            Path pattern = Path.of(p).isAbsolute() ? Path.of(p)
                    : (systemDir != null ? systemDir : home.resolve(".ssh")).resolve(p);
            for (Path f : glob(pattern)) {
                debug.accept(where + ": Including file " + f + " depth " + (depth + 1));
                read(f, depth + 1, true);
            }
        }
    }

    private static List<Path> glob(Path pattern) throws ConfigException {
        String name = pattern.getFileName().toString();
        List<Path> out = new ArrayList<>();
        if (!name.contains("*") && !name.contains("?") && !name.contains("[")) {
            if (Files.isRegularFile(pattern)) {
                out.add(pattern);
            }
            return out;
        }
        Path dir = pattern.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, name)) {
            ds.forEach(f -> {
                if (Files.isRegularFile(f)) {
                    out.add(f);
                }
            });
        } catch (IOException e) {
            throw new ConfigException("Include " + pattern + ": " + e.getMessage(), e);
        }
        out.sort(null);
        return out;
    }

    private void apply(List<String> words, String where, boolean active, int depth, Path file)
            throws ConfigException {
        String name = words.get(0);
        List<String> args = words.subList(1, words.size());
        Keyword k = Keywords.lookup(name).orElse(null);
        if (k == null) {
            OptionValue ignore = options.first("IgnoreUnknown");
            if (ignore != null && Patterns.matchList(name, ignore.first())) {
                debug.accept(where + ": Ignored unknown option \"" + name + "\"");
                return;
            }
            throw new ConfigException(where + ": Bad configuration option: " + name.toLowerCase(Locale.ROOT));
        }
        try {
            k.validator().check(k.name(), args);
        } catch (ConfigException e) {
            throw new ConfigException(where + ": " + k.name() + ": " + e.getMessage());
        }
        switch (k.status()) {
            case IGNORED -> {
                if (active) {
                    debug.accept(where + ": Ignored option \"" + name + "\": " + k.note());
                }
            }
            case UNSUPPORTED -> {
                if (k.behavesAs(args.size() == 1 ? args.get(0) : null)) {
                    break;
                }
                if (systemDir != null) {
                    debug.accept(where + ": " + k.name() + " " + String.join(" ", args) + ": not implemented by"
                            + " pqssh, skipped in the system-wide file");
                    return;
                }
                throw new ConfigException(where + ": Unsupported option \"" + k.name() + "\": pqssh does not"
                        + " implement it, and ignoring it could weaken security" + (k.behavesAs() == null ? ""
                        : " (only '" + k.behavesAs().replace("|", "' or '") + "' is accepted)")
                        + "; see docs/client.md");
            }
            default -> {
            }
        }
        if (active) {
            options.offer(k, new OptionValue(args, where));
        }
    }

    private boolean hostMatches(List<String> patterns, String where) throws ConfigException {
        if (patterns.isEmpty()) {
            throw new ConfigException(where + ": Host: missing argument.");
        }
        // Host lines match the name given (ssh's first pass), and the HostName in the final pass
        String host = finalPass ? currentHost() : originalHost;
        boolean matched = false;
        for (String p : patterns) {
            if (p.startsWith("!")) {
                if (Patterns.glob(host, p.substring(1))) {
                    debug.accept(where + ": Host " + host + " matched negated pattern '" + p + "'");
                    return false;
                }
            } else if (Patterns.glob(host, p)) {
                matched = true;
            }
        }
        if (matched) {
            debug.accept(where + ": Applying options for " + String.join(" ", patterns));
        }
        return matched;
    }

    private String currentHost() {
        OptionValue hn = options.first("HostName");
        return hn == null ? originalHost : Tokens.hostName(hn.first(), originalHost);
    }

    private String currentUser() {
        OptionValue u = options.first("User");
        return u == null ? localUser : u.first();
    }

    private boolean matchMatches(List<String> args, String where) throws ConfigException {
        if (args.isEmpty()) {
            throw new ConfigException(where + ": Match: missing criteria");
        }
        boolean result = true;
        for (int i = 0; i < args.size(); i++) {
            String crit = args.get(i).toLowerCase(Locale.ROOT);
            boolean negate = crit.startsWith("!");
            if (negate) {
                crit = crit.substring(1);
            }
            boolean r;
            switch (crit) {
                case "all" -> {
                    if (args.size() > 1 && !(args.size() == 2 && (args.get(0).equalsIgnoreCase("canonical")
                            || args.get(0).equalsIgnoreCase("final")))) {
                        throw new ConfigException(where + ": Match: 'all' cannot be combined with other criteria");
                    }
                    r = true;
                }
                case "canonical", "final" -> {
                    wantsFinalPass = true;
                    r = finalPass;
                }
                case "host", "originalhost", "user", "localuser", "exec", "tagged", "localnetwork", "version",
                        "sessiontype", "command" -> {
                    if (i + 1 >= args.size()) {
                        throw new ConfigException(where + ": Match: missing argument for '" + crit + "'");
                    }
                    String arg = args.get(++i);
                    r = switch (crit) {
                        case "host" -> Patterns.matchList(currentHost(), arg);
                        case "originalhost" -> Patterns.matchList(originalHost, arg);
                        case "user" -> Patterns.matchList(currentUser(), arg);
                        case "localuser" -> Patterns.matchList(localUser, arg);
                        case "tagged" -> {
                            OptionValue tag = options.first("Tag");
                            yield Patterns.matchList(tag == null ? "" : tag.first(), arg);
                        }
                        case "exec" -> exec(arg, where);
                        default -> throw new ConfigException(where + ": Match " + crit + ": unsupported criterion"
                                + " in pqssh (supported: all, canonical, final, host, originalhost, user,"
                                + " localuser, tagged, exec)");
                    };
                }
                default -> throw new ConfigException(where + ": Unsupported Match attribute " + args.get(i));
            }
            if (negate) {
                r = !r;
            }
            result &= r;
        }
        debug.accept(where + ": Match " + String.join(" ", args) + ": " + (result ? "matched" : "not matched"));
        return result;
    }

    private boolean exec(String command, String where) throws ConfigException {
        if (!finalPass && wantsFinalPass) {
            return false;
        }
        OptionValue portValue = options.first("Port");
        String cmd = Tokens.expand(command, new Tokens.Context(currentHost(), originalHost,
                portValue == null ? 22 : Integer.parseInt(portValue.first()), currentUser(), localUser, home));
        try {
            Process p = new ProcessBuilder("/bin/sh", "-c", cmd)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new ConfigException(where + ": Match exec \"" + cmd + "\" did not finish within 60 s");
            }
            debug.accept(where + ": Match exec \"" + cmd + "\" exited " + p.exitValue());
            return p.exitValue() == 0;
        } catch (IOException e) {
            throw new ConfigException(where + ": Match exec: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigException(where + ": Match exec interrupted", e);
        }
    }
}
