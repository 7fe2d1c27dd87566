package io.pqssh.server.session;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import com.sun.jna.StringArray;
import com.sun.jna.ptr.IntByReference;

/**
 * Every C call the server's session processes need, in one place (JNA today; a port to FFM touches only this
 * class): pipes, a pseudo-terminal, {@code posix_spawn(3)} of a session process, its wait status, signals, and
 * reads and writes on the descriptors. Linux with glibc 2.34 or later (for
 * {@code posix_spawn_file_actions_addclosefrom_np}); the flag values are Linux's generic ones (x86-64, AArch64,
 * RISC-V).
 */
final class SessionNative {
    interface LibC extends Library {
        int pipe2(int[] fds, int flags) throws LastErrorException;

        int open(String path, int flags, int mode) throws LastErrorException;

        int fcntl(int fd, int cmd, int arg) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        NativeLong read(int fd, Pointer buf, NativeLong count) throws LastErrorException;

        NativeLong write(int fd, Pointer buf, NativeLong count) throws LastErrorException;

        int fchown(int fd, int uid, int gid) throws LastErrorException;

        int fchmod(int fd, int mode) throws LastErrorException;

        int unlockpt(int fd);

        int ptsname_r(int fd, byte[] buf, NativeLong len);

        Pointer getgrnam(String name);

        int posix_spawn_file_actions_init(Pointer fa);

        int posix_spawn_file_actions_destroy(Pointer fa);

        int posix_spawn_file_actions_adddup2(Pointer fa, int fd, int newfd);

        int posix_spawn_file_actions_addopen(Pointer fa, int fd, String path, int flags, int mode);

        int posix_spawn_file_actions_addclosefrom_np(Pointer fa, int from);

        int posix_spawn_file_actions_addchdir_np(Pointer fa, String path);

        int posix_spawnattr_init(Pointer attr);

        int posix_spawnattr_destroy(Pointer attr);

        int posix_spawnattr_setflags(Pointer attr, short flags);

        int posix_spawnattr_setsigmask(Pointer attr, Pointer set);

        int posix_spawnattr_setsigdefault(Pointer attr, Pointer set);

        int sigemptyset(Pointer set);

        int sigfillset(Pointer set);

        int posix_spawn(IntByReference pid, String path, Pointer fileActions, Pointer attr, StringArray argv,
                StringArray envp);

        int waitid(int idtype, int id, Pointer info, int options) throws LastErrorException;

        int waitpid(int pid, IntByReference status, int options) throws LastErrorException;

        int kill(int pid, int sig);

        int tcgetattr(int fd, byte[] termios);

        int tcsetattr(int fd, int optionalActions, byte[] termios);

        int ioctl(int fd, NativeLong request, byte[] arg);
    }

    private static final LibC C = Native.load("c", LibC.class);

    static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    private static final int O_RDWR = 02;
    private static final int O_NOCTTY = 0400;
    private static final int O_CLOEXEC = 02000000;
    private static final int F_DUPFD_CLOEXEC = 1030;
    /** Descriptors handed to a session are moved at least this high (see {@link #pipe}). */
    private static final int LOW_FDS = 10;
    private static final int EINTR = 4;
    private static final int EIO = 5;
    private static final int EAGAIN = 11;
    private static final short POSIX_SPAWN_SETSIGDEF = 0x04;
    private static final short POSIX_SPAWN_SETSIGMASK = 0x08;
    private static final short POSIX_SPAWN_SETSID = 0x80;
    private static final int P_PID = 1;
    private static final int WEXITED = 4;
    private static final int WNOWAIT = 0x01000000;
    private static final int TCSANOW = 0;
    private static final long TIOCSWINSZ = 0x5414;
    /** Generous upper bounds of glibc's opaque structures (x86-64: 80, 336, 128 and 128 bytes). */
    private static final int FILE_ACTIONS_SIZE = 256;
    private static final int SPAWNATTR_SIZE = 1024;
    private static final int SIGSET_SIZE = 256;
    private static final int SIGINFO_SIZE = 256;

    private SessionNative() {
    }

