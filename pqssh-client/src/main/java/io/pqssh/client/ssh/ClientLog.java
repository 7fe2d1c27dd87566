package io.pqssh.client.ssh;

import java.io.PrintStream;

/**
 * ssh's stderr messages by level: {@code -q} (quiet: only fatal errors), default (errors and warnings),
 * {@code -v}..{@code -vvv} ({@code debug1:}..{@code debug3:} lines). One place prints, so nothing is printed twice.
 */
public final class ClientLog {
    private final PrintStream err;
    private final int verbosity;
    private final boolean quiet;

    /** {@code verbosity} 0 = normal, 1..3 = -v..-vvv; {@code quiet} = -q or LogLevel QUIET/FATAL/ERROR. */
    public ClientLog(PrintStream err, int verbosity, boolean quiet) {
        this.err = err;
        this.verbosity = verbosity;
        this.quiet = quiet && verbosity == 0;
    }

    public int verbosity() {
        return verbosity;
    }

    public boolean quiet() {
        return quiet;
    }

    /** Fatal errors: printed even with -q. */
    public void fatal(String message) {
        err.print(message + "\r\n".substring(rawTerminal ? 0 : 1));
        err.flush();
    }

    /** Errors and warnings: suppressed by -q. */
    public void error(String message) {
        if (!quiet) {
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
        return verbosity >= level;
    }

    private void debug(int level, String message) {
        if (verbosity >= level) {
            fatal("debug" + level + ": " + message);
        }
    }

    private volatile boolean rawTerminal;

    /** While the local terminal is raw, lines need CR LF. */
    public void rawTerminal(boolean raw) {
        this.rawTerminal = raw;
    }
}
