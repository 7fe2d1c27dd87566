package io.pqssh.mina.server.session;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;

import org.apache.sshd.server.Environment;
import org.apache.sshd.server.Signal;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.session.ServerSession;
import org.apache.sshd.server.shell.InvertedShell;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.mina.server.login.Account;

/**
 * One session's process, run as the login's account ({@link SessionLaunch}): the command of an exec or subsystem
 * request, or the login shell. Signals the client sends ({@code signal} requests) go to the process.
 */
final class UserProcessShell implements InvertedShell {
    private static final Logger LOG = LoggerFactory.getLogger(UserProcessShell.class);

    private final String command;
    private ServerSession session;
    private ChannelSession channel;
    private Process process;

    /** @param command the command line, or null for the login shell */
    UserProcessShell(String command) {
        this.command = command;
    }

    @Override
    public void setSession(ServerSession session) {
        this.session = session;
    }

    @Override
    public ServerSession getServerSession() {
        return session;
    }

    @Override
    public ChannelSession getServerChannelSession() {
        return channel;
    }

    @Override
    public void start(ChannelSession channel, Environment env) throws IOException {
        this.channel = channel;
        ServerSession s = channel.getServerSession();
        this.session = s;
        SessionTarget target = SessionTarget.of(channel);
        Account account = target.account();
        SessionLaunch launch = target.launch(channel, env, command, Map.of());
        ProcessBuilder pb = new ProcessBuilder(launch.argv()).directory(launch.directory().toFile());
        pb.environment().clear();
        pb.environment().putAll(launch.env());
        process = pb.start();
        env.addSignalListener((ch, signal) -> forward(signal));
        LOG.debug("session for {} (uid {}) started: pid {}", account.name(), account.uid(), process.pid());
    }

    private void forward(Signal signal) {
        Process p = process;
        if (p == null || !p.isAlive() || signal == Signal.WINCH) {
            return;
        }
        // the process is the user's shell (setpriv and bash -c exec it in place), so its pid is the one
        if (!Termios.kill(p.pid(), signal.getNumeric())) {
            LOG.debug("signal {} to pid {}: no such process", signal, p.pid());
        }
    }

    @Override
    public OutputStream getInputStream() {
        return process.getOutputStream();
    }

    @Override
    public InputStream getOutputStream() {
        return process.getInputStream();
    }

    @Override
    public InputStream getErrorStream() {
        return process.getErrorStream();
    }

    @Override
    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    @Override
    public int exitValue() {
        return process.exitValue();
    }

    @Override
    public void destroy(ChannelSession channel) {
        Process p = process;
        if (p != null && p.isAlive()) {
            p.destroy();
        }
    }

    @Override
    public String toString() {
        return "UserProcessShell[" + (command == null ? "login shell" : "command") + "]";
    }
}
