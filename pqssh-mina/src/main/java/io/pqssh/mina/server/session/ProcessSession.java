package io.pqssh.mina.server.session;

import static io.pqssh.mina.server.session.SessionStreams.copy;
import static io.pqssh.mina.server.session.SessionStreams.daemon;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;

import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.Signal;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.mina.server.login.Account;

/**
 * A session without a terminal, as sshd's {@code do_exec_no_pty}: the command of an exec or subsystem request, or
 * the login shell, run as the login's account ({@link SessionLaunch}) on three pipes. One thread per stream copies
 * with blocking reads (no polling, so no added latency and full speed for sftp-server and {@code tar | ssh}); the
 * client's EOF closes the process's stdin; the exit status goes out after stdout and stderr have reached EOF, so
 * nothing the process wrote is lost (as in sshd, a background job that keeps them open keeps the channel open).
 * {@code signal} requests go to the process with {@code kill(2)}.
 */
final class ProcessSession implements Command {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessSession.class);
    private static final int BUFFER = 64 * 1024;

    private final String command;
    private InputStream in;
    private OutputStream out;
    private OutputStream err;
    private ExitCallback exit;
    private volatile Process process;
    private ChannelSession channel;

    private final boolean subsystem;

    /** @param command the command line, or null for the login shell */
    ProcessSession(String command) {
        this(command, false);
    }

    /** @param subsystem whether the command serves a subsystem (no rc file runs before it) */
    ProcessSession(String command, boolean subsystem) {
        this.command = command;
        this.subsystem = subsystem;
    }

    @Override
    public void setInputStream(InputStream in) {
        this.in = in;
    }

    @Override
    public void setOutputStream(OutputStream out) {
        this.out = out;
    }

    @Override
    public void setErrorStream(OutputStream err) {
        this.err = err;
    }

    @Override
    public void setExitCallback(ExitCallback callback) {
        this.exit = callback;
    }

    @Override
    public void start(ChannelSession channel, Environment env) throws IOException {
        SessionTarget target = SessionTarget.of(channel);
        Account account = target.account();
        SessionLaunch launch = target.launch(channel, env, command, Map.of(), subsystem);
        this.channel = channel;
        java.util.Optional<WaitStatus> wait = WaitStatus.create();
        ProcessBuilder pb = new ProcessBuilder(wait.map(w -> w.wrap(launch.argv())).orElse(launch.argv()))
                .directory(launch.directory().toFile());
        pb.environment().clear();
        pb.environment().putAll(launch.env());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            wait.ifPresent(WaitStatus::discard);
            throw e;
        }
        process = p;
        env.addSignalListener((ch, signal) -> forward(signal));
        long pid = p.pid();
        Thread stdout = daemon("session-out-" + pid, () -> copy(p.getInputStream(), out, BUFFER, false));
        Thread stderr = daemon("session-err-" + pid, () -> copy(p.getErrorStream(), err, BUFFER, false));
        daemon("session-in-" + pid, () -> copy(in, p.getOutputStream(), BUFFER, true));
        daemon("session-wait-" + pid, () -> awaitExit(p, stdout, stderr, wait));
        LOG.debug("session for {} (uid {}): pid {}", account.name(), account.uid(), pid);
    }

    private void forward(Signal signal) {
        Process p = process;
        if (p == null || !p.isAlive() || signal == Signal.WINCH) {
            return;
        }
        // the user's shell (setpriv and bash -c exec in place) or the command it exec'd: the wait-status wrapper's
        // child; the wrapper itself until it has forked (it passes the signal on)
        long target = p.toHandle().children().findFirst().map(ProcessHandle::pid).orElse(p.pid());
        if (!Termios.kill(target, signal.getNumeric())) {
            LOG.debug("signal {} to pid {}: no such process", signal, target);
        }
    }

    private void awaitExit(Process p, Thread stdout, Thread stderr, java.util.Optional<WaitStatus> wait) {
        int status;
        try {
            status = p.waitFor();
            stdout.join();
            stderr.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            wait.ifPresent(WaitStatus::discard);
            return;
        }
        // as sshd: a command killed by a signal gets exit-signal, not exit-status
        wait.flatMap(WaitStatus::read).ifPresent(d -> {
            if (channel instanceof PqsshChannelSession c) {
                c.exitBySignal(d.name(), d.coreDumped());
            }
        });
        exit.onExit(status);
    }

    @Override
    public void destroy(ChannelSession channel) {
        Process p = process;
        if (p != null && p.isAlive()) {
            p.destroy();
        }
    }
}
