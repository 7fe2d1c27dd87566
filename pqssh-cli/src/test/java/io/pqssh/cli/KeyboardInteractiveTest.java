package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.PasswordFile;

/**
 * keyboard-interactive end to end: {@code pqssh server} with {@code KbdInteractiveAuthentication yes} asks
 * {@code Password: } (as sshd through PAM) and checks the PasswordFile; {@code pqssh ssh} shows OpenSSH's
 * {@code (user@host) Password: } on the terminal (tmux), a wrong answer is asked again, the right one logs in; three
 * wrong answers end in {@code Permission denied} and 255; without a terminal ({@code setsid}) SSH_ASKPASS answers.
 * (Debian's sshd offers keyboard-interactive only through PAM, which would need a real account password.)
 */
class KeyboardInteractiveTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String PASSWORD = "correct kbd horse";
    private static final String WRONG = "wrong kbd donkey";

    @TempDir
    Path dir;

    private ForwardingHarness h;
    private int port;

    @BeforeEach
    void setUp() throws Exception {
        h = new ForwardingHarness(dir);
        Path passwords = dir.resolve("passwords");
        Files.writeString(passwords, PasswordFile.hashLine(CliHarness.user(), PASSWORD.toCharArray()) + "\n");
        Files.writeString(dir.resolve("authorized_keys"), "");
        port = h.startServer(dir.resolve("authorized_keys"), "-o", "KbdInteractiveAuthentication=yes",
                "-o", "PasswordFile=" + passwords);
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private String ssh(String command) {
        return "$PQSSH ssh -F none -o StrictHostKeyChecking=no -o UserKnownHostsFile=" + dir.resolve("kh")
                + " -o PreferredAuthentications=keyboard-interactive -p " + port + " " + CliHarness.user()
                + "@127.0.0.1 " + command;
    }

    @Test
    void onTheTerminalWrongThenRightThenThreeWrong() throws Exception {
        String prompt = "(" + CliHarness.user() + "@127.0.0.1) Password:";
        Path script = TmuxPane.script(dir, "kbd.sh", ssh("'echo KBD-LOGGED-IN'") + "\necho RC1=$?\n"
                + ssh("true") + "\necho RC2=$?");
        try (TmuxPane pane = new TmuxPane(script, 120, 30)) {
            pane.awaitText(WAIT, prompt);
            pane.line(WRONG);
            pane.await(WAIT, "the prompt again", s -> count(s, prompt) == 2);
            pane.line(PASSWORD);
            String s = pane.awaitText(WAIT, "RC1=");
            assertTrue(s.contains("KBD-LOGGED-IN\nRC1=0"), s);

            for (int i = 1; i <= 3; i++) {
                int n = 2 + i;
                pane.await(WAIT, "prompt " + n, t -> count(t, prompt) == n);
                pane.line(WRONG);
            }
            s = pane.awaitText(WAIT, "RC2=");
            assertTrue(s.contains("RC2=255"), s);
            assertTrue(s.contains("Permission denied"), s);
            assertEquals(5, count(s, prompt), s);
            assertFalse(s.contains(WRONG) || s.contains(PASSWORD), "an answer was echoed:\n" + s);
        }
    }

    @Test
    void throughAskpassWithoutATerminal() throws Exception {
        Path asked = dir.resolve("askpass.log");
        // the first call answers wrong, the next ones right; every prompt is recorded
        Path askpass = CliHarness.answeringAskpass(dir, asked, WRONG, PASSWORD);
        CliHarness.Result r = CliHarness.shell(dir, Map.of("SSH_ASKPASS", askpass.toString(), "DISPLAY", ":77"),
                "setsid -w " + ssh("'echo KBD-ASKPASS-OK'"));
        assertEquals(0, r.rc(), r.all());
        assertEquals("KBD-ASKPASS-OK", r.out().strip(), r.all());
        String prompt = "(" + CliHarness.user() + "@127.0.0.1) Password: ";
        assertEquals(List.of(prompt, prompt), Files.readAllLines(asked), r.all());
    }

    private static int count(String text, String what) {
        return text.split(Pattern.quote(what), -1).length - 1;
    }
}
