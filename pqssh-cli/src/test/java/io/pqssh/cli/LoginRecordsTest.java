package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.login.ProcessIdentity;

/**
 * Login accounting as sshd's, with OpenSSH's ssh against {@code pqssh server} as root and an account this test
 * creates (and removes): a pty session is in utmp while it runs ({@code who} inside it lists it with the client's
 * address), gone from {@code who} after logout, in wtmp with its logout ({@code last -f /var/log/wtmp}, util-linux),
 * and the next interactive login prints {@code Last login: DATE from 127.0.0.1} before the shell (PrintLastLog yes),
 * not with {@code PrintLastLog no}, not for a command. Fails (does not skip) when not root. When the machine has no
 * {@code /run/utmp} (a container without a login manager) the test creates it and removes it afterwards.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LoginRecordsTest {
    private static final Path UTMP = Path.of("/run/utmp");
    private static final Path WHO = Path.of("/usr/bin/who");
    private static final Path LAST = Path.of("/usr/bin/last");
    private static final Pattern LAST_LOGIN = Pattern.compile(
            "Last login: [A-Z][a-z]{2} [A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4} from 127\\.0\\.0\\.1\r\n");

    @TempDir
    Path dir;

    @Test
    void ptyLoginsAreInUtmpAndWtmpAndTheNextLoginShowsTheLastOne() throws Exception {
        if (ProcessIdentity.current().uid() != 0) {
            fail("LoginRecordsTest needs root (it creates an account and writes utmp/wtmp as sshd); CI runs as root");
        }
        CliHarness.requireBinary(WHO, "coreutils");
        CliHarness.requireBinary(LAST, "util-linux");
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        String user = "pqlr" + Long.toString(ProcessHandle.current().pid(), 36)
                + Integer.toString((int) (System.nanoTime() & 0xffff), 36);
        boolean madeUtmp = false;
        try (ForwardingHarness h = new ForwardingHarness(dir)) {
            if (!Files.exists(UTMP)) {
                Files.createFile(UTMP, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-rw-r--")));
                madeUtmp = true;
            }
            run("/usr/sbin/useradd", "-m", "-s", "/bin/bash", user);
            run("/usr/sbin/usermod", "-p", "*", user);
            Path key = h.userKey();
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            int port = h.startServer(h.authorizedKeys());

            // a command with a pty: recorded, but no "Last login" (sshd's check_quietlogin)
            CliHarness.Result first = ssh(key, port, user, "", "who; tty");
            assertEquals(0, first.rc(), first.all());
            Matcher tty = Pattern.compile("/dev/(pts/\\d+)").matcher(first.out());
            assertTrue(tty.find(), first.all());
            String line = tty.group(1);
            assertTrue(Pattern.compile("(?m)^" + user + " +" + Pattern.quote(line) + " .*\\(127\\.0\\.0\\.1\\)")
                    .matcher(first.out()).find(), "who inside the session does not list it:\n" + first.out());
            assertFalse(first.out().contains("Last login"), first.out());

            CliHarness.waitUntil(Duration.ofSeconds(20), () -> !whoOutput().contains(user + " "),
                    () -> "still in utmp after logout:\n" + whoOutput());
            // utmp is written just before wtmp: wait for the logout to reach wtmp too
            Pattern loggedOut = Pattern.compile("(?m)^" + user + " +" + Pattern.quote(line)
                    + " +127\\.0\\.0\\.1 +\\w{3} \\w{3} [ \\d]\\d \\d\\d:\\d\\d - \\d\\d:\\d\\d ");
            CliHarness.waitUntil(Duration.ofSeconds(20), () -> loggedOut.matcher(last(user)).find(),
                    () -> "no login with its logout in wtmp:\n" + last(user));

            // an interactive login: "Last login" first, then the shell
            CliHarness.Result second = ssh(key, port, user, "echo SHELL-$((6*7)); exit", null);
            assertEquals(0, second.rc(), second.all());
            Matcher m = LAST_LOGIN.matcher(second.out());
            assertTrue(m.find(), "no Last login line:\n" + second.out());
            assertTrue(second.out().indexOf("SHELL-42") > m.start(), second.out());

            int quiet = h.startServer(h.authorizedKeys(), "-o", "PrintLastLog=no");
            CliHarness.Result third = ssh(key, quiet, user, "echo SHELL-$((6*7)); exit", null);
            assertTrue(third.out().contains("SHELL-42"), third.all());
            assertFalse(third.out().contains("Last login"), "PrintLastLog no:\n" + third.out());
        } finally {
            CliHarness.exec(dir, List.of("/usr/sbin/userdel", "-r", user));
            if (madeUtmp) {
                Files.deleteIfExists(UTMP);
            }
        }
    }

    /** OpenSSH's ssh with a forced pty: {@code command}, or (null) the login shell reading {@code stdin}. */
    private CliHarness.Result ssh(Path key, int port, String user, String stdin, String command) throws Exception {
        String cmd = "printf '%s\\n' '" + stdin + "' | " + CliHarness.SSH + " -tt -F none -o BatchMode=yes"
                + " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=error -i " + key
                + " -p " + port + " " + user + "@127.0.0.1" + (command == null ? "" : " '" + command + "'");
        return CliHarness.shell(dir, Map.of(), cmd);
    }

    private CliHarness.Result run(String... command) throws Exception {
        CliHarness.Result r = CliHarness.exec(dir, List.of(command));
        assertEquals(0, r.rc(), r.all());
        return r;
    }

    private String last(String user) {
        try {
            return run(LAST.toString(), "-f", "/var/log/wtmp", "-w", user).out();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private String whoOutput() {
        try {
            return CliHarness.exec(dir, List.of(WHO.toString())).out();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
