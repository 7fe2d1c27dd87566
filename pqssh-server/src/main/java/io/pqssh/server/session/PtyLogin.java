package io.pqssh.server.session;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.sshd.server.channel.ChannelSession;

import io.pqssh.server.login.Account;

/**
 * One pty session's login accounting, as sshd's {@code do_login} and {@code session_pty_cleanup}: the previous
 * login read first (for {@code PrintLastLog}), the login recorded before the process starts, the logout once it
 * ended (at most once, whichever way the session ends).
 */
final class PtyLogin {
    /** ctime(3)'s layout, which sshd's "Last login" line uses, in the server's time zone. */
    private static final DateTimeFormatter CTIME = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy",
            Locale.ROOT);

    private final LoginRecords.Settings settings;
    private final Account account;
    private final String tty;
    private final String host;
    private final AtomicReference<LoginRecords.Entry> recorded = new AtomicReference<>();

    private PtyLogin(LoginRecords.Settings settings, Account account, String tty, String host) {
        this.settings = settings;
        this.account = account;
        this.tty = tty;
        this.host = host;
    }

    /** The accounting for a pty session on {@code tty} (the slave's path); does nothing when the server keeps none. */
    static PtyLogin of(ChannelSession channel, Account account, String tty) {
        LoginRecords.Settings s = channel.getServerSession().getFactoryManager().getAttribute(LoginRecords.KEY);
        // UseDNS no: the client's address is its host name
        String host = channel.getServerSession().getClientAddress() instanceof InetSocketAddress inet
                && inet.getAddress() != null ? inet.getAddress().getHostAddress() : "";
        return new PtyLogin(s, account, tty, host);
    }

    /**
     * sshd's "Last login: DATE from HOST" line (CR LF ended) for an interactive login (no command) without
     * {@code ~/.hushlogin}, when PrintLastLog is on and lastlog has a previous login; read before {@link #login}.
     */
    Optional<String> lastLoginMessage(boolean interactive) {
        if (settings == null || !settings.printLastLog() || !interactive
                || Files.exists(account.home().resolve(".hushlogin"))) {
            return Optional.empty();
        }
        return settings.records().lastLogin(account.uid()).map(last -> "Last login: "
                + CTIME.format(last.time().atZone(ZoneId.systemDefault()))
                + (last.host().isEmpty() ? "" : " from " + last.host()) + "\r\n");
    }

    /**
     * Records the login. The process is the server's own, as sshd records its session process's (the shell is not
     * started yet, and must find itself in utmp); tools that drop entries of dead processes drop these when the
     * server is gone.
     */
    void login() {
        if (settings != null) {
            LoginRecords.Entry e = new LoginRecords.Entry(account.name(), account.uid(),
                    ProcessHandle.current().pid(), tty, host, Instant.now());
            recorded.set(e);
            settings.records().login(e);
        }
    }

    void logout() {
        LoginRecords.Entry e = recorded.getAndSet(null);
        if (e != null) {
            settings.records().logout(new LoginRecords.Entry(e.user(), e.uid(), e.pid(), e.tty(), e.host(),
                    Instant.now()));
        }
    }
}
