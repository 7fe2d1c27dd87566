package io.pqssh.server.session;

import java.time.Instant;
import java.util.Optional;

import org.apache.sshd.common.AttributeRepository.AttributeKey;

/**
 * The system's login accounting, as sshd keeps it for a session with a pseudo-terminal ({@code loginrec.c}): a
 * login in utmp/wtmp (and lastlog) when the session's process starts, a logout when it ends, and the account's
 * previous login for {@code PrintLastLog}. pqssh-mina stays Java 17 and has no native calls of its own for this:
 * {@code pqssh server} supplies an implementation (glibc's {@code pututxline}/{@code updwtmpx} through FFM).
 * Implementations must not throw: accounting that fails is logged and the session goes on, as sshd's does.
 */
public interface LoginRecords {
    /** Where the server keeps its {@link Settings} ({@code SshServer} attribute). */
    AttributeKey<Settings> KEY = new AttributeKey<>();

    /** One session's record: the user, the session process, its terminal and where the client is. */
    record Entry(String user, int uid, long pid, String tty, String host, Instant time) {
    }

    /** The account's previous login as lastlog holds it. */
    record LastLogin(Instant time, String tty, String host) {
    }

    /** What the server does: the records kept, and whether an interactive login shows the previous one. */
    record Settings(LoginRecords records, boolean printLastLog) {
    }

    void login(Entry entry);

    void logout(Entry entry);

    /** The account's last login before this one; read before {@link #login} records the new one. */
    Optional<LastLogin> lastLogin(int uid);
}
