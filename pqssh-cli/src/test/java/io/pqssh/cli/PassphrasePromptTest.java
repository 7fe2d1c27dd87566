package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The passphrase of an encrypted identity (ssh-keygen's openssh-key-v1, bcrypt KDF) for a login to Debian's sshd:
 * asked on {@code /dev/tty} in a real terminal (tmux) while stdin is a pipe that still reaches the remote command, not
 * echoed, asked again after a wrong answer with OpenSSH's prompt and no other message; and, with no controlling
 * terminal at all ({@code setsid}) and a DISPLAY, through {@code SSH_ASKPASS} (OpenSSH's default rule, not
 * {@code SSH_ASKPASS_REQUIRE=force}), wrong then right.
 */
class PassphrasePromptTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String RIGHT = "right horse battery";
    private static final String WRONG = "wrong donkey";

    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private int port;

    @BeforeEach
    void setUp() throws Exception {
        h = new ForwardingHarness(dir);
        key = dir.resolve("id_enc");
        CliHarness.Result k = CliHarness.exec(dir, List.of(CliHarness.SSH_KEYGEN.toString(), "-q", "-t", "ed25519",
                "-N", RIGHT, "-f", key.toString()));
        assertEquals(0, k.rc(), k.all());
        Files.writeString(dir.resolve("authorized_keys"), Files.readString(CliHarness.pub(key)));
        port = h.startSshd(dir.resolve("authorized_keys"));
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private String ssh(String command) {
        return "$PQSSH ssh -F none -o StrictHostKeyChecking=no -o UserKnownHostsFile=" + dir.resolve("kh")
                + " -o PasswordAuthentication=no -o KbdInteractiveAuthentication=no -i " + key + " -p " + port + " "
                + CliHarness.user() + "@127.0.0.1 " + command;
    }

    @Test
    void onTheTerminalWhileStdinIsAPipe() throws Exception {
        String prompt = "Enter passphrase for key '" + key + "': ";
        Path script = TmuxPane.script(dir, "pass.sh", "echo piped-into-stdin | " + ssh("'cat; echo REMOTE-DONE'")
                + "\necho RC=$?");
        try (TmuxPane pane = new TmuxPane(script, 160, 30)) {
            pane.awaitText(WAIT, prompt.strip());
            pane.line(WRONG);
            pane.await(WAIT, "the second prompt", s -> s.split(java.util.regex.Pattern.quote(prompt.strip()), -1)
                    .length == 3);
            pane.line(RIGHT);
            String s = pane.awaitText(WAIT, "RC=");
            assertTrue(s.contains("piped-into-stdin\nREMOTE-DONE\nRC=0"), s);
            assertFalse(s.contains(WRONG) || s.contains(RIGHT), "a passphrase was echoed:\n" + s);
            // as ssh: a wrong passphrase only asks again (no "Bad passphrase" line)
            assertFalse(s.contains("Bad passphrase"), s);
        }
    }

    @Test
    void throughAskpassWithoutATerminal() throws Exception {
        Path asked = dir.resolve("askpass.log");
        // the first call answers wrong, the next ones right; every prompt is recorded
        Path askpass = CliHarness.answeringAskpass(dir, asked, WRONG, RIGHT);
        CliHarness.Result r = CliHarness.shell(dir, Map.of("SSH_ASKPASS", askpass.toString(), "DISPLAY", ":77"),
                "echo piped | setsid -w " + ssh("'cat; tty -s || echo NO-TTY-REMOTE'"));
        assertEquals(0, r.rc(), r.all());
        assertEquals("piped\nNO-TTY-REMOTE", r.out().strip(), r.all());
        assertEquals(List.of("Enter passphrase for key '" + key + "': ", "Enter passphrase for key '" + key + "': "),
                Files.readAllLines(asked), r.all());
    }
}
