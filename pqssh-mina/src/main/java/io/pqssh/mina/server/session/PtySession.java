package io.pqssh.mina.server.session;

import static io.pqssh.mina.server.session.SessionStreams.copy;
import static io.pqssh.mina.server.session.SessionStreams.daemon;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.Signal;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.pty4j.WinSize;
import com.pty4j.unix.Pty;
import com.pty4j.unix.UnixPtyProcess;

import io.pqssh.mina.server.login.Account;

/**
 * A session in a real pseudo-terminal, as sshd's {@code do_exec_pty}: pty4j opens the pty and starts the process as
 * a session leader with the slave as its controlling terminal; before that the slave is given to the user (owner
 * uid, group {@code tty}, mode 0620, as sshd's {@code pty_setowner}) and gets the request's modes and window size.
 * The command ({@code shell -c command}) or the login shell runs in it as the user ({@link SessionLaunch}), with
 * {@code TERM} from the request and {@code SSH_TTY}. Output and input are copied by two threads (a pty has one
 * stream: stderr goes the same way); {@code window-change} resizes the pty (the kernel sends SIGWINCH),
 * {@code signal} requests go to the process; the exit status is the process's. The login is accounted in utmp,
 * wtmp and lastlog as sshd does for a pty session ({@link PtyLogin}, when the server keeps {@link LoginRecords}).
 */
final class PtySession implements Command {
    private static final Logger LOG = LoggerFactory.getLogger(PtySession.class);
    private static final long DRAIN_MILLIS = 1000;
    private static final int BUFFER = 32 * 1024;

    private final String command;
    private InputStream in;
    private OutputStream out;
    private ExitCallback exit;
    private volatile UnixPtyProcess process;
    private volatile ChannelSession channel;
    private Pty pty;
    private volatile PtyLogin login;

    /** @param command the command line, or null for the login shell */
    PtySession(String command) {
        this.command = command;
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
        // a terminal has one output stream
    }

    @Override
    public void setExitCallback(ExitCallback callback) {
        this.exit = callback;
    }

    @Override
    public void start(ChannelSession channel, Environment env) throws IOException {
        SessionTarget target = SessionTarget.of(channel);
        Account account = target.account();
        pty = new Pty();
        String slave = pty.getSlaveName();
        if (target.switchUid()) {
            giveToUser(Path.of(slave), account);
        }
        Map<String, String> e = env.getEnv();
        if (!Termios.applyModes(pty.getMasterFD(), env.getPtyModes())) {
            LOG.debug("terminal modes of the pty-req not applied (not generic Linux, or none sent)");
        }
        int cols = number(e.get(Environment.ENV_COLUMNS), 80);
        int rows = number(e.get(Environment.ENV_LINES), 24);
        Termios.windowSize(pty.getMasterFD(), cols, rows);
        String term = e.getOrDefault(Environment.ENV_TERM, "dumb");
        SessionLaunch launch = target.launch(channel, env, command, Map.of("TERM", term, "SSH_TTY", slave));
        login = PtyLogin.of(channel, account, slave);
        Optional<String> lastLogin = login.lastLoginMessage(command == null);
        // before the shell runs, so it finds itself in utmp (sshd's monitor records it at the pty request)
        login.login();
        List<String> envList = new ArrayList<>();
        launch.env().forEach((k, v) -> envList.add(k + "=" + v));
        Optional<WaitStatus> wait = WaitStatus.create();
        List<String> argv = wait.map(w -> w.wrap(launch.argv(), true)).orElse(launch.argv());
        UnixPtyProcess p;
        try {
            p = new UnixPtyProcess(argv.toArray(String[]::new), envList.toArray(String[]::new),
                    launch.directory().toString(), pty, null, false);
        } catch (IOException | RuntimeException ex) {
            wait.ifPresent(WaitStatus::discard);
            login.logout();
            throw ex;
        }
        process = p;
        this.channel = channel;
        env.addSignalListener((ch, signal) -> onSignal(signal, e));
        // sshd's do_login: "Last login" before the shell's first output
        lastLogin.ifPresent(line -> {
            try {
                out.write(line.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException ex) {
                LOG.debug("Last login line not written: {}", ex.getMessage());
            }
        });
        Thread output = daemon("pty-out-" + p.pid(), () -> copy(p.getInputStream(), out, BUFFER, false));
        daemon("pty-in-" + p.pid(), () -> copy(in, p.getOutputStream(), BUFFER, false));
        daemon("pty-wait-" + p.pid(), () -> awaitExit(p, output, wait));
        LOG.debug("pty session {} for {} (uid {}): pid {}", slave, account.name(), account.uid(), p.pid());
    }

    /** sshd's pty_setowner: the user's, group tty, rw for the owner, w for the group (for write(1)). */
    private static void giveToUser(Path tty, Account account) throws IOException {
        Files.setAttribute(tty, "unix:uid", account.uid(), LinkOption.NOFOLLOW_LINKS);
        Optional<Integer> ttyGroup = ttyGroup();
        Files.setAttribute(tty, "unix:gid", ttyGroup.orElse(account.gid()), LinkOption.NOFOLLOW_LINKS);
        Files.setPosixFilePermissions(tty, PosixFilePermissions.fromString(ttyGroup.isPresent() ? "rw--w----"
                : "rw-------"));
    }

    private static Optional<Integer> ttyGroup() {
        try {
            Object gid = Files.getAttribute(Path.of("/dev/tty"), "unix:gid");
            return gid instanceof Integer g && g != 0 ? Optional.of(g) : Optional.empty();
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    private void onSignal(Signal signal, Map<String, String> env) {
        UnixPtyProcess p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        if (signal == Signal.WINCH) {
            p.setWinSize(new WinSize(number(env.get(Environment.ENV_COLUMNS), 80),
                    number(env.get(Environment.ENV_LINES), 24)));
        } else {
            // the shell under the wait-status wrapper (the wrapper itself until it has forked)
            long target = ProcessHandle.of(p.pid()).flatMap(h -> h.children().findFirst())
                    .map(ProcessHandle::pid).orElse(p.pid());
            if (!Termios.kill(target, signal.getNumeric())) {
                LOG.debug("signal {} to pid {}: no such process", signal, target);
            }
        }
    }

    private void awaitExit(UnixPtyProcess p, Thread output, Optional<WaitStatus> wait) {
        int status;
        try {
            status = p.waitFor();
            // what the process wrote last is still in the pty: let it through before the exit status
            output.join(DRAIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            wait.ifPresent(WaitStatus::discard);
            login.logout();
            return;
        }
        login.logout();
        closePty();
        // as sshd: a shell or command killed by a signal gets exit-signal, not exit-status
        wait.flatMap(WaitStatus::read).ifPresent(d -> {
            if (channel instanceof PqsshChannelSession c) {
                c.exitBySignal(d.name(), d.coreDumped());
            }
        });
        exit.onExit(status);
    }

    private synchronized void closePty() {
        if (pty != null) {
            try {
                pty.close();
            } catch (IOException e) {
                LOG.debug("closing pty: {}", e.getMessage());
            }
        }
    }

    @Override
    public void destroy(ChannelSession channel) {
        UnixPtyProcess p = process;
        if (p != null && p.isAlive()) {
            p.hangup(); // as when the line drops: SIGHUP to the terminal's session
            p.destroy();
        }
        closePty();
    }

    private static int number(String s, int dflt) {
        try {
            int n = s == null ? dflt : Integer.parseInt(s.strip());
            return n > 0 && n < 10000 ? n : dflt;
        } catch (NumberFormatException e) {
            return dflt;
        }
    }
}
