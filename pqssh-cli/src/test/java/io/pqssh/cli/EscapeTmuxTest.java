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

    @Test
    void commandLineAndOtherEscapesAgainstOpenSshSshd() throws Exception {
        int port = h.startSshd(h.authorizedKeys(), "LogLevel DEBUG1");
        commandLine(port);
        // ~B reached sshd as RFC 4335's "break" request
        CliHarness.waitUntil(WAIT, () -> CliHarness.read(h.sshdLog()).contains("request break reply 0"),
                () -> CliHarness.read(h.sshdLog()));
    }

    @Test
    void commandLineAndOtherEscapesAgainstPqsshServer() throws Exception {
        commandLine(h.startServer(h.authorizedKeys()));
    }

    /**
     * {@code ~C} with EnableEscapeCommandline: {@code ssh> } on the terminal; -L, -R and -D added and cancelled in
     * the running session (each checked by connecting through it), ssh's answers for bad and unknown specs;
     * {@code ~#} lists a forwarded connection; {@code ~v}/{@code ~V} change the LogLevel (debug lines appear and
     * stop); {@code ~&} is refused and the session goes on; without EnableEscapeCommandline, {@code ~C} says
     * "commandline disabled" and {@code ~?} does not offer it.
     */
    private void commandLine(int port) throws Exception {
        Path log = dir.resolve("ssh-c.log");
        int lport = CliHarness.freePort();
        int rport = CliHarness.freePort();
        int dport = CliHarness.freePort();
        Path script = TmuxPane.script(dir, "bash.sh", "export WHERE=local PS1='local$ '\n"
                + "exec bash --norc --noprofile -i");
        try (TmuxPane pane = new TmuxPane(script, 150, 40)) {
            pane.awaitText(WAIT, "local$ ");
            String login = "$PQSSH ssh -F none -o StrictHostKeyChecking=no -o UserKnownHostsFile=" + dir.resolve("kh")
                    + " -i " + key + " -p " + port + " " + CliHarness.user() + "@127.0.0.1";
            pane.line(login + " -o EnableEscapeCommandline=yes 2>" + log);
            awaitMarker(pane, "ONE", 60);

            typeEscape(pane, log, "~?", "~C   - open a command line");
            assertTrue(!CliHarness.read(log).contains("~&"), CliHarness.read(log));

            command(pane, log, "-L " + lport + ":127.0.0.1:" + port, "Forwarding port.", 1);
            // the line was echoed: the terminal is cooked while ssh> reads it
            assertTrue(pane.screen().contains("-L " + lport + ":127.0.0.1:" + port), pane.screen());
            try (java.net.Socket through = new java.net.Socket("127.0.0.1", lport)) {
                assertTrue(CliHarness.firstLine(through).startsWith("SSH-2.0-"));
                pane.key("Enter");
                pane.type("~#");
                awaitLog(log, "The following connections are open:", 1);
                CliHarness.waitUntil(WAIT, () -> CliHarness.read(log).contains("direct-tcpip: listening port " + lport
                        + " for 127.0.0.1 port " + port), () -> CliHarness.read(log));
                assertTrue(CliHarness.read(log).contains("client-session (t4 [session]"), CliHarness.read(log));
            }
            command(pane, log, "-KL " + lport, "Canceled forwarding.", 1);
            CliHarness.waitUntil(WAIT, () -> !CliHarness.portOpen(lport), () -> "still listening on " + lport);
            command(pane, log, "-KL " + lport, "Unknown port forwarding.", 1);
            command(pane, log, "-L foo", "Bad local forwarding specification.", 1);
            command(pane, log, "-KL bar", "Bad forwarding close specification.", 1);
            command(pane, log, "x", "Invalid command.", 1);
            command(pane, log, "help", "      -KD[bind_address:]port                 Cancel dynamic forward", 1);

            command(pane, log, "-R " + rport + ":127.0.0.1:" + port, "Forwarding port.", 2);
            CliHarness.waitUntil(WAIT, () -> CliHarness.portOpen(rport), () -> "the server does not listen on " + rport);
            try (java.net.Socket through = new java.net.Socket("127.0.0.1", rport)) {
                assertTrue(CliHarness.firstLine(through).startsWith("SSH-2.0-"));
            }
            command(pane, log, "-KR " + rport, "Canceled forwarding.", 2);
            CliHarness.waitUntil(WAIT, () -> !CliHarness.portOpen(rport), () -> "the server still listens on " + rport);

            command(pane, log, "-D " + dport, "Forwarding port.", 3);
            CliHarness.waitUntil(WAIT, () -> CliHarness.portOpen(dport), () -> "not listening on " + dport);
            command(pane, log, "-KL " + dport, "Unknown port forwarding.", 2);
            command(pane, log, "-KD " + dport, "Canceled forwarding.", 3);
            CliHarness.waitUntil(WAIT, () -> !CliHarness.portOpen(dport), () -> "still listening on " + dport);

            // ~v twice: DEBUG1, and debug lines appear (~R logs one); ~V twice: back to INFO, and they stop
            typeEscape(pane, log, "~v", "~v [LogLevel VERBOSE]");
            typeEscape(pane, log, "~v", "~v [LogLevel DEBUG1]");
            typeEscape(pane, log, "~R", "debug1: rekey requested");
            typeEscape(pane, log, "~V", "~V [LogLevel VERBOSE]");
            typeEscape(pane, log, "~V", "~V [LogLevel INFO]");
            pane.key("Enter");
            pane.type("~R");
            typeEscape(pane, log, "~B", "~B");
            assertEquals(1, count(CliHarness.read(log), "debug1: rekey requested"), CliHarness.read(log));

            typeEscape(pane, log, "~&", "~& escape not available: pqssh cannot fork into the background");
            awaitMarker(pane, "TWO", 30);
            pane.key("Enter");
            pane.type("~.");
            pane.line("echo \"RC-$?\"");
            pane.awaitText(WAIT, "RC-255");

            // without EnableEscapeCommandline (OpenSSH 9.2's default)
            Path log2 = dir.resolve("ssh-c2.log");
            pane.line(login + " 2>" + log2);
            awaitMarker(pane, "THREE", 60);
            typeEscape(pane, log2, "~C", "commandline disabled");
            typeEscape(pane, log2, "~?", "Supported escape sequences:");
            assertTrue(!CliHarness.read(log2).contains("~C"), CliHarness.read(log2));
            awaitMarker(pane, "FOUR", 30);
            pane.key("Enter");
            pane.type("~.");
        }
    }

    /**
     * {@code ~C -R} that the server refuses (sshd's AllowTcpForwarding local): with ExitOnForwardFailure yes the
     * connection ends as ssh's ssh_confirm_remote_forward fatal: "Error: remote port forwarding failed for listen
     * port N", exit 255; without it the warning and the session goes on.
     */
    @Test
    void refusedCommandLineRemoteForwardWithExitOnForwardFailure() throws Exception {
        int port = h.startSshd(h.authorizedKeys(), "AllowTcpForwarding local");
        int rport = CliHarness.freePort();
        Path log = dir.resolve("ssh-e.log");
        Path script = TmuxPane.script(dir, "bash.sh", "export WHERE=local PS1='local$ '\n"
                + "exec bash --norc --noprofile -i");
        try (TmuxPane pane = new TmuxPane(script, 150, 40)) {
            pane.awaitText(WAIT, "local$ ");
            String login = "$PQSSH ssh -F none -o StrictHostKeyChecking=no -o UserKnownHostsFile=" + dir.resolve("kh")
                    + " -i " + key + " -p " + port + " -o EnableEscapeCommandline=yes " + CliHarness.user()
                    + "@127.0.0.1";
            pane.line(login + " 2>" + log);
            awaitMarker(pane, "ONE", 60);
            command(pane, log, "-R " + rport + ":127.0.0.1:" + port, "Warning: remote port forwarding failed for"
                    + " listen port " + rport, 1);
            awaitMarker(pane, "TWO", 30); // the session goes on
            pane.key("Enter");
            pane.type("~.");
            pane.line("echo \"RC-$?\"");
            pane.awaitText(WAIT, "RC-255");

            Path log2 = dir.resolve("ssh-e2.log");
            pane.line(login + " -o ExitOnForwardFailure=yes 2>" + log2 + "; echo \"EXIT-$?\"");
            awaitMarker(pane, "THREE", 60);
            command(pane, log2, "-R " + rport + ":127.0.0.1:" + port, "Error: remote port forwarding failed for"
                    + " listen port " + rport, 1);
            pane.awaitText(WAIT, "EXIT-255");
        }
    }

    /** Types {@code ~C}, waits for the prompt, enters {@code line}, waits for the {@code n}th {@code answer}. */
    private static void command(TmuxPane pane, Path log, String line, String answer, int n) throws Exception {
        int prompts = count(pane.screen(), "ssh> ");
        pane.key("Enter");
        pane.type("~C");
        pane.await(WAIT, "ssh> prompt", s -> count(s, "ssh> ") > prompts);
        pane.line(line);
        awaitLog(log, answer, n);
    }

    /** Types an escape after a newline and waits until the log has {@code answer}. */
    private static void typeEscape(TmuxPane pane, Path log, String escape, String answer) throws Exception {
        pane.key("Enter");
        pane.type(escape);
        awaitLog(log, answer, 1);
    }

    private static void awaitLog(Path log, String text, int n) throws InterruptedException {
        CliHarness.waitUntil(WAIT, () -> count(CliHarness.read(log), text) >= n, () -> CliHarness.read(log));
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
