package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.ProcessIdentity;
import io.pqssh.server.login.SystemAccounts;

/**
 * Session channel requests on a server that runs logins as their accounts (root, a real account): pty-req (issue
 * 12, server side: OpenSSH's {@code ssh -tt}, driven through tmux, gets a working terminal: arithmetic, tty, login
 * shell, window size and its change, Ctrl-C reaching the remote {@code sleep}, {@code exit 3}; TERM, size and modes
 * from the request), {@code no-pty}/{@code restrict} refusing it for Ed25519 (OpenSSH) and KEM logins (issue 11 §3),
 * {@code signal} with and without a pty, and {@code command=} replacing exec, shell and subsystem.
 */
class SessionRequestsTest {
    private static final Duration T = Duration.ofSeconds(20);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String USER = "pqst" + Long.toString(ProcessHandle.current().pid(), 36)
            + Integer.toString(RANDOM.nextInt(1 << 20), 36);
    private static final String TMUX_SOCKET = "pqssh-pty-" + USER;
    private static final KemKeyPair KEM_FREE = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
    private static final KemKeyPair KEM_NOPTY = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);

    @TempDir
    static Path dir;
    private static boolean created;
    private static PqsshServer server;
    private static Path edFree;
    private static Path edRestrict;
    private static Path edRestrictPty;
    private static Path edForced;

    @BeforeAll
    static void setUp() throws Exception {
        if (ProcessIdentity.current().uid() != 0) {
            fail("SessionRequestsTest needs root (it creates an account with useradd and runs sessions as it);"
                    + " CI runs as root");
        }
        for (String tool : List.of("/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/tmux", "/usr/sbin/useradd")) {
            assertTrue(Files.isExecutable(Path.of(tool)), "MISSING " + tool
                    + " (apt-get install openssh-client tmux passwd)");
        }
        assertEquals(0, run(List.of("/usr/sbin/useradd", "-m", "-s", "/bin/bash", "-p", "*", USER)));
        created = true;
        edFree = keygen("id_free");
        edRestrict = keygen("id_restrict");
        edRestrictPty = keygen("id_restrict_pty");
        edForced = keygen("id_forced");
        Path home = SystemAccounts.INSTANCE.byName(USER).orElseThrow().home();
        Path keys = home.resolve(".ssh/authorized_keys");
        Files.createDirectories(keys.getParent());
        Files.writeString(keys, new KemPublicKey(KemAlgorithm.MLKEM768, KEM_FREE.publicKey()).toLine("free") + "\n"
                + "no-pty " + new KemPublicKey(KemAlgorithm.MLKEM768, KEM_NOPTY.publicKey()).toLine("nopty") + "\n"
                + Files.readString(pub(edFree))
                + "restrict " + Files.readString(pub(edRestrict))
                + "restrict,pty " + Files.readString(pub(edRestrictPty))
                + "command=\"echo FORCED:[$SSH_ORIGINAL_COMMAND]:$(id -un)\" " + Files.readString(pub(edForced)));
        assertEquals(0, run(List.of("chown", "-R", USER + ":", keys.getParent().toString())));
        FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", true);
        server = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                .publickey(auth.publickey()).kem(KemServerSettings.builder().authorizer(auth.kem()).build())
                .logins(LoginPolicy.switchingUsers(SystemAccounts.INSTANCE)).start();
    }

    @AfterAll
    static void tearDown() throws Exception {
        try {
            run(List.of("/usr/bin/tmux", "-L", TMUX_SOCKET, "kill-server"));
            if (server != null) {
                server.close();
            }
        } finally {
            if (created) {
                TestAccounts.remove(USER);
            }
        }
    }

    private static Path pub(Path key) {
        return key.resolveSibling(key.getFileName() + ".pub");
    }

    private static Path keygen(String name) throws Exception {
        Path f = dir.resolve(name);
        assertEquals(0, run(List.of("/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f",
                f.toString())));
        return f;
    }

    private static int run(List<String> cmd) throws Exception {
        return exec(cmd).rc;
    }

    private record Out(int rc, String out, String err) {
    }

    private static Out exec(List<String> cmd) throws Exception {
        return exec(cmd, Path.of("/dev/null"));
    }

    private static Out exec(List<String> cmd, Path stdin) throws Exception {
        Path o = Files.createTempFile(dir, "o", ".txt");
        Path e = Files.createTempFile(dir, "e", ".txt");
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(stdin.toFile()))
                .redirectOutput(o.toFile()).redirectError(e.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(cmd + " hangs");
        }
        return new Out(p.exitValue(), Files.readString(o), Files.readString(e));
    }

    private static List<String> ssh(Path identity, String... tail) {
        List<String> c = new ArrayList<>(List.of("/usr/bin/ssh", "-tt", "-F", "/dev/null", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                "-o", "IdentitiesOnly=yes", "-i", identity.toString(), "-p", String.valueOf(server.port()),
                USER + "@127.0.0.1"));
        c.addAll(List.of(tail));
        return c;
    }

    private static String tmux(String... args) throws Exception {
        List<String> c = new ArrayList<>(List.of("/usr/bin/tmux", "-L", TMUX_SOCKET, "-f", "/dev/null"));
        c.addAll(List.of(args));
        Out r = exec(c);
        assertEquals(0, r.rc, "tmux " + List.of(args) + ": " + r.err);
        return r.out;
    }

    private static String awaitPane(Predicate<String> done, String what) throws Exception {
        long end = System.nanoTime() + T.toNanos();
        String pane = "";
        while (System.nanoTime() < end) {
            pane = tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "t");
            if (done.test(pane)) {
                return pane;
            }
            Thread.sleep(100);
        }
        fail("terminal never showed " + what + "; pane:\n" + pane);
        return pane;
    }

    private static void type(String line) throws Exception {
        tmux("send-keys", "-t", "t", "-l", line);
        tmux("send-keys", "-t", "t", "Enter");
    }

    @Test
    void openSshGetsAWorkingTerminal() throws Exception {
        Path rc = dir.resolve("rc");
        String sshLine = String.join(" ", ssh(edFree));
        tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "30",
                sshLine + "; echo RC=$? > " + rc + "; sleep 60");
        awaitPane(p -> p.contains("$"), "a prompt");
        type("echo M1:$((6*7))");
        awaitPane(p -> p.contains("M1:42"), "6*7 = 42");
        type("echo TTY:$(tty) WHO:$(id -un) TERM:$TERM ARGV0:$0 PWD:$PWD");
        String pane = awaitPane(p -> p.contains("TTY:/dev/pts/"), "a /dev/pts tty");
        assertTrue(pane.contains("WHO:" + USER), pane);
        assertTrue(pane.contains("ARGV0:-bash"), "a login shell (argv[0] -bash): " + pane);
        assertTrue(pane.contains("PWD:" + SystemAccounts.INSTANCE.byName(USER).orElseThrow().home()), pane);
        assertTrue(pane.contains("TERM:screen") || pane.contains("TERM:tmux"), "TERM from the pty-req: " + pane);
        String size = tmux("display-message", "-p", "-t", "t", "#{pane_height} #{pane_width}").strip();
        type("echo SZ:$(stty size)");
        awaitPane(p -> p.contains("SZ:" + size), "stty size " + size);
        tmux("resize-window", "-t", "t", "-x", "120", "-y", "40");
        String size2 = tmux("display-message", "-p", "-t", "t", "#{pane_height} #{pane_width}").strip();
        assertTrue(!size2.equals(size), "tmux did not resize: " + size2);
        type("echo SZ2:$(stty size)");
        awaitPane(p -> p.contains("SZ2:" + size2), "stty size after window-change " + size2);
        type("sleep 100");
        Thread.sleep(700);
        long t0 = System.nanoTime();
        tmux("send-keys", "-t", "t", "C-c");
        type("echo AFTER:$((1+1))");
        awaitPane(p -> p.contains("AFTER:2"), "the prompt back after Ctrl-C");
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(15), "Ctrl-C did not stop sleep 100");
        type("exit 3");
        long end = System.nanoTime() + T.toNanos();
        while (!Files.exists(rc) || Files.readString(rc).isBlank()) {
            assertTrue(System.nanoTime() < end, "ssh did not end after exit 3");
            Thread.sleep(100);
        }
        assertEquals("RC=3", Files.readString(rc).strip());
    }

    @Test
    void noPtyAndRestrictRefuseThePtyForOpenSshEd25519() throws Exception {
        Out free = exec(ssh(edFree, "tty"));
        assertTrue(free.out.startsWith("/dev/pts/"), "unrestricted key: " + free);
        // the server answers CHANNEL_FAILURE; with -tt OpenSSH's ssh then gives up (255), as it does against sshd
        Out r = exec(ssh(edRestrict, "tty"));
        assertTrue(r.err.contains("PTY allocation request failed"), "restrict key got a pty: " + r);
        assertEquals(255, r.rc, "ssh -tt without a pty: " + r);
        assertTrue(!r.out.contains("/dev/pts/"), r.toString());
        Out ptyAgain = exec(ssh(edRestrictPty, "tty"));
        assertTrue(ptyAgain.out.startsWith("/dev/pts/"), "restrict,pty key: " + ptyAgain);
    }

    @Test
    void forcedCommandReplacesExecShellAndSubsystem() throws Exception {
        List<String> noTty = new ArrayList<>(ssh(edForced));
        noTty.set(1, "-T");
        List<String> exec = new ArrayList<>(noTty);
        exec.add("cat /etc/hostname");
        assertEquals("FORCED:[cat /etc/hostname]:" + USER, exec(exec).out.strip(), "exec");
        assertEquals("FORCED:[]:" + USER, exec(noTty).out.strip(), "shell");
        List<String> subsystem = new ArrayList<>(noTty);
        subsystem.add(1, "-s");
        subsystem.add("sftp");
        assertEquals("FORCED:[sftp]:" + USER, exec(subsystem).out.strip(), "subsystem");
    }

    @Test
    void stdinAndItsEofReachACommandWithoutPty() throws Exception {
        Path input = dir.resolve("lines.txt");
        Files.writeString(input, "a\nb\n");
        List<String> cmd = new ArrayList<>(ssh(edFree, "wc -l; echo ERR >&2; exit 5"));
        cmd.set(1, "-T");
        Out r = exec(cmd, input);
        assertEquals("2", r.out.strip(), r.toString());
        assertTrue(r.err.contains("ERR"), "stderr is its own stream: " + r);
        assertEquals(5, r.rc, r.toString());
    }

    @Test
    void noPtyRefusesThePtyForKem() throws Exception {
        assertTrue(kemTty(KEM_FREE).startsWith("/dev/pts/"), "unrestricted KEM key");
        assertTrue(kemTty(KEM_NOPTY).contains("not a tty"), "no-pty KEM key got a pty");
    }

    @Test
    void thePtyHasTheRequestedTermSizeAndModes() throws Exception {
        String out = kemPty(KEM_FREE, "stty size; echo \"$TERM\"; stty -a", ch -> {
            ch.setPtyType("xterm-256color");
            ch.setPtyColumns(132);
            ch.setPtyLines(43);
            ch.setPtyModes(java.util.Map.of(org.apache.sshd.common.channel.PtyMode.VINTR, 24,
                    org.apache.sshd.common.channel.PtyMode.ECHO, 0));
        });
        assertTrue(out.startsWith("43 132\r\nxterm-256color\r\n"), out);
        assertTrue(out.contains("intr = ^X"), "VINTR from the request: " + out);
        assertTrue(out.contains(" -echo "), "ECHO off from the request: " + out);
    }

    @Test
    void signalRequestsReachTheProcessWithAndWithoutPty() throws Exception {
        for (boolean pty : new boolean[] {false, true}) {
            try (PqsshClient c = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                    .warningSink(w -> { }).kemIdentity(KemClientIdentity.of(KEM_FREE)).timeout(T).start();
                    ClientSession s = c.login(USER, "127.0.0.1", server.port());
                    ChannelExec ch = s.createExecChannel("sleep 100 & trap 'echo GOT-USR1; kill $!; exit 7' USR1;"
                            + " echo READY; wait")) {
                ch.setUsePty(pty);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                ch.setOut(out);
                ch.open().verify(T);
                long end = System.nanoTime() + T.toNanos();
                while (!out.toString(StandardCharsets.UTF_8).contains("READY")) {
                    assertTrue(System.nanoTime() < end, "no READY");
                    Thread.sleep(50);
                }
                org.apache.sshd.common.util.buffer.Buffer b = s.createBuffer(
                        org.apache.sshd.common.SshConstants.SSH_MSG_CHANNEL_REQUEST, 32);
                b.putUInt(ch.getRecipient());
                b.putString("signal");
                b.putBoolean(false);
                b.putString("USR1");
                s.writePacket(b);
                ch.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), T);
                assertTrue(out.toString(StandardCharsets.UTF_8).contains("GOT-USR1"), "pty=" + pty + ": " + out);
                assertEquals(Integer.valueOf(7), ch.getExitStatus(), "pty=" + pty);
            }
        }
    }

    /** PrintMotd (with ~/.hushlogin) and PermitUserRC, seen by OpenSSH's ssh; a second server with the prelude. */
    @Test
    void motdOnInteractiveLoginsAndUserRcBeforeTheCommand() throws Exception {
        Path motd = dir.resolve("motd");
        Files.writeString(motd, "PQSSH-MOTD-LINE\n");
        Files.setPosixFilePermissions(motd, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path home = SystemAccounts.INSTANCE.byName(USER).orElseThrow().home();
        Path rc = home.resolve(".ssh/rc");
        Path hush = home.resolve(".hushlogin");
        FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", true);
        for (boolean permitRc : new boolean[] {true, false}) {
            try (PqsshServer srv = PqsshServer.builder().host("127.0.0.1").port(0)
                    .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                    .publickey(auth.publickey()).logins(LoginPolicy.switchingUsers(SystemAccounts.INSTANCE))
                    .sessionPrelude(new SessionPrelude(motd, permitRc, true)).start()) {
                Path exitIn = dir.resolve("exit.in");
                Files.writeString(exitIn, "exit\n");
                List<String> login = withPort(ssh(edFree), srv.port());
                Files.writeString(rc, "echo RC-RAN-$(id -un)\n");
                assertEquals(0, run(List.of("chown", USER + ":", rc.toString())));
                try {
                    Out shell = exec(login, exitIn);
                    assertTrue(shell.out.contains("PQSSH-MOTD-LINE"), "no motd on an interactive login: " + shell.out);
                    List<String> cmd = new ArrayList<>(login);
                    cmd.set(cmd.indexOf("-tt"), "-T");
                    cmd.add("echo CMD-RAN");
                    Out exec = exec(cmd);
                    assertEquals(0, exec.rc, exec.err);
                    assertEquals(permitRc ? "RC-RAN-" + USER + "\nCMD-RAN\n" : "CMD-RAN\n", exec.out,
                            "PermitUserRC " + permitRc + " (and no motd for a command)");
                    List<String> restricted = withPort(ssh(edRestrict), srv.port());
                    restricted.set(restricted.indexOf("-tt"), "-T");
                    restricted.add("echo CMD-RAN");
                    assertEquals("CMD-RAN\n", exec(restricted).out, "a restrict key (no-user-rc) runs no ~/.ssh/rc");
                    Files.writeString(hush, "");
                    Out quiet = exec(login, exitIn);
                    assertTrue(!quiet.out.contains("PQSSH-MOTD-LINE"), "~/.hushlogin must silence the motd: " + quiet.out);
                } finally {
                    Files.deleteIfExists(rc);
                    Files.deleteIfExists(hush);
                }
            }
        }
    }

    private static List<String> withPort(List<String> ssh, int port) {
        List<String> c = new ArrayList<>(ssh);
        c.set(c.indexOf("-p") + 1, Integer.toString(port));
        return c;
    }

    /** sshd's exit-signal: OpenSSH's ssh exits 255 for it; a real exit(137) stays exit status 137. */
    @Test
    void aCommandKilledByASignalGetsExitSignalNotExitStatus() throws Exception {
        List<String> noPty = new ArrayList<>(ssh(edFree));
        noPty.set(noPty.indexOf("-tt"), "-T");
        List<String> killed = new ArrayList<>(noPty);
        killed.add("kill -KILL $$");
        Out k = exec(killed);
        assertEquals(255, k.rc, "ssh exits 255 on exit-signal: " + k.err);
        List<String> exited = new ArrayList<>(noPty);
        exited.add("exit 137");
        assertEquals(137, exec(exited).rc, "exit 137 is an exit status, not a signal");
        List<String> killedWithPty = new ArrayList<>(ssh(edFree));
        killedWithPty.add("kill -KILL $$");
        assertEquals(255, exec(killedWithPty).rc, "with a pty too");
        List<String> exitedWithPty = new ArrayList<>(ssh(edFree));
        exitedWithPty.add("exit 137");
        assertEquals(137, exec(exitedWithPty).rc, "exit 137 with a pty");
        for (String[] c : new String[][] {{"kill -TERM $$", "TERM", null}, {"kill -SEGV $$", "SEGV", null},
                {"exit 143", null, "143"}, {"kill -WINCH $$; exit 3", null, "3"},
                {"pty:kill -HUP $$", "HUP", null}, {"pty:exit 129", null, "129"}}) {
            try (PqsshClient cl = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                    .warningSink(w -> { }).kemIdentity(KemClientIdentity.of(KEM_FREE)).timeout(T).start();
                    ClientSession s = cl.login(USER, "127.0.0.1", server.port());
                    ChannelExec ch = s.createExecChannel(c[0].replace("pty:", ""))) {
                ch.setUsePty(c[0].startsWith("pty:"));
                ch.open().verify(T);
                ch.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), T);
                assertEquals(c[1], ch.getExitSignal(), c[0]);
                assertEquals(c[2] == null ? null : Integer.valueOf(c[2]), ch.getExitStatus(), c[0]);
            }
        }
    }

    private static String kemTty(KemKeyPair key) throws Exception {
        return kemPty(key, "tty", ch -> { });
    }

    private static String kemPty(KemKeyPair key, String command,
            java.util.function.Consumer<ChannelExec> configure) throws Exception {
        try (PqsshClient c = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                .warningSink(w -> { }).kemIdentity(KemClientIdentity.of(key)).timeout(T).start();
                ClientSession s = c.login(USER, "127.0.0.1", server.port());
                ChannelExec ch = s.createExecChannel(command)) {
            ch.setUsePty(true);
            configure.accept(ch);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ch.setOut(out);
            ch.setErr(out);
            ch.open().verify(T);
            ch.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), T);
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
