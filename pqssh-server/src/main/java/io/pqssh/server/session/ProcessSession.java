package io.pqssh.server.session;

import static io.pqssh.server.session.SessionStreams.copy;
import static io.pqssh.server.session.SessionStreams.daemon;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

import org.apache.sshd.server.Environment;
import org.apache.sshd.server.channel.ChannelSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.server.login.Account;

/**
 * A session without a terminal, as sshd's {@code do_exec_no_pty}: the command of an exec or subsystem request, or
 * the login shell, run as the login's account ({@link SessionLaunch}, {@link SessionProcess}: its own session and
 * process group, no controlling terminal) on three pipes. One thread per stream copies with blocking reads (no
 * polling, so no added latency and full speed for sftp-server and {@code tar | ssh}); the client's EOF closes the
 * process's stdin; the exit status goes out after stdout and stderr have reached EOF, so nothing the process wrote
 * is lost (as in sshd, a background job that keeps them open keeps the channel open). {@code signal} requests go to
 * the process with {@code kill(2)}; a process killed by a signal is reported with {@code exit-signal}.
 */
final class ProcessSession extends SpawnedCommand implements org.apache.sshd.server.channel.ChannelSessionAware {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessSession.class);
    private static final int BUFFER = 64 * 1024;
    /**
     * The stdin and stdout pipes' size, and the copy buffer with it (system property {@value #PIPE_PROPERTY}, bytes;
     * 0 keeps Linux's 64 KiB). With 64 KiB a bulk transfer fills the pipe with about two 32 KiB packets or SFTP
     * replies, so the process and the relay thread each block and wake up for every one or two of them (issue 25).
     */
    static final String PIPE_PROPERTY = "pqssh.server.pipeSize";
    private static final int PIPE_SIZE = Integer.getInteger(PIPE_PROPERTY, 1024 * 1024);
    private static final int BULK_BUFFER = 256 * 1024;
    private static final int SIGTERM = 15;

    private final String command;

    private final boolean subsystem;
    private final java.util.List<String> direct;
    /** The client's data for the process's stdin (set before {@link #start}, when MINA prepares the command). */
    private ProcessInput input;

    /** @param command the command line, or null for the login shell */
    ProcessSession(String command) {
        this(command, false);
    }

    /** @param subsystem whether the command serves a subsystem (no rc file runs before it) */
    ProcessSession(String command, boolean subsystem) {
        this(command, subsystem, null);
    }

    /** @param direct a program and its arguments run without the user's shell (internal-sftp), or null */
    ProcessSession(String command, boolean subsystem, java.util.List<String> direct) {
        this.command = command;
        this.subsystem = subsystem;
        this.direct = direct == null ? null : java.util.List.copyOf(direct);
    }

    /** Takes the channel's data with {@link ProcessInput} instead of MINA's piped stream (issue 25). */
    @Override
    public void setChannelSession(ChannelSession session) {
        input = new ProcessInput(ProcessInput.WindowRelease.of(session.getLocalWindow()));
        session.setDataReceiver(input);
    }

    @Override
    public void start(ChannelSession channel, Environment env) throws IOException {
        SessionTarget target = SessionTarget.of(channel);
        Account account = target.account();
        SessionLaunch launch;
        try {
            launch = target.launch(channel, env, command, Map.of(), subsystem, direct);
        } catch (SessionLaunch.MissingInChroot e) {
            if (direct == null) {
                throw e;
            }
            // internal-sftp where the chroot holds no sftp-server: fail closed in one line the client sees (sshd
            // would serve it in-process); the log has the chroot's path (SessionTarget)
            UserSessions.Refusal.tell(err, exit, e.clientLine());
            return;
        }
        this.channel = channel;
        int[][] pipes = new int[3][];
        SessionProcess p;
        try {
            for (int i = 0; i < 3; i++) {
                pipes[i] = SessionNative.pipe();
            }
            p = SessionProcess.start(launch, new int[] {pipes[0][0], pipes[1][1], pipes[2][1]}, null);
        } catch (IOException | RuntimeException e) {
            for (int[] pipe : pipes) {
                if (pipe != null) {
                    SessionNative.close(pipe[0]);
                    SessionNative.close(pipe[1]);
                }
            }
            throw e;
        }
        // the child's ends are the child's now
        SessionNative.close(pipes[0][0]);
        SessionNative.close(pipes[1][1]);
        SessionNative.close(pipes[2][1]);
        int[] stdin = pipes[0];
        int[] stdout = pipes[1];
        int[] stderr = pipes[2];
        // our ends only: each end of a pipe sets the size of the one buffer both share
        boolean large = PIPE_SIZE > BUFFER && SessionNative.setPipeSize(stdin[1], PIPE_SIZE)
                & SessionNative.setPipeSize(stdout[0], PIPE_SIZE);
        int copyBuffer = large ? BULK_BUFFER : BUFFER;
        process = p;
        env.addSignalListener((ch, signal) -> signalProcess(signal));
        int pid = p.pid();
        SessionFd toProcess = new SessionFd(stdin[1]);
        SessionFd fromOut = new SessionFd(stdout[0]);
        SessionFd fromErr = new SessionFd(stderr[0]);
        Thread outThread = daemon("session-out-" + pid, () -> drain(fromOut, out, copyBuffer));
        Thread errThread = daemon("session-err-" + pid, () -> drain(fromErr, err, BUFFER));
        ProcessInput stdinData = input;
        if (stdinData != null) {
            daemon("session-in-" + pid, () -> {
                try {
                    stdinData.pumpTo(toProcess, copyBuffer);
                } finally {
                    toProcess.close();
                }
            });
        } else {
            daemon("session-in-" + pid, () -> copy(in, toProcess.output(BUFFER), BUFFER, true));
        }
        daemon("session-wait-" + pid, () -> awaitExit(p, outThread, errThread));
        LOG.debug("session for {} (uid {}): pid {}", account.name(), account.uid(), pid);
    }

    private static void drain(SessionFd from, OutputStream to, int buffer) {
        try {
            copy(from.input(buffer), to, buffer, false);
        } finally {
            from.close();
        }
    }

    private void awaitExit(SessionProcess p, Thread stdout, Thread stderr) {
        SessionProcess.ExitStatus status;
        try {
            status = p.waitFor();
            stdout.join();
            stderr.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (IOException e) {
            LOG.warn("session pid {}: {}", p.pid(), e.getMessage());
            exit.onExit(255);
            return;
        }
        reportExit(status);
    }

    @Override
    public void destroy(ChannelSession channel) {
        SessionProcess p = process;
        if (p != null) {
            p.signal(SIGTERM, false);
        }
    }
}
