package io.pqssh.server.sftp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The command line of OpenSSH's sftp-server (and of sshd's {@code internal-sftp}), parsed.
 *
 * @param startDirectory absolute directory the session starts in ({@code -d}, expanded), or the home directory
 * @param home           the user's home directory (the fallback start directory; {@code "~"} of expand-path)
 * @param user           the user's name (home-directory and the log's session lines)
 * @param readOnly       {@code -R}
 * @param umask          {@code -u}, or null for the process's own umask
 * @param allowed        {@code -p} request names, or null for all
 * @param denied         {@code -P} request names, or null for none
 * @param logLevel       {@code -l} (upper case, as sftp-server spells it), default ERROR
 * @param facility       {@code -f} (upper case), default AUTH
 * @param logToStderr    {@code -e}
 * @param query          {@code -Q} feature, or null; the caller prints {@link SftpFileServer#query} and exits
 */
public record SftpServerOptions(String startDirectory, String home, String user, boolean readOnly, Integer umask,
                                List<String> allowed, List<String> denied, String logLevel, String facility,
                                boolean logToStderr, String query) {

    /** The usage text sftp-server prints for a bad or missing flag (and -h), three lines. */
    public static final String USAGE = "usage: sftp-server [-ehR] [-d start_directory] [-f log_facility] [-l log_level]\n"
            + "\t[-P denied_requests] [-p allowed_requests] [-u umask]\n"
            + "       sftp-server -Q protocol_feature";

    static final List<String> LEVELS = List.of("QUIET", "FATAL", "ERROR", "INFO", "VERBOSE", "DEBUG", "DEBUG1",
            "DEBUG2", "DEBUG3");
    static final Set<String> FACILITIES = Set.of("DAEMON", "USER", "AUTH", "AUTHPRIV", "LOCAL0", "LOCAL1", "LOCAL2",
            "LOCAL3", "LOCAL4", "LOCAL5", "LOCAL6", "LOCAL7");

    public SftpServerOptions {
        allowed = allowed == null ? null : List.copyOf(allowed);
        denied = denied == null ? null : List.copyOf(denied);
        if (logLevel == null) logLevel = "ERROR";
        if (facility == null) facility = "AUTH";
        if (home == null || home.isEmpty()) home = "/";
        if (startDirectory == null || startDirectory.isEmpty()) startDirectory = home;
    }

    /** Defaults: start in {@code home}, read-write, the process's umask, every request allowed. */
    public static SftpServerOptions defaults(String user, String home) {
        return new SftpServerOptions(null, home, user, false, null, null, null, null, null, false, null);
    }

    public SftpServerOptions withReadOnly(boolean ro) {
        return new SftpServerOptions(startDirectory, home, user, ro, umask, allowed, denied, logLevel, facility,
                logToStderr, query);
    }

    public SftpServerOptions withStart(String dir) {
        return new SftpServerOptions(dir, home, user, readOnly, umask, allowed, denied, logLevel, facility,
                logToStderr, query);
    }

    public SftpServerOptions withStartDirectory(String dir) {
        return new SftpServerOptions(dir, home, user, readOnly, umask, allowed, denied, logLevel, facility,
                logToStderr, query);
    }

    public SftpServerOptions withUmask(Integer mask) {
        return new SftpServerOptions(startDirectory, home, user, readOnly, mask, allowed, denied, logLevel, facility,
                logToStderr, query);
    }

    /**
     * Parses sftp-server's flags (getopt style: {@code -Re}, {@code -u022}, {@code -d /x} and {@code -d/x} all work;
     * parsing stops at the first non-flag argument, which is ignored as sftp-server does). {@code -d}'s value is
     * expanded as internal-sftp does: a leading {@code ~} or {@code ~user}, then {@code %d} (home), {@code %u}
     * (user), {@code %%}.
     *
     * @param args the arguments after the program name (internal-sftp's words after {@code internal-sftp})
     * @throws IllegalArgumentException for a flag sftp-server refuses; the message is what it prints (for an
     *                                  unknown or incomplete flag and {@code -h}: {@link #USAGE})
     */
    public static SftpServerOptions parse(List<String> args, String user, String home) {
        return parse(args, user, home, home);
    }

    /** As {@link #parse(List, String, String)}, starting in {@code defaultStart} when there is no {@code -d}. */
    public static SftpServerOptions parse(List<String> args, String user, String home, String defaultStart) {
        String start = defaultStart;
        boolean ro = false, stderr = false;
        Integer mask = null;
        List<String> allow = null, deny = null;
        String level = "ERROR", fac = "AUTH", query = null;
        int i = 0;
        outer:
        while (i < args.size()) {
            String a = args.get(i);
            if (!a.startsWith("-") || a.equals("-")) break;
            if (a.equals("--")) { i++; break; }
            i++;
            for (int k = 1; k < a.length(); k++) {
                char c = a.charAt(k);
                switch (c) {
                    case 'R' -> ro = true;
                    case 'e' -> stderr = true;
                    case 'c' -> { /* accepted and ignored, as sftp-server 9.2 does */ }
                    case 'h' -> throw new IllegalArgumentException(USAGE);
                    case 'd', 'u', 'l', 'f', 'p', 'P', 'Q' -> {
                        String v;
                        if (k + 1 < a.length()) v = a.substring(k + 1);
                        else if (i < args.size()) v = args.get(i++);
                        else throw new IllegalArgumentException(USAGE);
                        switch (c) {
                            case 'd' -> start = expandStart(v, user, home);
                            case 'u' -> mask = parseUmask(v);
                            case 'l' -> {
                                level = v.toUpperCase(Locale.ROOT);
                                if (!LEVELS.contains(level))
                                    throw new IllegalArgumentException("Invalid log level \"" + v + "\"");
                            }
                            case 'f' -> {
                                fac = v.toUpperCase(Locale.ROOT);
                                if (!FACILITIES.contains(fac))
                                    throw new IllegalArgumentException("Invalid log facility \"" + v + "\"");
                            }
                            case 'p' -> {
                                if (allow != null) throw new IllegalArgumentException("Permitted requests already set");
                                allow = List.of(v.split(",", -1));
                            }
                            case 'P' -> {
                                if (deny != null) throw new IllegalArgumentException("Refused requests already set");
                                deny = List.of(v.split(",", -1));
                            }
                            case 'Q' -> {
                                if (!v.equalsIgnoreCase("requests")) throw new IllegalArgumentException("Invalid query type");
                                query = "requests";
                            }
                            default -> throw new IllegalStateException();
                        }
                        continue outer;
                    }
                    default -> throw new IllegalArgumentException(USAGE);
                }
            }
        }
        return new SftpServerOptions(start, home, user, ro, mask, allow, deny, level, fac, stderr, query);
    }

    static Integer parseUmask(String v) {
        // sftp-server: strtol(v, &cp, 8); a mask outside 0..0777 or trailing junk is fatal
        try {
            if (v.isEmpty()) throw new NumberFormatException();
            int m = Integer.parseInt(v, 8);
            if (m < 0 || m > 0777) throw new NumberFormatException();
            return m;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid umask \"" + v + "\"");
        }
    }

    static String expandStart(String v, String user, String home) {
        if (v.startsWith("~")) {
            int slash = v.indexOf('/');
            String who = slash < 0 ? v.substring(1) : v.substring(1, slash);
            String rest = slash < 0 ? "" : v.substring(slash + 1);
            String dir = who.isEmpty() || who.equals(user) ? home : passwdHome(who);
            if (dir == null) throw new IllegalArgumentException("tilde_expand_filename: No such user " + who);
            v = rest.isEmpty() ? dir : (dir.endsWith("/") ? dir + rest : dir + "/" + rest);
        }
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < v.length(); k++) {
            char c = v.charAt(k);
            if (c != '%') { b.append(c); continue; }
            if (k + 1 >= v.length()) throw new IllegalArgumentException("percent_expand: invalid format");
            char n = v.charAt(++k);
            switch (n) {
                case '%' -> b.append('%');
                case 'd' -> b.append(home);
                case 'u' -> b.append(user);
                default -> throw new IllegalArgumentException("percent_expand: unknown key %" + n);
            }
        }
        return b.toString();
    }

    /** The home directory of {@code name} in /etc/passwd, or null. */
    static String passwdHome(String name) {
        try {
            for (String line : Files.readAllLines(Path.of("/etc/passwd"), StandardCharsets.UTF_8)) {
                String[] f = line.split(":", -1);
                if (f.length >= 7 && f[0].equals(name)) return f[5];
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }
}