    /**
     * A pipe, both ends close-on-exec (no other child of the JVM inherits them) and numbered 10 or above: a JVM
     * started with 0, 1 or 2 closed would get those back, and {@link #spawn}'s dup2 onto 0..3 would overwrite one
     * end with another.
     */
    static int[] pipe() throws IOException {
        requireLinux();
        int[] fds = new int[2];
        try {
            C.pipe2(fds, O_CLOEXEC);
        } catch (LastErrorException e) {
            throw new IOException("pipe2: " + e.getMessage(), e);
        }
        try {
            for (int i = 0; i < 2; i++) {
                if (fds[i] < LOW_FDS) {
                    int high = C.fcntl(fds[i], F_DUPFD_CLOEXEC, LOW_FDS);
                    close(fds[i]);
                    fds[i] = high;
                }
            }
        } catch (LastErrorException e) {
            close(fds[0]);
            close(fds[1]);
            throw new IOException("fcntl: " + e.getMessage(), e);
        }
        return fds;
    }

    /** A new pseudo-terminal: its master (close-on-exec, not the JVM's controlling terminal) and slave path. */
    static Pty openPty() throws IOException {
        requireLinux();
        int master;
        try {
            master = C.open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC, 0);
        } catch (LastErrorException e) {
            throw new IOException("/dev/ptmx: " + e.getMessage(), e);
        }
        byte[] name = new byte[128];
        if (C.unlockpt(master) != 0 || C.ptsname_r(master, name, new NativeLong(name.length)) != 0) {
            close(master);
            throw new IOException("unlockpt/ptsname_r failed for a new pty");
        }
        int n = 0;
        while (n < name.length && name[n] != 0) {
            n++;
        }
        return new Pty(master, new String(name, 0, n, StandardCharsets.US_ASCII));
    }

    /** The master and the slave's path of a pty. */
    record Pty(int master, String slave) {
    }

    /** Opens a terminal without making it the JVM's controlling terminal. */
    static int openTerminal(String path) throws IOException {
        try {
            return C.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC, 0);
        } catch (LastErrorException e) {
            throw new IOException(path + ": " + e.getMessage(), e);
        }
    }

    static void chown(int fd, int uid, int gid, int mode) throws IOException {
        try {
            C.fchown(fd, uid, gid);
            C.fchmod(fd, mode);
        } catch (LastErrorException e) {
            throw new IOException("fchown/fchmod: " + e.getMessage(), e);
        }
    }

    /** The gid of a group (getgrnam(3), whose static result is why this is synchronized), or -1 when there is none. */
    static synchronized int groupId(String name) {
        Pointer g = C.getgrnam(name);
        // struct group { char *gr_name; char *gr_passwd; gid_t gr_gid; ... }
        return g == null ? -1 : g.getInt(2L * Native.POINTER_SIZE);
    }

    static void close(int fd) {
        try {
            C.close(fd);
        } catch (LastErrorException e) {
            // EBADF cannot happen (each descriptor is closed once); EINTR/EIO: Linux has closed it anyway
        }
    }

    /**
     * read(2) into {@code buf}; -1 at end of file, which includes EIO (a pty master whose slave is closed
     * everywhere).
     */
    static int read(int fd, Memory buf, int max) throws IOException {
        return read(fd, buf, max, false);
    }

    /** read(2), retried on EINTR (and on EAGAIN unless {@code emptyIsEnd}, then -1); EIO and EOF give -1. */
    private static int read(int fd, Memory buf, int max, boolean emptyIsEnd) throws IOException {
        while (true) {
            try {
                long n = C.read(fd, buf, new NativeLong(Math.min(max, buf.size()))).longValue();
                return n == 0 ? -1 : (int) n;
            } catch (LastErrorException e) {
                if (e.getErrorCode() == EIO || emptyIsEnd && e.getErrorCode() == EAGAIN) {
                    return -1;
                }
                if (e.getErrorCode() != EINTR && e.getErrorCode() != EAGAIN) {
                    throw new IOException("read: " + e.getMessage(), e);
                }
            }
        }
    }

    private static final int F_SETPIPE_SZ = 1031;

    /**
     * Asks Linux for a pipe buffer of {@code bytes} (rounded up to a power of two pages; at most
     * /proc/sys/fs/pipe-max-size unless privileged). False if refused: the pipe keeps the size it had.
     */
    static boolean setPipeSize(int fd, int bytes) {
        try {
            return C.fcntl(fd, F_SETPIPE_SZ, bytes) >= bytes;
        } catch (LastErrorException e) {
            return false;
        }
    }

    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;

    /**
     * What the pipe holds now, without waiting for more: -1 at end of file or when it is empty (a writer that is
     * still open, such as a process a PAM module left behind, cannot block the caller).
     */
    static int readNow(int fd, Memory buf, int max) throws IOException {
        try {
            C.fcntl(fd, F_SETFL, C.fcntl(fd, F_GETFL, 0) | O_NONBLOCK);
        } catch (LastErrorException e) {
            throw new IOException("fcntl: " + e.getMessage(), e);
        }
        return read(fd, buf, max, true);
    }

    /** write(2) of all {@code length} bytes at the start of {@code buf}. */
    static void writeFully(int fd, Memory buf, int length) throws IOException {
        long off = 0;
        while (off < length) {
            try {
                off += C.write(fd, buf.share(off), new NativeLong(length - off)).longValue();
            } catch (LastErrorException e) {
                if (e.getErrorCode() != EINTR && e.getErrorCode() != EAGAIN) {
                    throw new IOException("write: " + e.getMessage(), e);
                }
            }
        }
    }

    /**
     * Starts {@code argv} (argv[0] is the absolute path run) with exactly {@code env}, as sshd starts a session's
     * process: in a new session (setsid), with every signal at its default and none blocked, working directory
     * {@code /}, and only the descriptors given here: {@code stdio} (0, 1, 2) or, with {@code tty}, that terminal
     * opened after setsid (so it becomes the controlling terminal) on 0, 1 and 2; {@code fd3} on 3 (or none when
     * -1); every other descriptor of the JVM closed (most are not close-on-exec, and posix_spawn would pass them
     * on).
     *
     * @return the pid
     */
    static int spawn(List<String> argv, List<String> env, int[] stdio, String tty, int fd3) throws IOException {
        return spawn(argv, env, stdio, tty, true, fd3 < 0 ? new int[0] : new int[] {fd3});
    }

    /**
     * As above, with {@code extra} on 3, 4, ... and, when {@code controlling} is false, the terminal opened without
     * becoming the controlling one ({@code pqssh-pam-session} gives it to the session's own process).
     */
    static int spawn(List<String> argv, List<String> env, int[] stdio, String tty, boolean controlling, int[] extra)
            throws IOException {
        for (String s : argv) {
            requireNoNul(s, "argument");
        }
        for (String s : env) {
            requireNoNul(s, "environment entry");
        }
        Memory fa = new Memory(FILE_ACTIONS_SIZE);
        Memory attr = new Memory(SPAWNATTR_SIZE);
        Memory none = new Memory(SIGSET_SIZE);
        Memory all = new Memory(SIGSET_SIZE);
        check(C.posix_spawn_file_actions_init(fa), "posix_spawn_file_actions_init");
        try {
            check(C.posix_spawnattr_init(attr), "posix_spawnattr_init");
            try {
                if (tty != null) {
                    // glibc runs setsid before the file actions: opened without O_NOCTTY, it becomes the ctty
                    check(C.posix_spawn_file_actions_addopen(fa, 0, tty, controlling ? O_RDWR : O_RDWR | O_NOCTTY,
                            0), "addopen");
                    check(C.posix_spawn_file_actions_adddup2(fa, 0, 1), "adddup2");
                    check(C.posix_spawn_file_actions_adddup2(fa, 0, 2), "adddup2");
                } else {
                    for (int i = 0; i < 3; i++) {
                        requireAbove(stdio[i], Math.max(3, 2 + extra.length));
                        check(C.posix_spawn_file_actions_adddup2(fa, stdio[i], i), "adddup2");
                    }
                }
                int keep = 3;
                for (int fd : extra) {
                    requireAbove(fd, Math.max(3, 2 + extra.length));
                    check(C.posix_spawn_file_actions_adddup2(fa, fd, keep), "adddup2");
                    keep++;
                }
                try {
                    check(C.posix_spawn_file_actions_addclosefrom_np(fa, keep), "addclosefrom_np");
                } catch (UnsatisfiedLinkError e) {
                    throw new IOException("pqssh server needs glibc 2.34 or later"
                            + " (posix_spawn_file_actions_addclosefrom_np) to start sessions", e);
                }
                check(C.posix_spawn_file_actions_addchdir_np(fa, "/"), "addchdir_np");
                C.sigemptyset(none);
                C.sigfillset(all);
                check(C.posix_spawnattr_setsigmask(attr, none), "setsigmask");
                check(C.posix_spawnattr_setsigdefault(attr, all), "setsigdefault");
                check(C.posix_spawnattr_setflags(attr,
                        (short) (POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)), "setflags");
                IntByReference pid = new IntByReference();
                int rc = C.posix_spawn(pid, argv.get(0), fa, attr,
                        new StringArray(argv.toArray(String[]::new), StandardCharsets.UTF_8.name()),
                        new StringArray(env.toArray(String[]::new), StandardCharsets.UTF_8.name()));
                if (rc != 0) {
                    throw new IOException(argv.get(0) + ": posix_spawn failed, errno " + rc);
                }
                return pid.getValue();
            } finally {
                C.posix_spawnattr_destroy(attr);
            }
        } finally {
            C.posix_spawn_file_actions_destroy(fa);
        }
    }

    private static void requireLinux() throws IOException {
        if (!LINUX) {
            throw new IOException("sessions of system accounts need Linux with glibc 2.34 or later");
        }
    }

    private static void requireNoNul(String s, String what) throws IOException {
        if (s.indexOf('\0') >= 0) {
            throw new IOException("session " + what + " contains a NUL byte: refused");
        }
    }

    /** The JVM always has 0, 1, 2 and its own files open, so new descriptors are above 3; the dup2 order relies on it. */
    private static void requireAbove(int fd, int min) throws IOException {
        if (fd <= min) {
            throw new IOException("descriptor " + fd + " would be overwritten while the session's are arranged");
        }
    }

    private static void check(int rc, String what) throws IOException {
        if (rc != 0) {
            throw new IOException(what + " failed: errno " + rc);
        }
    }

    /** Blocks until {@code pid} has ended, without reaping it: its pid stays its own until {@link #reap}. */
    static void awaitEnd(int pid) throws IOException {
        Memory info = new Memory(SIGINFO_SIZE);
        while (true) {
            try {
                C.waitid(P_PID, pid, info, WEXITED | WNOWAIT);
                return;
            } catch (LastErrorException e) {
                if (e.getErrorCode() != EINTR) {
                    throw new IOException("waitid " + pid + ": " + e.getMessage(), e);
                }
            }
        }
    }

    /** waitpid(2) of an ended child: its raw wait status. */
    static int reap(int pid) throws IOException {
        IntByReference status = new IntByReference();
        while (true) {
            try {
                C.waitpid(pid, status, 0);
                return status.getValue();
            } catch (LastErrorException e) {
                if (e.getErrorCode() != EINTR) {
                    throw new IOException("waitpid " + pid + ": " + e.getMessage(), e);
                }
            }
        }
    }

    /** kill(2); false when there is no such process (group). */
    static boolean kill(int pid, int signal) {
        return C.kill(pid, signal) == 0;
    }

    static boolean tcgetattr(int fd, byte[] termios) {
        return C.tcgetattr(fd, termios) == 0;
    }

    static boolean tcsetattr(int fd, byte[] termios) {
        return C.tcsetattr(fd, TCSANOW, termios) == 0;
    }

    /** TIOCSWINSZ with a {@code struct winsize}. */
    static boolean setWindowSize(int fd, byte[] winsize) {
        return C.ioctl(fd, new NativeLong(TIOCSWINSZ), winsize) == 0;
    }
}
