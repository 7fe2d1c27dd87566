package io.pqssh.client.ssh;

import java.io.PrintStream;

/**
 * ssh's stderr messages by level: {@code -q} (quiet: only fatal errors), default (errors and warnings),
 * {@code -v}..{@code -vvv} ({@code debug1:}..{@code debug3:} lines). One place prints, so nothing is printed twice.
 */
public final class ClientLog {
    /** ssh's LogLevel names, in its order (the index is the level). */
    private static final java.util.List<String> LEVELS =
            java.util.List.of("QUIET", "FATAL", "ERROR", "INFO", "VERBOSE", "DEBUG1", "DEBUG2", "DEBUG3");
    private static final int ERROR = 2;
    private static final int INFO = 3;
    private static final int DEBUG1 = 5;

    private final PrintStream err;
    /** An index in {@link #LEVELS}; changed while the session runs by the {@code ~v}/{@code ~V} escapes. */
    private volatile int level;

    /** {@code verbosity} 0 = normal, 1..3 = -v..-vvv; {@code quiet} = -q or LogLevel QUIET/FATAL/ERROR. */
    public ClientLog(PrintStream err, int verbosity, boolean quiet) {
        this.err = err;
        this.level = verbosity > 0 ? Math.min(DEBUG1 + verbosity - 1, LEVELS.size() - 1) : quiet ? 0 : INFO;
    }

    public int verbosity() {
        return Math.max(0, level - DEBUG1 + 1);
    }

    public boolean quiet() {
        return level <= ERROR;
    }

    /**
     * One step more ({@code up}) or less verbose, bounded as ssh's {@code ~v}/{@code ~V} (QUIET..DEBUG3).
     *
     * @return the new level's name, as ssh prints it ({@code LogLevel DEBUG1})
     */
    public String changeLevel(boolean up) {
        level = up ? Math.min(level + 1, LEVELS.size() - 1) : Math.max(level - 1, 0);
        return LEVELS.get(level);
    }

    /** Fatal errors: printed even with -q. */
    public void fatal(String message) {
        err.print(message + "\r\n".substring(rawTerminal ? 0 : 1));
        err.flush();
    }

    /** Errors and warnings: suppressed by -q. */
    public void error(String message) {
        if (!quiet()) {
            fatal(message);
        }
    }

    public void debug1(String message) {
        debug(1, message);
    }

    public void debug2(String message) {
        debug(2, message);
    }

    public void debug3(String message) {
        debug(3, message);
    }

    public boolean debugEnabled(int level) {
        return verbosity() >= level;
    }

    private void debug(int level, String message) {
        if (verbosity() >= level) {
            fatal("debug" + level + ": " + message);
        }
    }

    private volatile boolean rawTerminal;

    /** While the local terminal is raw, lines need CR LF. */
    public void rawTerminal(boolean raw) {
        this.rawTerminal = raw;
    }
}
