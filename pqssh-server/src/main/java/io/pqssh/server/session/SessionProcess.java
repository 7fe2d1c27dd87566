package io.pqssh.server.session;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.sun.jna.Memory;

/**
 * A session's process, started by the server itself ({@link SessionNative#spawn}) as {@link SessionLaunch} says,
 * in its own session; the server is its parent and waits for it, so it knows the real wait status (an exit code,
 * or the signal that killed it and whether it dumped core), with no wrapper process or status file. Signals go to
 * it only while it is not reaped: until then its pid cannot belong to another process.
 */
final class SessionProcess {
    private static final org.slf4j.Logger SSHD_LOG = org.slf4j.LoggerFactory.getLogger("io.pqssh.sshd");
    /** The most {@code pqssh-pam-session} reports (one short line). */
    private static final int REPORT_MAX = 4096;

    private final int pid;
    private boolean reaped;
    /** With PAM's session stack: the helper's control pipe (signals to relay) and its report, else -1. */
    private final int control;
    private final int report;
    private final String user;

    private SessionProcess(int pid) {
        this(pid, -1, -1, null);
    }

    private SessionProcess(int pid, int control, int report, String user) {
        this.pid = pid;
        this.control = control;
        this.report = report;
        this.user = user;
    }

    /**
     * Starts {@code launch} on {@code stdio} (0, 1, 2), or on the terminal {@code tty} when not null, and hands it
     * its environment through descriptor 3. With PAM's session stack ({@link SessionLaunch#pam()}) the process
     * started is {@code pqssh-pam-session}, which starts the session's own process once PAM's session is open: the
     * pid is the helper's, signals go through its control pipe (descriptor 4), and the status is the one it reports
     * (descriptor 5): the session's process's, unchanged.
     */
    static SessionProcess start(SessionLaunch launch, int[] stdio, String tty) throws IOException {
        for (String tool : new String[] {SessionLaunch.BASH}) {
            if (!Files.isExecutable(Path.of(tool))) {
                throw new IOException(tool + " is missing: cannot start sessions");
            }
        }
        boolean pam = launch.pam() != null;
        byte[] env = pam ? launch.pamPayload() : launch.environmentPayload();
        List<String> argv = launch.spawnArgv(tty);
        int[] envPipe = SessionNative.pipe();
        int[] controlPipe = null;
        int[] reportPipe = null;
        int pid;
        try {
            if (pam) {
                controlPipe = SessionNative.pipe();
                reportPipe = SessionNative.pipe();
                pid = SessionNative.spawn(argv, SessionLaunch.SPAWN_ENV, stdio, tty, false,
                        new int[] {envPipe[0], controlPipe[0], reportPipe[1]});
            } else {
                pid = SessionNative.spawn(argv, SessionLaunch.SPAWN_ENV, stdio, tty, envPipe[0]);
            }
        } catch (IOException | RuntimeException e) {
            SessionNative.close(envPipe[1]);
            if (controlPipe != null) {
                SessionNative.close(controlPipe[1]);
            }
            if (reportPipe != null) {
                SessionNative.close(reportPipe[0]);
            }
            throw e;
        } finally {
            // the child's ends are the child's now
            SessionNative.close(envPipe[0]);
            if (controlPipe != null) {
                SessionNative.close(controlPipe[0]);
            }
            if (reportPipe != null) {
                SessionNative.close(reportPipe[1]);
            }
        }
        try {
            // the trampoline (or the helper) reads while this writes: an environment larger than a pipe's buffer is
            // fine
            Memory buf = new Memory(Math.max(1, env.length));
            buf.write(0, env, 0, env.length);
            SessionNative.writeFully(envPipe[1], buf, env.length);
        } catch (IOException e) {
            // the process ended before reading it (setpriv, the trampoline or the helper failed and said why)
        } finally {
            SessionNative.close(envPipe[1]);
        }
        return pam ? new SessionProcess(pid, controlPipe[1], reportPipe[0], launch.account().name())
                : new SessionProcess(pid);
    }

    int pid() {
        return pid;
    }

    /** kill(2) to the process (when {@code group}: also to its process group); false once it is gone. */
    synchronized boolean signal(int signal, boolean group) {
        if (reaped) {
            return false;
        }
        if (control >= 0) {
            // the helper relays it to the session's process (and its group), which it alone may still signal
            if (signal < 1 || signal > 0x7f) {
                return false;
            }
            Memory b = new Memory(1);
            b.setByte(0, (byte) (signal | (group ? 0x80 : 0)));
            try {
                SessionNative.writeFully(control, b, 1);
                return true;
            } catch (IOException e) {
                return false;
            }
        }
        if (group) {
            SessionNative.kill(-pid, signal);
        }
        return SessionNative.kill(pid, signal);
    }

    /** Blocks until the process has ended and reaps it. */
    ExitStatus waitFor() throws IOException {
        SessionNative.awaitEnd(pid);
        ExitStatus own;
        synchronized (this) {
            reaped = true;
            own = new ExitStatus(SessionNative.reap(pid));
            if (control >= 0) {
                SessionNative.close(control);
            }
        }
        return report < 0 ? own : reported(own);
    }

    /**
     * What {@code pqssh-pam-session} reported: the session's process's wait status, or why the session did not
     * start (logged as sshd logs a PAM failure; the client got the same line on stderr and exit status 255).
     */
    private ExitStatus reported(ExitStatus own) throws IOException {
        String line;
        try {
            Memory buf = new Memory(REPORT_MAX);
            StringBuilder text = new StringBuilder();
            int n;
            // the helper has ended: what it wrote is there; never wait for a writer it may have left behind
            while (text.length() < REPORT_MAX && (n = SessionNative.readNow(report, buf, REPORT_MAX)) > 0) {
                text.append(new String(buf.getByteArray(0, n), java.nio.charset.StandardCharsets.UTF_8));
            }
            line = text.toString().strip();
        } finally {
            SessionNative.close(report);
        }
        if (line.startsWith("status ")) {
            try {
                return new ExitStatus(Integer.parseInt(line.substring(7).strip()));
            } catch (NumberFormatException e) {
                // fall through: not the helper's line
            }
        }
        if (line.startsWith("fatal ")) {
            SSHD_LOG.error("{} (user {})", line.substring(6), user);
        } else {
            SSHD_LOG.error("PAM session helper for user {} ended without a report ({})", user,
                    own.signalled() ? "signal " + own.signal() : "exit " + own.code());
        }
        return new ExitStatus(255 << 8);
    }

    /** A raw wait status. */
    record ExitStatus(int raw) {
        boolean signalled() {
            return signal() != 0 && signal() != 0x7f;
        }

        int signal() {
            return raw & 0x7f;
        }

        boolean coreDumped() {
            return (raw & 0x80) != 0;
        }

        /** The exit code, or 128 + the signal (the shell's convention, and what a Java caller expects). */
        int code() {
            return signalled() ? 128 + signal() : (raw >> 8) & 0xff;
        }

        /** sshd's sig2name(): RFC 4254 §6.10's names, {@code SIG@openssh.com} for any other. */
        String signalName() {
            switch (signal()) {
                case 1: return "HUP";
                case 2: return "INT";
                case 3: return "QUIT";
                case 4: return "ILL";
                case 6: return "ABRT";
                case 8: return "FPE";
                case 9: return "KILL";
                case 10: return "USR1";
                case 11: return "SEGV";
                case 12: return "USR2";
                case 13: return "PIPE";
                case 14: return "ALRM";
                case 15: return "TERM";
                default: return "SIG@openssh.com";
            }
        }
    }
}
