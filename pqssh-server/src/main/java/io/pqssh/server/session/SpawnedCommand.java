package io.pqssh.server.session;

import java.io.InputStream;
import java.io.OutputStream;

import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.Signal;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a session on pipes ({@link ProcessSession}) and one in a pseudo-terminal ({@link PtySession}) do alike: hold
 * MINA's streams and exit callback, pass {@code signal} requests to the process, and report its end as sshd does.
 * How the process starts and how its output is copied is theirs.
 */
abstract class SpawnedCommand implements Command {
    private static final Logger LOG = LoggerFactory.getLogger(SpawnedCommand.class);

    protected InputStream in;
    protected OutputStream out;
    protected OutputStream err;
    protected ExitCallback exit;
    protected volatile SessionProcess process;
    protected volatile ChannelSession channel;

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

    /** A {@code signal} request (not {@code WINCH}, which only a terminal acts on) for the process, if it runs. */
    protected final void signalProcess(Signal signal) {
        SessionProcess p = process;
        if (p == null || signal == Signal.WINCH) {
            return;
        }
        if (!p.signal(signal.getNumeric(), false)) {
            LOG.debug("signal {} to pid {}: no such process", signal, p.pid());
        }
    }

    /** As sshd: a process killed by a signal gets {@code exit-signal}, not {@code exit-status}. */
    protected final void reportExit(SessionProcess.ExitStatus status) {
        if (status.signalled() && channel instanceof PqsshChannelSession c) {
            c.exitBySignal(status.signalName(), status.coreDumped());
        }
        exit.onExit(status.code());
    }
}
