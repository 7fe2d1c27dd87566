package io.pqssh.server.session;

import static io.pqssh.server.session.SessionStreams.copy;
import static io.pqssh.server.session.SessionStreams.daemon;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;

import org.apache.sshd.server.Environment;
import org.apache.sshd.server.Signal;
import org.apache.sshd.server.channel.ChannelSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.server.login.Account;

/**
 * A session in a real pseudo-terminal, as sshd's {@code do_exec_pty}: a new pty ({@link SessionNative#openPty}) whose
 * slave is given to the user (owner uid, group {@code tty}, mode 0620, as sshd's {@code pty_setowner}) and gets the
 * request's modes and window size; the process ({@link SessionProcess}) starts as the leader of a new session and
 * opens the slave, which becomes its controlling terminal. The command ({@code shell -c command}) or the login shell
 * runs in it as the user ({@link SessionLaunch}), with {@code TERM} from the request and {@code SSH_TTY}. Output and
 * input are copied by two threads reading and writing the master descriptor (a pty has one stream: stderr goes the
 * same way); {@code window-change} resizes the pty (the kernel sends SIGWINCH), {@code signal} requests go to the
 * process; the exit status is the process's, {@code exit-signal} when a signal killed it. The server keeps a
 * descriptor of the slave until the process has ended, so the master never reads EOF before the process's last
 * output is in; then everything still in the pty goes out before the exit status. The login is accounted in utmp,
 * wtmp and lastlog as sshd does for a pty session ({@link PtyLogin}, when the server keeps {@link LoginRecords}).
 */
final class PtySession extends SpawnedCommand {
    private static final Logger LOG = LoggerFactory.getLogger(PtySession.class);
    private static final long DRAIN_MILLIS = 1000;
    private static final int BUFFER = 32 * 1024;
    private static final int SIGHUP = 1;
    private static final int SIGTERM = 15;

    private final String command;
    private SessionFd master;
    private SessionFd slave;
    private volatile PtyLogin login;

    /** @param command the command line, or null for the login shell */
    PtySession(String command) {
        this.command = command;
    }

    @Override
    public void start(ChannelSession channel, Environment env) throws IOException {
        SessionTarget target = SessionTarget.of(channel);
        Account account = target.account();
        SessionNative.Pty pty = SessionNative.openPty();
        master = new SessionFd(pty.master());
        String slaveName = pty.slave();
        try {
            slave = new SessionFd(SessionNative.openTerminal(slaveName));
            giveToUser(slave, account, target.switchUid());
            Map<String, String> e = env.getEnv();
            if (!Termios.applyModes(master, env.getPtyModes())) {
                LOG.debug("terminal modes of the pty-req not applied (not generic Linux, or none sent)");
            }
            Termios.windowSize(master, number(e.get(Environment.ENV_COLUMNS), 80),
                    number(e.get(Environment.ENV_LINES), 24));
            String term = e.getOrDefault(Environment.ENV_TERM, "dumb");
            SessionLaunch launch = target.launch(channel, env, command, Map.of("TERM", term, "SSH_TTY", slaveName));
            login = PtyLogin.of(channel, account, slaveName);
            Optional<String> lastLogin = login.lastLoginMessage(command == null);
            if (lastLogin.isPresent() && launch.pam() != null) {
                // after PAM's texts (pam_motd), printed by the helper, as sshd's loginmsg
                launch = launch.withLoginTrailer(lastLogin.get());
                lastLogin = Optional.empty();
            }
            // before the shell runs, so it finds itself in utmp (sshd's monitor records it at the pty request)
            login.login();
            SessionProcess p;
            try {
                p = SessionProcess.start(launch, null, slaveName);
            } catch (IOException | RuntimeException ex) {
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
            Thread output = daemon("pty-out-" + p.pid(), () -> copy(master.input(BUFFER), out, BUFFER, false));
            daemon("pty-in-" + p.pid(), () -> copy(in, master.output(BUFFER), BUFFER, false));
            daemon("pty-wait-" + p.pid(), () -> awaitExit(p, output));
            LOG.debug("pty session {} for {} (uid {}): pid {}", slaveName, account.name(), account.uid(), p.pid());
        } catch (IOException | RuntimeException ex) {
            closePty();
            throw ex;
        }
    }

    /**
     * sshd's pty_setowner: the user's, group tty, rw for the owner, w for the group (for write(1)); without a tty
     * group, the user's group and 0600. A server that does not switch users may not be allowed to (then the
     * kernel's devpts owner and mode stay).
     */
    private static void giveToUser(SessionFd slave, Account account, boolean switchUid) throws IOException {
        int tty = SessionNative.groupId("tty");
        IOException[] failed = new IOException[1];
        slave.use(fd -> {
            try {
                SessionNative.chown(fd, account.uid(), tty >= 0 ? tty : account.gid(), tty >= 0 ? 0620 : 0600);
            } catch (IOException e) {
                failed[0] = e;
            }
            return true;
        });
        if (failed[0] != null) {
            if (switchUid) {
                throw failed[0];
            }
            LOG.debug("pty slave not given to {}: {}", account.name(), failed[0].getMessage());
        }
    }

    private void onSignal(Signal signal, Map<String, String> env) {
        if (signal == Signal.WINCH) {
            if (process != null) {
                Termios.windowSize(master, number(env.get(Environment.ENV_COLUMNS), 80),
                        number(env.get(Environment.ENV_LINES), 24));
            }
        } else {
            signalProcess(signal);
        }
    }

    private void awaitExit(SessionProcess p, Thread output) {
        SessionProcess.ExitStatus status;
        try {
            status = p.waitFor();
            // the last slave descriptor but those of the process's own children: the master reads EOF once
            // everything in the pty has been read
            slave.close();
            output.join(DRAIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            login.logout();
            return;
        } catch (IOException e) {
            LOG.warn("pty session pid {}: {}", p.pid(), e.getMessage());
            login.logout();
            closePty();
            exit.onExit(255);
            return;
        }
        login.logout();
        closePty();
        reportExit(status); // a terminal has one output stream: err, set by MINA, stays unused
    }

    private synchronized void closePty() {
        if (slave != null) {
            slave.close();
        }
        if (master != null) {
            master.close();
        }
    }

    @Override
    public void destroy(ChannelSession channel) {
        SessionProcess p = process;
        if (p != null) {
            // as when the line drops: SIGHUP to the terminal's session leader and its process group
            p.signal(SIGHUP, true);
            p.signal(SIGTERM, false);
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
