package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interactive {@code pqssh sftp host} (no -b) in a real terminal (tmux), against Debian's OpenSSH sshd with its
 * sftp-server and against {@code pqssh server}: the {@code sftp> } prompt, pwd/cd/lcd/lpwd, put and get (bytes
 * compared) with sftp's progress meter, ls in sftp's columns, mkdir/rm/rmdir, OpenSSH 9.2's messages for a missing
 * file, a bad cd and an unknown command (the session goes on after each), line editing and history, Ctrl-C at the
 * prompt and during a transfer (stopped, the session goes on), the three ways out: Ctrl-D, {@code bye},
 * {@code quit} (status 0), and Ctrl-C during a transfer whose commands come from a pipe (stopped, the pipe read on).
 */
class SftpInteractiveTmuxTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** sftp's finished meter line for local.bin in a 100-column terminal: name in 65 columns, 100%, size, rate, time. */
    private static final String METER = "local\\.bin {56} 100%  293KB +[0-9.]+[KMG]B/s   00:\\d\\d *\nsftp> ";

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
        session(h.startSshd(h.authorizedKeys(), "Subsystem sftp /usr/lib/openssh/sftp-server"), "bye");
    }

    @Test
    void againstPqsshServer() throws Exception {
        session(h.startServer(h.authorizedKeys()), "quit");
    }

    private void session(int port, String quitCommand) throws Exception {
        Path remote = Files.createDirectories(dir.resolve("remote")).toRealPath();
        Path local = Files.createDirectories(dir.resolve("local")).toRealPath();
        Path down = Files.createDirectories(dir.resolve("down")).toRealPath();
        byte[] data = new byte[300_000];
        new SecureRandom().nextBytes(data);
        Files.write(local.resolve("local.bin"), data);
        String sftp = "$PQSSH sftp -P " + port + " -i " + key + " -o StrictHostKeyChecking=no -o UserKnownHostsFile="
                + dir.resolve("known_hosts") + " " + CliHarness.user() + "@127.0.0.1";
        // the third session reads commands from a pipe whose writer ignores Ctrl-C and waits for the test's "go" file
        Path go = dir.resolve("go");
        String feeder = "(trap '' INT; echo 'cd " + remote + "'; echo 'get big.sparse'; i=0; while [ ! -e " + go
                + " ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; echo lpwd)";
        Path script = TmuxPane.script(dir, "sftp.sh", "cd " + local + "\n" + sftp + "\necho RC1=$?\n" + sftp
                + "\necho RC2=$?\n" + feeder + " | " + sftp + "\necho RC3=$?");
        try (TmuxPane pane = new TmuxPane(script, 100, 40)) {
            pane.await(WAIT, "the first prompt", s -> s.contains("Connected to 127.0.0.1.\nsftp> "));
            command(pane, "pwd");
            String home = Path.of(System.getProperty("user.home")).toRealPath().toString();
            pane.awaitText(WAIT, "Remote working directory: " + home + "\nsftp> ");
            command(pane, "cd " + remote);
            command(pane, "pwd");
            pane.awaitText(WAIT, "Remote working directory: " + remote + "\nsftp> ");

            command(pane, "put local.bin");
            // sftp's progress meter on a terminal: name, 100%, size, rate, time (the pane is 100 columns wide)
            pane.await(WAIT, "put's progress meter", s -> Pattern.compile("Uploading local\\.bin to "
                    + Pattern.quote(remote + "/local.bin") + "\n" + METER).matcher(s).find());
            assertArrayEquals(data, Files.readAllBytes(remote.resolve("local.bin")), "put: bytes differ");

            command(pane, "mkdir sub");
            command(pane, "ls");
            // sftp's columns: width / (longest name + 2) columns, each width / columns wide (100 / 9 = 11)
            pane.awaitText(WAIT, "sftp> ls\nlocal.bin  sub");
            assertTrue(Files.isDirectory(remote.resolve("sub")), "mkdir did not create the directory");

            command(pane, "lcd " + down);
            command(pane, "lpwd");
            pane.awaitText(WAIT, "Local working directory: " + down + "\nsftp> ");
            command(pane, "get local.bin copy.bin");
            pane.await(WAIT, "get's progress meter", s -> Pattern.compile("Fetching "
                    + Pattern.quote(remote + "/local.bin") + " to copy\\.bin\n" + METER).matcher(s).find());
            assertArrayEquals(data, Files.readAllBytes(down.resolve("copy.bin")), "get: bytes differ");

            // errors are reported with OpenSSH's text and the prompt comes back
            command(pane, "get nope");
            pane.awaitText(WAIT, "sftp> get nope\nFile \"" + remote + "/nope\" not found.\nsftp> ");
            command(pane, "cd nope");
            pane.awaitText(WAIT, "sftp> cd nope\nstat remote: No such file or directory\nsftp> ");
            command(pane, "frobnicate");
            pane.awaitText(WAIT, "sftp> frobnicate\nInvalid command.\nsftp> ");

            command(pane, "rm local.bin");
            pane.awaitText(WAIT, "Removing " + remote + "/local.bin\nsftp> ");
            command(pane, "rmdir sub");
            command(pane, "ls -1");
            pane.awaitText(WAIT, "sftp> ls -1\nsftp> ");
            assertFalse(Files.exists(remote.resolve("local.bin")), "rm did not remove the file");
            assertFalse(Files.exists(remote.resolve("sub")), "rmdir did not remove the directory");

            // line editing and history (JLine, as sftp's libedit): Left moves back into the line, Up recalls it
            // (JLine redraws an edited line padded with blanks to the terminal's width)
            Pattern pwdOutput = Pattern.compile("sftp> pwd *\nRemote working directory: " + Pattern.quote(
                    remote.toString()) + "\n");
            awaitPrompt(pane);
            pane.type("pd");
            pane.key("Left");
            pane.type("w");
            pane.key("Enter");
            pane.await(WAIT, "the edited pwd", s -> count(s, pwdOutput) == 2);
            awaitPrompt(pane);
            pane.key("Up");
            pane.key("Enter");
            pane.await(WAIT, "pwd again from the history", s -> count(s, pwdOutput) == 3);
            // Ctrl-C at the prompt drops the line; the session goes on
            awaitPrompt(pane);
            pane.type("rm x");
            pane.key("C-c");
            command(pane, "lpwd");
            Pattern lpwdOutput = Pattern.compile("sftp> lpwd *\nLocal working directory: "
                    + Pattern.quote(down.toString()) + "\n");
            pane.await(WAIT, "lpwd after Ctrl-C at the prompt", s -> count(s, lpwdOutput) == 2);

            // Ctrl-C during a transfer stops it ("Interrupt"), the prompt comes back and the session goes on
            Path big = remote.resolve("big.sparse");
            try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
                f.setLength(1L << 30); // sparse: no disk used on the remote side
            }
            command(pane, "get big.sparse");
            Path partial = down.resolve("big.sparse");
            CliHarness.waitUntil(WAIT, () -> Files.exists(partial) && partial.toFile().length() > 1_000_000,
                    () -> "the download did not start");
            pane.key("C-c");
            // (as sftp: "\rInterrupt  \n" on stderr, then the meter's last line, then the prompt)
            pane.await(WAIT, "Interrupt and the prompt", s -> s.contains("Interrupt  ")
                    && s.stripTrailing().endsWith("sftp>"));
            long stopped = Files.size(partial);
            assertTrue(stopped < 1L << 30, "the download was not interrupted");
            command(pane, "lpwd");
            pane.await(WAIT, "lpwd after Ctrl-C during get", s -> count(s, lpwdOutput) == 3);
            assertEquals(stopped, Files.size(partial), "the download went on after Interrupt");
            Files.delete(partial);

            // Ctrl-D on an empty line ends the session with status 0
            awaitPrompt(pane);
            pane.key("C-d");
            pane.awaitText(WAIT, "RC1=0");

            // the second session ends with bye or quit
            pane.await(WAIT, "the second prompt", s -> s.split("Connected to 127.0.0.1.\nsftp> ", -1).length == 3);
            command(pane, quitCommand);
            String s = pane.awaitText(WAIT, "RC2=");
            assertTrue(s.contains("sftp> " + quitCommand + "\nRC2=0"), s);
            assertEquals(2, s.substring(0, s.indexOf("RC2=")).split("Connected to 127.0.0.1.", -1).length - 1, s);

            // commands from a pipe: Ctrl-C stops the transfer ("Interrupt") and the session reads on, as sftp
            Path piped = local.resolve("big.sparse");
            CliHarness.waitUntil(WAIT, () -> Files.exists(piped) && piped.toFile().length() > 1_000_000,
                    () -> "the piped download did not start");
            pane.key("C-c");
            pane.await(WAIT, "Interrupt in the piped session", t -> t.split("Interrupt  ", -1).length == 3);
            long piecePiped = Files.size(piped);
            assertTrue(piecePiped < 1L << 30, "the piped download was not interrupted");
            Files.writeString(go, "");
            String end = pane.awaitText(WAIT, "RC3=");
            assertTrue(end.contains("sftp> lpwd\nLocal working directory: " + local + "\nRC3=0"), end);
            assertEquals(piecePiped, Files.size(piped), "the piped download went on after Interrupt");
            Files.delete(piped);
            Files.delete(big);
        }
    }

    /** Waits for the prompt at the end of the screen, then types a command (no typeahead, as a person would). */
    private static void command(TmuxPane pane, String line) throws Exception {
        awaitPrompt(pane);
        String echoed = "sftp> " + line;
        int before = pane.screen().split(java.util.regex.Pattern.quote(echoed), -1).length;
        pane.line(line);
        pane.await(WAIT, "the echo of '" + line + "'",
                s -> s.split(java.util.regex.Pattern.quote(echoed), -1).length > before);
    }

    private static long count(String screen, Pattern p) {
        return p.matcher(screen).results().count();
    }

    private static void awaitPrompt(TmuxPane pane) throws Exception {
        pane.await(WAIT, "the prompt", s -> s.stripTrailing().endsWith("sftp>"));
    }
}
