package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.WrongPassphraseException;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;

/**
 * {@code pqssh keygen} asks for passphrases on a real terminal (tmux gives the process a pty): twice, without
 * echo, retrying on a mismatch, empty meaning unencrypted; {@code -p} asks for the old and the new one.
 */
class KeygenPromptTest {
    private static final Path TMUX = Path.of("/usr/bin/tmux");
    private static final Duration WAIT = Duration.ofSeconds(40);

    /** One tmux server on its own socket, running one command in a pty; killed by the test that made it. */
    private static final class Tty implements AutoCloseable {
        private final String socket;
        private final Path dir;

        Tty(Path dir, List<String> command) throws Exception {
            CliHarness.requireBinary(TMUX, "tmux");
            this.dir = dir;
            this.socket = "pqssh-keygen-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            StringBuilder sh = new StringBuilder();
            for (String c : command) {
                sh.append('\'').append(c.replace("'", "'\\''")).append("' ");
            }
            sh.append("; echo EXIT=$?; sleep 60");
            tmux("new-session", "-d", "-x", "200", "-y", "50", sh.toString());
        }

        String screen() throws Exception {
            return tmux("capture-pane", "-p", "-J", "-S", "-100");
        }

        void waitFor(String text) throws Exception {
            CliHarness.waitUntil(WAIT, () -> {
                try {
                    return screen().contains(text);
                } catch (Exception e) {
                    return false;
                }
            }, () -> {
                try {
                    return "'" + text + "' never appeared; screen:\n" + screen();
                } catch (Exception e) {
                    return e.toString();
                }
            });
        }

        /** Types a line (literally) and Enter. */
        void type(String line) throws Exception {
            if (!line.isEmpty()) {
                tmux("send-keys", "-l", line);
            }
            tmux("send-keys", "Enter");
        }

        private String tmux(String... args) throws Exception {
            List<String> cmd = new ArrayList<>(List.of(TMUX.toString(), "-L", socket));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("tmux did not answer: " + cmd);
            }
            String out = new String(p.getInputStream().readAllBytes());
            if (p.exitValue() != 0) {
                throw new AssertionError("tmux failed (" + p.exitValue() + "): " + cmd + "\n" + out);
            }
            return out;
        }

        @Override
        public void close() throws Exception {
            tmux("kill-server");
        }
    }

    private static List<String> pqssh(String... args) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), "io.pqssh.cli.Main"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void asksTwiceWithoutEchoRetriesOnMismatchAndEncrypts(@TempDir Path dir) throws Exception {
        Path key = dir.resolve("id_ed25519");
        try (Tty t = new Tty(dir, pqssh("keygen", "-t", "ed25519", "-C", "prompted", "-f", key.toString()))) {
            t.waitFor("Enter passphrase for \"" + key + "\" (empty for no passphrase):");
            t.type("first secret");
            t.waitFor("Enter same passphrase again:");
            t.type("not the same");
            t.waitFor("Passphrases do not match.  Try again.");
            t.type("correct horse");
            CliHarness.waitUntil(WAIT, () -> {
                try {
                    return t.screen().split("Enter same passphrase again:", -1).length == 3;
                } catch (Exception e) {
                    return false;
                }
            }, () -> "second confirmation prompt missing");
            t.type("correct horse");
            t.waitFor("EXIT=0");
            String screen = t.screen();
            assertFalse(screen.contains("correct horse") || screen.contains("first secret"),
                    "passphrase echoed:\n" + screen);
        }
        String text = Files.readString(key);
        assertTrue(OpenSshKeyV1.isEncrypted(text));
        assertEquals("prompted", OpenSshKeyV1.read(text, "correct horse".toCharArray()).comment());
        assertThrows(WrongPassphraseException.class, () -> OpenSshKeyV1.read(text, "first secret".toCharArray()));
    }

    @Test
    void emptyPassphraseWritesAnUnencryptedKeyAndMinusPChangesIt(@TempDir Path dir) throws Exception {
        Path key = dir.resolve("id_mlkem768");
        try (Tty t = new Tty(dir, pqssh("keygen", "-t", "mlkem768", "-f", key.toString()))) {
            t.waitFor("(empty for no passphrase):");
            t.type("");
            t.waitFor("Enter same passphrase again:");
            t.type("");
            t.waitFor("EXIT=0");
        }
        assertFalse(OpenSshKeyV1.isEncrypted(Files.readString(key)));
        try (Tty t = new Tty(dir, pqssh("keygen", "-p", "-f", key.toString()))) {
            t.waitFor("Enter new passphrase (empty for no passphrase):");
            t.type("now set");
            t.waitFor("Enter same passphrase again:");
            t.type("now set");
            t.waitFor("EXIT=0");
        }
        assertTrue(OpenSshKeyV1.isEncrypted(Files.readString(key)));
        try (Tty t = new Tty(dir, pqssh("keygen", "-p", "-f", key.toString()))) {
            t.waitFor("Enter old passphrase:");
            t.type("now set");
            t.waitFor("Enter new passphrase (empty for no passphrase):");
            t.type("changed");
            t.waitFor("Enter same passphrase again:");
            t.type("changed");
            t.waitFor("EXIT=0");
        }
        OpenSshKeyV1.read(Files.readString(key), "changed".toCharArray()).destroy();
        // without a terminal nothing is asked and nothing is written
        Path other = dir.resolve("id_other");
        CliHarness.Result r = CliHarness.pqssh("keygen", "-t", "ed25519", "-f", other.toString());
        assertTrue(r.rc() != 0 && r.err().contains("no terminal"), r.all());
        assertFalse(Files.exists(other));
    }
}
