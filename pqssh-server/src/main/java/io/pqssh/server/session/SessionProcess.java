package io.pqssh.server.session;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.jna.Memory;

/**
 * A session's process, started by the server itself ({@link SessionNative#spawn}) as {@link SessionLaunch} says,
 * in its own session; the server is its parent and waits for it, so it knows the real wait status (an exit code,
 * or the signal that killed it and whether it dumped core), with no wrapper process or status file. Signals go to
 * it only while it is not reaped: until then its pid cannot belong to another process.
 */
final class SessionProcess {
    private final int pid;
    private boolean reaped;

    private SessionProcess(int pid) {
        this.pid = pid;
    }

    /**
     * Starts {@code launch} on {@code stdio} (0, 1, 2), or on the terminal {@code tty} when not null, and hands it
     * its environment through descriptor 3.
     */
    static SessionProcess start(SessionLaunch launch, int[] stdio, String tty) throws IOException {
        for (String tool : new String[] {SessionLaunch.BASH}) {
            if (!Files.isExecutable(Path.of(tool))) {
                throw new IOException(tool + " is missing: cannot start sessions");
            }
        }
        byte[] env = launch.environmentPayload();
        int[] envPipe = SessionNative.pipe();
        int pid;
        try {
            pid = SessionNative.spawn(launch.spawnArgv(), SessionLaunch.SPAWN_ENV, stdio, tty, envPipe[0]);
        } catch (IOException | RuntimeException e) {
            SessionNative.close(envPipe[1]);
            throw e;
        } finally {
            SessionNative.close(envPipe[0]);
        }
        try {
            // the trampoline reads while this writes: an environment larger than a pipe's buffer is fine
            Memory buf = new Memory(Math.max(1, env.length));
            buf.write(0, env, 0, env.length);
            SessionNative.writeFully(envPipe[1], buf, env.length);
        } catch (IOException e) {
            // the process ended before reading it (setpriv or the trampoline failed and said why on stderr)
        } finally {
            SessionNative.close(envPipe[1]);
        }
        return new SessionProcess(pid);
    }

    int pid() {
        return pid;
    }

    /** kill(2) to the process (when {@code group}: also to its process group); false once it is gone. */
    synchronized boolean signal(int signal, boolean group) {
        if (reaped) {
            return false;
        }
        if (group) {
            SessionNative.kill(-pid, signal);
        }
        return SessionNative.kill(pid, signal);
    }

    /** Blocks until the process has ended and reaps it. */
    ExitStatus waitFor() throws IOException {
        SessionNative.awaitEnd(pid);
        synchronized (this) {
            reaped = true;
            return new ExitStatus(SessionNative.reap(pid));
        }
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
