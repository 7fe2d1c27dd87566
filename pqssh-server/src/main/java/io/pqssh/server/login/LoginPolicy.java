package io.pqssh.server.login;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import io.pqssh.mina.internal.log.LogText;

/**
 * Which user names may log in, and as which account a session then runs: sshd's {@code allowed_user()} with
 * {@code UsePAM no}. Run as root, the server admits any account that exists, is not locked ({@code !} prefix of the
 * shadow password, Linux's {@code LOCKED_PASSWD_PREFIX}, or Solaris' {@code *LK*}), has not expired (shadow field
 * 8) and has an existing executable shell; sessions switch to that account. Run as anyone else it can only be that
 * user, so it admits that user name alone. pqssh also refuses {@code nologin} and {@code false} shells at login
 * (sshd lets them authenticate and the shell then refuses the session).
 */
public final class LoginPolicy {
    private final AccountSource accounts;
    private final String onlyUser;
    private final Clock clock;
    private final AccessLists access;
    private final PamLogins pam;

    private LoginPolicy(AccountSource accounts, String onlyUser, Clock clock) {
        this(accounts, onlyUser, clock, AccessLists.NONE, null);
    }

    private LoginPolicy(AccountSource accounts, String onlyUser, Clock clock, AccessLists access, PamLogins pam) {
        this.accounts = Objects.requireNonNull(accounts, "accounts");
        this.onlyUser = onlyUser;
        this.clock = clock;
        this.access = Objects.requireNonNull(access, "access");
        this.pam = pam;
    }

    /** The same policy with sshd's AllowUsers/DenyUsers/AllowGroups/DenyGroups lists. */
    public LoginPolicy withAccessLists(AccessLists lists) {
        return new LoginPolicy(accounts, onlyUser, clock, lists, pam);
    }

    /**
     * {@code UsePAM yes} ({@code pam} not null): as sshd's allowed_user() with PAM, the locked-password and
     * shadow-expiry checks are left to PAM's account stack ({@code pam_acct_mgmt}, run after authentication), so a
     * {@code useradd} account (password {@code !}) logs in with a key; the rest (shell, access lists) stays.
     */
    public LoginPolicy withPam(PamLogins p) {
        return new LoginPolicy(accounts, onlyUser, clock, access, p);
    }

    /** The PAM logins of {@code UsePAM yes}, or empty. */
    public Optional<PamLogins> pam() {
        return Optional.ofNullable(pam);
    }

    /** For a server running as root: any admissible account, sessions switch to it. */
    public static LoginPolicy switchingUsers(AccountSource accounts) {
        return new LoginPolicy(accounts, null, Clock.systemUTC());
    }

    /** For a server running as {@code serverUser} (not root): that user name alone. */
    public static LoginPolicy serverUserOnly(AccountSource accounts, String serverUser) {
        return new LoginPolicy(accounts, Objects.requireNonNull(serverUser, "serverUser"), Clock.systemUTC());
    }

    /** The policy for this process: {@link #switchingUsers} when it runs as uid 0, else {@link #serverUserOnly}. */
    public static LoginPolicy forThisProcess() {
        ProcessIdentity me = ProcessIdentity.current();
        return me.uid() == 0 ? switchingUsers(SystemAccounts.INSTANCE)
                : serverUserOnly(SystemAccounts.INSTANCE, me.name());
    }

    LoginPolicy withClock(Clock c) {
        return new LoginPolicy(accounts, onlyUser, c, access, pam);
    }

    /** Whether sessions switch to the login's account (the server runs as root). */
    public boolean switchesUsers() {
        return onlyUser == null;
    }

    /** The one user name a non-root server admits, or empty when it switches users. */
    public Optional<String> onlyUser() {
        return Optional.ofNullable(onlyUser);
    }

    /** A user name that can name an account at all (no path separators, no control characters, not too long). */
    public static boolean isPlausibleName(String name) {
        return name != null && name.length() <= 256 && name.matches("[A-Za-z0-9._][A-Za-z0-9._-]*\\$?");
    }

    /** {@link #admit(String, String)} without a client address (a {@code user@host} entry then never matches). */
    public Admission admit(String user) {
        return admit(user, null);
    }

    /**
     * Which checks of the account's shell apply to a connection, from its settings once Match is evaluated.
     * sshd's {@code allowed_user()} checks that the shell exists and is executable, and not at all when the session
     * changes root (the shell is then the chroot's); pqssh also refuses {@code nologin} and {@code false} (sshd lets
     * them log in and forward ports with {@code -N}), except where the connection can only ever serve sftp
     * ({@code ForceCommand internal-sftp}): the sftp-only account's shell is nologin by convention.
     */
    public enum ShellCheck {
        /** exists, executable, and not nologin or false */
        LOGIN_SHELL,
        /** exists and executable (sshd's): ForceCommand internal-sftp */
        EXECUTABLE,
        /** none (sshd's with a ChrootDirectory) */
        NONE;

