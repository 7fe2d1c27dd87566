package io.pqssh.cli.ssh;

/** Whether this process's stdin is a terminal (ssh's {@code isatty(STDIN_FILENO)}). */
public final class Terminals {
    private Terminals() {
    }

    public static boolean stdinIsTerminal() {
        return !Boolean.getBoolean("pqssh.ssh.noTerminal") && Posix.isatty(0);
    }
}
