package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh} in a real terminal (tmux), interactive: against Debian's OpenSSH sshd and against
 * {@code pqssh server}. No command gives a pty with the terminal's size; typed keys echo; Ctrl-C reaches the
 * remote {@code sleep} (the client lives on); a resize reaches the remote pty; the remote exit status is pqssh's;
 * {@code ~.} disconnects; the local terminal settings ({@code stty -a}) are the same before and after.
 */
class SshPtyTmuxTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Process sshd;
    private Thread pqsshServer;

    @AfterEach
    void stop() throws Exception {
        if (sshd != null) {
            sshd.destroy();
            if (!sshd.waitFor(5, TimeUnit.SECONDS)) {
                sshd.destroyForcibly();
            }
        }
        if (pqsshServer != null) {
            pqsshServer.interrupt();
            pqsshServer.join(10_000);
        }
    }

    private Path userKey() throws Exception {
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.writeString(dir.resolve("authorized_keys"), Files.readString(pub(key)));
        return key;
    }

    private int startSshd(Path hostKey) throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        CliHarness.ensureSshdPrivsepDir();
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = CliHarness.freePort();
            Path config = dir.resolve("sshd_config");
            Files.writeString(config, String.join("\n", "ListenAddress 127.0.0.1", "HostKey " + hostKey,
                    "AuthorizedKeysFile " + dir.resolve("authorized_keys"), "StrictModes no", "UsePAM no",
                    "PidFile none", "PermitRootLogin yes", "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no", "AllowUsers " + CliHarness.user(), ""));
            Path log = dir.resolve("sshd.log");
            sshd = new ProcessBuilder(CliHarness.SSHD.toString(), "-D", "-e", "-f", config.toString(), "-p",
                    String.valueOf(port)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            Process p = sshd;
            CliHarness.waitUntil(Duration.ofSeconds(10), () -> !p.isAlive()
                    || CliHarness.read(log).contains("Server listening on 127.0.0.1 port " + port),
                    () -> CliHarness.read(log));
            if (p.isAlive()) {
                return port;
            }
        }
        fail("sshd did not start: " + CliHarness.read(dir.resolve("sshd.log")));
        return -1;
    }

    private int startPqsshServer(Path hostKey) throws Exception {
        Path portFile = dir.resolve("port");
        List<String> args = List.of("server", "-D", "-p", "0", "--port-file", portFile.toString(),
                "-o", "AuthorizedKeysFile=" + dir.resolve("authorized_keys"), "-o", "AuthorizedKEMKeysFile=none",
                "-o", "HostKey=" + hostKey);
        AtomicInteger rc = new AtomicInteger(Integer.MIN_VALUE);
        pqsshServer = new Thread(() -> rc.set(Main.run(args.toArray(String[]::new))), "pqssh-server-pty");
        pqsshServer.setDaemon(true);
        pqsshServer.start();
        CliHarness.waitUntil(Duration.ofSeconds(15),
                () -> !pqsshServer.isAlive() || CliHarness.read(portFile).matches("\\d+\\n"),
                () -> "pqssh server wrote no port file (rc " + rc.get() + ")");
        return Integer.parseInt(CliHarness.read(portFile).strip());
    }

    @Test
    void interactiveSessionAgainstOpenSshSshd() throws Exception {
        Path key = userKey();
        Path hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        interactive(key, hostKey, startSshd(hostKey));
    }

    @Test
    void interactiveSessionAgainstPqsshServer() throws Exception {
        Path key = userKey();
        Path hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        interactive(key, hostKey, startPqsshServer(hostKey));
    }

    private String sshLine(Path key, Path hostKey, int port) throws Exception {
        Path kh = dir.resolve("known_hosts");
        Files.writeString(kh, "[127.0.0.1]:" + port + " " + Files.readString(pub(hostKey)));
        return "$PQSSH ssh -F none -o UserKnownHostsFile=" + kh + " -i " + key + " -p " + port + " "
                + CliHarness.user() + "@127.0.0.1";
    }

    private void interactive(Path key, Path hostKey, int port) throws Exception {
        Path before = dir.resolve("stty.before");
        Path after = dir.resolve("stty.after");
        Path rc = dir.resolve("rc");
        Path script = TmuxPane.script(dir, "session.sh", "stty -a > " + before + "\n"
                + "PS1='local$ ' " + sshLine(key, hostKey, port) + "\n"
                + "echo $? > " + rc + "\nstty -a > " + after + "\necho LOCAL-SCRIPT-DONE");
        try (TmuxPane pane = new TmuxPane(script, 100, 30)) {
            // a prompt-independent marker: the remote shell evaluates the arithmetic
            awaitRemoteShell(pane);
            pane.line("tty; stty size; echo MARK-$((6*7))");
            String s = pane.awaitText(WAIT, "MARK-42");
            assertTrue(s.contains("/dev/pts/"), "no pty on the remote side:\n" + s);
            assertTrue(s.contains("30 100"), "the pty does not have the terminal's size:\n" + s);
            assertTrue(s.contains("echo MARK-$((6*7))"), "typed text not echoed:\n" + s);

            // Ctrl-C goes to the remote sleep; pqssh and the remote shell live on
            pane.line("sleep 100; echo NOT-INTERRUPTED");
            Thread.sleep(1500);
            pane.key("C-c");
            pane.line("echo AFTER-INT-$((1+1))");
            s = pane.awaitText(WAIT, "AFTER-INT-2");
            assertFalse(s.contains("\nNOT-INTERRUPTED"), "Ctrl-C did not interrupt the remote sleep:\n" + s);

            // SIGWINCH: the new size reaches the remote pty
            pane.resize(120, 40);
            Thread.sleep(1000);
            pane.line("stty size; echo SIZE-$((2+2))");
            s = pane.awaitText(WAIT, "SIZE-4");
            assertTrue(s.contains("40 120"), "window change not forwarded:\n" + s);

            pane.line("exit 7");
            pane.awaitText(WAIT, "LOCAL-SCRIPT-DONE");
            assertEquals("7", Files.readString(rc).strip(), pane.screen());
            // the same settings (line speed included); only the size changed, by the resize above
            assertEquals(Files.readString(before).replace("rows 30; columns 100;", "SIZE"),
                    Files.readString(after).replace("rows 40; columns 120;", "SIZE"), "stty -a differs after the session");
        }

        // an unknown host key is asked about on the terminal (StrictHostKeyChecking ask, the default) and recorded;
        // ~? lists the escapes; ~. disconnects (after a newline), exit status 255 as ssh, terminal restored
        Files.deleteIfExists(rc);
        Files.deleteIfExists(after);
        Path freshKnownHosts = dir.resolve("known_hosts_fresh");
        Path askScript = TmuxPane.script(dir, "ask.sh", "stty -a > " + before + "\n"
                + sshLine(key, hostKey, port).replace(dir.resolve("known_hosts").toString(), freshKnownHosts.toString())
                + "\necho $? > " + rc + "\nstty -a > " + after + "\necho LOCAL-SCRIPT-DONE");
        try (TmuxPane pane = new TmuxPane(askScript, 100, 30)) {
            pane.awaitText(WAIT, "Are you sure you want to continue connecting (yes/no/[fingerprint])?");
            pane.line("yes");
            awaitRemoteShell(pane);
            assertTrue(Files.readString(freshKnownHosts).contains("[127.0.0.1]:" + port + " ssh-ed25519 "),
                    Files.readString(freshKnownHosts));
            pane.key("Enter");
            pane.type("~?");
            pane.awaitText(WAIT, "Supported escape sequences:");
            pane.key("Enter");
            pane.type("~.");
            String s = pane.awaitText(WAIT, "LOCAL-SCRIPT-DONE");
            assertTrue(s.contains("Connection to 127.0.0.1 closed."), s);
            assertEquals("255", Files.readString(rc).strip(), s);
            assertEquals(Files.readString(before), Files.readString(after), "stty -a differs after ~.");
            assertTrue(Files.readString(after).contains("speed 38400 baud"), Files.readString(after));
        }
    }

    private static void awaitRemoteShell(TmuxPane pane) throws Exception {
        // retry the marker until the remote shell answers (the JVM and the login take a few seconds)
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            pane.line("echo READY-$((3*3))");
            try {
                pane.awaitText(Duration.ofSeconds(5), "READY-9");
                return;
            } catch (AssertionError e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }
}
