package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The escapes of an interactive {@code pqssh ssh} session, typed in a real terminal (tmux) under an interactive
 * bash with job control, against Debian's sshd and {@code pqssh server}: {@code ~^Z} stops pqssh (bash reports it
 * stopped and runs local commands in a cooked terminal), {@code fg} resumes it and the remote shell answers again;
 * {@code ~R} makes a second key exchange happen ({@code -v}: a second "key exchange done") and the session goes on;
 * {@code ~?} lists {@code ~R} and {@code ~^Z}; {@code ~.} ends the session with 255.
 */
class EscapeTmuxTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String KEX_DONE = "SSH2_MSG_NEWKEYS received; key exchange done";

    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;

    @BeforeEach
    void setUp() throws Exception {
        h = new ForwardingHarness(dir);
        key = h.userKey();
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    @Test
    void againstOpenSshSshd() throws Exception {
        escapes(h.startSshd(h.authorizedKeys()));
    }

    @Test
    void againstPqsshServer() throws Exception {
        escapes(h.startServer(h.authorizedKeys()));
    }

    private void escapes(int port) throws Exception {
        Path log = dir.resolve("ssh-v.log");
        // WHERE is set in the local shell only: "[local]" is printed locally, "[]" by the remote shell
        Path script = TmuxPane.script(dir, "bash.sh", "export WHERE=local PS1='local$ '\n"
                + "exec bash --norc --noprofile -i");
        try (TmuxPane pane = new TmuxPane(script, 100, 30)) {
            pane.awaitText(WAIT, "local$ ");
            pane.line("$PQSSH ssh -v -F none -o StrictHostKeyChecking=no -o UserKnownHostsFile=" + dir.resolve("kh")
                    + " -i " + key + " -p " + port + " " + CliHarness.user() + "@127.0.0.1 2>" + log);
            awaitMarker(pane, "ONE", 60);
            assertEquals(1, count(CliHarness.read(log), KEX_DONE), CliHarness.read(log));

            // ~^Z: pqssh stops, bash has the terminal back (cooked: the local shell runs a command)
            pane.key("Enter");
            pane.type("~");
            pane.key("C-z");
            pane.awaitText(WAIT, "Stopped");
            pane.line("echo \"[$WHERE]-$((5*5))\"");
            pane.awaitText(WAIT, "[local]-25");
            // fg: pqssh continues and the remote shell answers again
            pane.line("fg");
            awaitMarker(pane, "TWO", 30);
            assertTrue(CliHarness.read(log).contains("~^Z [suspend pqssh]"), CliHarness.read(log));

            // ~R: a second key exchange, and the session still works
            pane.key("Enter");
            pane.type("~R");
            CliHarness.waitUntil(WAIT, () -> count(CliHarness.read(log), KEX_DONE) >= 2, () -> CliHarness.read(log));
            awaitMarker(pane, "THREE", 30);

            // ~? lists the escapes, ~. disconnects with 255
            pane.key("Enter");
            pane.type("~?");
            CliHarness.waitUntil(WAIT, () -> CliHarness.read(log).contains("Supported escape sequences:"),
                    () -> CliHarness.read(log));
            String help = CliHarness.read(log);
            assertTrue(help.contains("~R   - request rekey") && help.contains("~^Z  - suspend pqssh"), help);
            pane.key("Enter");
            pane.type("~.");
            CliHarness.waitUntil(WAIT, () -> CliHarness.read(log).contains("Connection to 127.0.0.1 closed."),
                    () -> CliHarness.read(log));
            pane.line("echo \"RC-$?\"");
            pane.awaitText(WAIT, "RC-255");
        }
    }

    /** Waits until the remote shell (where WHERE is unset) evaluated a marker; retried while the login runs. */
    private static void awaitMarker(TmuxPane pane, String tag, int seconds) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (true) {
            pane.line("echo \"[$WHERE]-" + tag + "-$((6*7))\"");
            try {
                pane.awaitText(Duration.ofSeconds(5), "[]-" + tag + "-42");
                return;
            } catch (AssertionError e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    private static int count(String text, String what) {
        return text.split(java.util.regex.Pattern.quote(what), -1).length - 1;
    }
}
