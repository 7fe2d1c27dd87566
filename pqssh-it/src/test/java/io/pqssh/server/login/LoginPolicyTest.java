package io.pqssh.server.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sshd's allowed_user() rules (UsePAM no) on a fixed account table: no root, no system accounts needed. */
class LoginPolicyTest {
    @TempDir
    Path dir;

    private final Map<String, String> passwd = new HashMap<>();
    private final Map<String, String> shadow = new HashMap<>();
    private final AccountSource table = new AccountSource() {
        @Override
        public Optional<Account> byName(String name) {
            return Optional.ofNullable(passwd.get(name)).flatMap(Account::fromPasswdLine);
        }

        @Override
        public Optional<String> shadowEntry(String name) {
            return Optional.ofNullable(shadow.get(name));
        }

        @Override
        public java.util.List<String> groupNames(Account a) {
            return a.name().equals("alice") ? java.util.List.of("alice", "ssh-users") : java.util.List.of("bob");
        }
    };

    private Path shell(String name, String mode) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
        return p;
    }

    private void user(String name, Path shell, String shadowPw) {
        passwd.put(name, name + ":x:1234:1234::/home/" + name + ":" + shell);
        if (shadowPw != null) {
            shadow.put(name, name + ":" + shadowPw + ":19000:0:99999:7:::");
        }
    }

    private String refusal(LoginPolicy p, String user) {
        LoginPolicy.Admission a = p.admit(user);
        assertFalse(a.allowed(), user + " admitted");
        return a.refusal();
    }

    @Test
    void admitsAnExistingUnlockedAccountWithARealShell() throws Exception {
        user("alice", shell("bash", "rwxr-xr-x"), "$y$j9T$abc");
        user("keyonly", shell("bash", "rwxr-xr-x"), "*");
        LoginPolicy p = LoginPolicy.switchingUsers(table);
        Account a = p.admit("alice").account().orElseThrow();
        assertEquals(1234, a.uid());
        assertEquals(Path.of("/home/alice"), a.home());
        assertTrue(p.admit("keyonly").allowed(), "'*' (no password) is not locked for sshd");
        assertTrue(p.switchesUsers());
    }

    @Test
    void refusesUnknownAndImplausibleNames() {
        LoginPolicy p = LoginPolicy.switchingUsers(table);
        assertEquals("Invalid user ghost", refusal(p, "ghost"));
        assertEquals("Invalid user ../etc", refusal(p, "../etc"));
        assertTrue(refusal(p, "a\nb").startsWith("Invalid user a\\x0ab"), "newline escaped");
    }

    @Test
    void refusesLockedAccountsAsSshdWithoutPam() throws Exception {
        Path sh = shell("bash", "rwxr-xr-x");
        user("bang", sh, "!");
        user("banghash", sh, "!$6$salt$hash");
        user("solaris", sh, "*LK*");
        LoginPolicy p = LoginPolicy.switchingUsers(table);
        for (String u : new String[] {"bang", "banghash", "solaris"}) {
            assertEquals("User " + u + " not allowed because account is locked", refusal(p, u));
        }
    }

    @Test
    void withPamLockedAndExpiredAreLeftToPamsAccountStackAsSshd() throws Exception {
        Path sh = shell("bash", "rwxr-xr-x");
        user("bang", sh, "!");
        user("nologin", shell("nologin", "rwxr-xr-x"), "*");
        shadow.put("old", "old:*:19000:0:99999:7::1:");
        user("old", sh, null);
        LoginPolicy p = LoginPolicy.switchingUsers(table).withPam(new PamLogins(PamLogins.SSHD));
        assertTrue(p.admit("bang").allowed(), "sshd with UsePAM yes: a '!' (useradd) account may log in with a key");
        assertTrue(p.admit("old").allowed(), "pam_unix's account stack decides expiry");
        assertTrue(refusal(p, "nologin").endsWith("does not allow logins"), "the shell checks stay");
        assertEquals("sshd", p.pam().orElseThrow().service());
    }

    @Test
    void refusesAnExpiredAccount() throws Exception {
        user("old", shell("bash", "rwxr-xr-x"), null);
        long day = LocalDate.of(2026, 1, 10).toEpochDay();
        shadow.put("old", "old:*:19000:0:99999:7::" + day + ":");
        Clock after = Clock.fixed(Instant.parse("2026-01-11T12:00:00Z"), ZoneOffset.UTC);
        Clock on = Clock.fixed(Instant.parse("2026-01-10T12:00:00Z"), ZoneOffset.UTC);
        assertEquals("Account old has expired", refusal(LoginPolicy.switchingUsers(table).withClock(after), "old"));
        assertTrue(LoginPolicy.switchingUsers(table).withClock(on).admit("old").allowed(), "expires after the day");
    }

    @Test
    void refusesMissingNonExecutableAndNologinShells() throws Exception {
        user("noshell", dir.resolve("missing"), "*");
        user("noexec", shell("plain", "rw-r--r--"), "*");
        user("nologin", shell("nologin", "rwxr-xr-x"), "*");
        user("falseuser", shell("false", "rwxr-xr-x"), "*");
        LoginPolicy p = LoginPolicy.switchingUsers(table);
        assertTrue(refusal(p, "noshell").endsWith("does not exist"));
        assertTrue(refusal(p, "noexec").endsWith("is not executable"));
        assertTrue(refusal(p, "nologin").endsWith("does not allow logins"));
        assertTrue(refusal(p, "falseuser").endsWith("does not allow logins"));
    }

    /**
     * sshd's allowed_user(): with ForceCommand internal-sftp (the sftp-only account, shell nologin by convention) the
     * shell must exist and be executable, as sshd checks; with a ChrootDirectory sshd checks no shell at all. pqssh's
     * own refusal of nologin and false holds everywhere else.
     */
    @Test
    void sftpOnlyAndChrootedConnectionsCheckTheShellAsSshd() throws Exception {
        user("nologin", shell("nologin", "rwxr-xr-x"), "*");
        user("noshell", dir.resolve("missing"), "*");
        LoginPolicy p = LoginPolicy.switchingUsers(table);
        assertTrue(p.admit("nologin", null, LoginPolicy.ShellCheck.of(null, "internal-sftp -d /upload")).allowed());
        assertTrue(refusal(p, "nologin").endsWith("does not allow logins"));
        assertEquals(LoginPolicy.ShellCheck.LOGIN_SHELL, LoginPolicy.ShellCheck.of(null, "/usr/bin/internal-sftp"));
        assertEquals(LoginPolicy.ShellCheck.LOGIN_SHELL, LoginPolicy.ShellCheck.of("none", "echo hi"));
        assertTrue(p.admit("noshell", null, LoginPolicy.ShellCheck.EXECUTABLE).refusal().endsWith("does not exist"));
        assertEquals(LoginPolicy.ShellCheck.NONE, LoginPolicy.ShellCheck.of("%h", null));
        assertTrue(p.admit("noshell", null, LoginPolicy.ShellCheck.NONE).allowed(), "sshd: no shell check in a chroot");
        assertTrue(p.admit("nologin", null, LoginPolicy.ShellCheck.NONE).allowed());
    }

    @Test
    void aNonRootServerAdmitsOnlyItsOwnUser() throws Exception {
        Path sh = shell("bash", "rwxr-xr-x");
        user("me", sh, null); // a non-root server cannot read shadow
        user("other", sh, "*");
        LoginPolicy p = LoginPolicy.serverUserOnly(table, "me");
        assertFalse(p.switchesUsers());
        assertTrue(p.admit("me").allowed());
        assertEquals("User other not allowed because the server runs as me, not root", refusal(p, "other"));
    }

    @Test
    void accessListsComeAfterTheAccountChecksWithSshdsLogLine() throws Exception {
        Path sh = shell("bash", "rwxr-xr-x");
        user("alice", sh, "*");
        user("bob", sh, "*");
        user("locked", sh, "!");
        LoginPolicy p = LoginPolicy.switchingUsers(table)
                .withAccessLists(AccessLists.NONE.denyUsers("locked").allowGroups("ssh-users"));
        assertTrue(p.admit("alice", "127.0.0.1").allowed());
        assertEquals("User bob from 127.0.0.1 not allowed because none of user's groups are listed in AllowGroups",
                p.admit("bob", "127.0.0.1").refusal());
        assertEquals("User locked from 127.0.0.1 not allowed because account is locked",
                p.admit("locked", "127.0.0.1").refusal(), "sshd checks the account before the lists");
        assertEquals("Invalid user ghost", p.admit("ghost", "127.0.0.1").refusal());
        LoginPolicy byHost = LoginPolicy.switchingUsers(table)
                .withAccessLists(AccessLists.NONE.allowUsers("alice@10.0.0.0/8"));
        assertTrue(byHost.admit("alice", "10.9.9.9").allowed());
        assertEquals("User alice from 127.0.0.1 not allowed because not listed in AllowUsers",
                byHost.admit("alice", "127.0.0.1").refusal());
    }
}
