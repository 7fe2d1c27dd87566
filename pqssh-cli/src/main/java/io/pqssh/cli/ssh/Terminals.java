package io.pqssh.cli.ssh;

/** Whether this process's stdin is a terminal (ssh's {@code isatty(STDIN_FILENO)}), and its width. */
public final class Terminals {
    private Terminals() {
    }

    public static boolean stdinIsTerminal() {
        return !Boolean.getBoolean("pqssh.ssh.noTerminal") && Posix.isatty(0);
    }

    /** The width of the terminal on stdin, or -1 when stdin is not a terminal. */
    public static int stdinColumns() {
        return Posix.columns(0);
    }
}