        /** The check for a connection with {@code chrootDirectory} and {@code forceCommand} (each may be null). */
        public static ShellCheck of(String chrootDirectory, String forceCommand) {
            if (chrootDirectory != null && !chrootDirectory.equalsIgnoreCase("none")) {
                return NONE;
            }
            return forceCommand != null && io.pqssh.server.session.UserSessions.isInternalSftp(forceCommand)
                    ? EXECUTABLE : LOGIN_SHELL;
        }
    }

    /** {@link #admit(String, String, ShellCheck)} with every check of the shell. */
    public Admission admit(String user, String address) {
        return admit(user, address, ShellCheck.LOGIN_SHELL);
    }

    /**
     * Decides whether {@code user} connecting from {@code address} (an address literal, or null) may log in; the
     * refusal text is sshd's log line ({@code User NAME from ADDRESS not allowed because ...}).
     */
    public Admission admit(String user, String address, ShellCheck shellCheck) {
        String who = "User " + user + (address == null ? "" : " from " + address);
        if (!isPlausibleName(user)) {
            return Admission.unknown("Invalid user " + LogText.escape(user));
        }
        if (onlyUser != null && !onlyUser.equals(user)) {
            return Admission.refused(who + " not allowed because the server runs as " + onlyUser
                    + ", not root");
        }
        Optional<Account> found = accounts.byName(user);
        if (found.isEmpty()) {
            return Admission.unknown("Invalid user " + user);
        }
        Account a = found.get();
        Optional<String> shadow = pam == null ? accounts.shadowEntry(user) : Optional.empty();
        if (shadow.isPresent() && pam == null) {
            String[] f = shadow.get().split(":", -1);
            String pw = f.length > 1 ? f[1] : "";
            if (pw.startsWith("!") || pw.equals("*LK*")) {
                return Admission.refused(who + " not allowed because account is locked");
            }
            if (f.length > 7 && !f[7].isEmpty()) {
                try {
                    long expire = Long.parseLong(f[7]);
                    long today = LocalDate.now(clock.withZone(ZoneOffset.UTC)).toEpochDay();
                    if (expire != -1 && today > expire) {
                        return Admission.refused("Account " + user + " has expired");
                    }
                } catch (NumberFormatException e) {
                    // as getspnam(3): an unparsable field is no expiry date
                }
            }
        }
        Path shell = Path.of(a.shell());
        if (shellCheck != ShellCheck.NONE && !Files.exists(shell)) {
            return Admission.refused(who + " not allowed because shell " + a.shell() + " does not exist");
        }
        if (shellCheck != ShellCheck.NONE && !executable(shell)) {
            return Admission.refused(who + " not allowed because shell " + a.shell()
                    + " is not executable");
        }
        String base = shell.getFileName() == null ? "" : shell.getFileName().toString();
        if (shellCheck == ShellCheck.LOGIN_SHELL && (base.equals("nologin") || base.equals("false"))) {
            return Admission.refused(who + " not allowed because shell " + a.shell()
                    + " does not allow logins");
        }
        Optional<String> listed = access.refusal(user, address, () -> accounts.groupNames(a));
        if (listed.isPresent()) {
            return Admission.refused(who + " not allowed because " + listed.get());
        }
        return Admission.admitted(a);
    }

    /** sshd's test: a regular file with any execute bit, whoever may run it. */
    private static boolean executable(Path p) {
        try {
            Path real = p.toRealPath();
            if (!Files.isRegularFile(real)) {
                return false;
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(real);
            return perms.contains(PosixFilePermission.OWNER_EXECUTE) || perms.contains(PosixFilePermission.GROUP_EXECUTE)
                    || perms.contains(PosixFilePermission.OTHERS_EXECUTE);
        } catch (java.io.IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** The answer for one user name: the account to run as, or why not. */
    public record Admission(Optional<Account> account, String refusal, boolean unknownUser) {
        static Admission admitted(Account a) {
            return new Admission(Optional.of(a), null, false);
        }

        static Admission refused(String why) {
            return new Admission(Optional.empty(), why, false);
        }

        /** No such account (sshd's "Invalid user", which the authentication log already writes). */
        static Admission unknown(String why) {
            return new Admission(Optional.empty(), why, true);
        }

        public boolean allowed() {
            return account.isPresent();
        }
    }
}
