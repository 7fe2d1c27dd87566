package io.pqssh.client.ssh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether this process's stdin is a terminal (ssh's {@code isatty(STDIN_FILENO)}), and its width. */
public final class Terminals {
    private Terminals() {
    }

    public static boolean stdinIsTerminal() {
        if (Boolean.getBoolean("pqssh.ssh.noTerminal")) {
            return false;
        }
        return !surelyNotTerminal(0) && Posix.isatty(0);
    }

    /** Whether file descriptor {@code fd} (1: stdout, 2: stderr) is a terminal. */
    public static boolean isTerminal(int fd) {
        return !Boolean.getBoolean("pqssh.ssh.noTerminal") && !surelyNotTerminal(fd) && Posix.isatty(fd);
    }

    /** The width of the terminal on {@code fd}, or -1 when it is not a terminal. */
    public static int columns(int fd) {
        return Posix.columns(fd);
    }

    /** The width of the terminal on stdin, or -1 when stdin is not a terminal. */
    public static int stdinColumns() {
        return Posix.columns(0);
    }

    /**
     * What {@code /proc/self/fd/N} names when it can be no terminal: a pipe, a socket, an anonymous inode, a regular
     * file, {@code /dev/null}. Answering those from one readlink spares scripted logins ({@code ssh host cmd <
     * file}, {@code | ssh}) the first FFM downcall's set-up (~10 ms; docs/startup.md); anything else is asked of
     * {@code isatty(3)}.
     */
    static boolean surelyNotTerminal(int fd) {
        Path link = Path.of("/proc/self/fd/" + fd);
        String target;
        try {
            target = Files.readSymbolicLink(link).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
        if (target.startsWith("pipe:[") || target.startsWith("socket:[") || target.startsWith("anon_inode:")
                || target.equals("/dev/null")) {
            return true;
        }
        return target.startsWith("/") && !target.startsWith("/dev/") && Files.isRegularFile(link);
    }

    /**
     * Puts the terminal on stdin in ssh's raw mode (a shared session's passenger: the master reads the terminal,
     * this process only keeps it raw); the returned handle restores the settings found, once, also from a shutdown
     * hook. Null when stdin is not a terminal.
     */
    public static Runnable rawStdin() {
        byte[] saved = Posix.tcgetattr(0);
        if (saved == null || !Posix.tcsetattr(0, Posix.rawMode(saved))) {
            return null;
        }
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable restore = () -> {
            if (done.compareAndSet(false, true)) {
                Posix.tcsetattr(0, saved);
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(restore, "pqssh-terminal-restore"));
        return restore;
    }
}
