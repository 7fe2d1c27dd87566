package io.pqssh.mina.server.session;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.sshd.server.Environment;
import org.apache.sshd.server.Signal;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.session.ServerSession;
import org.apache.sshd.server.shell.InvertedShell;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.mina.server.login.Account;
import io.pqssh.mina.server.login.AdmittingUserAuthFactory;
import io.pqssh.mina.server.login.KeyRestrictions;
import io.pqssh.mina.server.login.LoginPolicy;
import io.pqssh.mina.server.login.ProcessIdentity;

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
        LoginPolicy policy = AdmittingUserAuthFactory.policy(s);
        Account account = AdmittingUserAuthFactory.account(s)
                .orElseThrow(() -> new IOException("no account for user " + s.getUsername()));
        boolean switchUid = policy != null && policy.switchesUsers()
                && account.uid() != ProcessIdentity.current().uid();
        if (switchUid && !SessionLaunch.canSwitchUsers()) {
            throw new IOException(SessionLaunch.SETPRIV + " (util-linux) is missing: cannot run a session as "
                    + account.name());
        }
        Map<String, String> extra = new LinkedHashMap<>();
        String original = env.getEnv().get(PqsshChannelSession.ORIGINAL_COMMAND);
        if (original != null && KeyRestrictions.of(s).forcedCommand().isPresent()) {
            extra.put(PqsshChannelSession.ORIGINAL_COMMAND, original);
        }
        SessionLaunch launch = SessionLaunch.of(account, switchUid, command, s.getClientAddress(),
                s.getIoSession().getLocalAddress(), extra);
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
        try {
            // the process is the user's shell (setpriv and bash -c exec it in place), so its pid is the one
            new ProcessBuilder("/bin/kill", "-s", signal.name(), Long.toString(p.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                    .waitFor();
        } catch (IOException e) {
            LOG.warn("cannot forward signal {} to pid {}: {}", signal, p.pid(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
