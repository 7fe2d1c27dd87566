package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.ProcessIdentity;
import io.pqssh.server.login.SystemAccounts;

/**
 * Issue 20 §1: what a user's session can reach of the root server that started it. The server runs in a child JVM
 * under script(1), so it HAS a controlling terminal, as {@code pqssh server -D} started in a terminal: a session
 * must not share it (sshd's setsid: its own session, no controlling terminal, {@code /dev/tty} ENXIO, so no TIOCSTI
 * into root's shell and no Ctrl-C of root's terminal reaching it); the client's environment ({@code AcceptEnv *})
 * must reach only the user's own process, never one that runs as root before the uid change (proved with glibc's
 * {@code LD_DEBUG_OUTPUT}: every process that sees it writes a file, owned by its uid); no root wrapper process or
 * status file per session; the pty slave is the user's with group tty and mode 0620; no descriptor of the server
 * leaks into the session. OpenSSH's ssh as the client, a test-created account.
 */
class SessionIsolationTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String USER = "pqsi" + Long.toString(ProcessHandle.current().pid(), 36)
            + Integer.toString(RANDOM.nextInt(1 << 20), 36);
    private static final Pattern READY = Pattern.compile("PQSSH-ISOLATION port=(\\d+) pid=(\\d+)");

    /** The server under test, in its own JVM: a system-account server with AcceptEnv * and sshd's prelude. */
    public static final class ServerMain {
        public static void main(String[] args) throws Exception {
            FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", true);
            PqsshServer server = PqsshServer.builder().host("127.0.0.1").port(0)
                    .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                    .publickey(auth.publickey()).logins(LoginPolicy.switchingUsers(SystemAccounts.INSTANCE))
                    .sessionPrelude(SessionPrelude.SSHD_DEFAULTS).acceptEnv(List.of("*")).start();
            System.out.println("PQSSH-ISOLATION port=" + server.port() + " pid=" + ProcessHandle.current().pid());
            System.out.flush();
            // ends when the terminal does (script's stdin closed, or the test kills it)
            while (System.in.read() >= 0) {
                // the keyboard is not the server's business
            }
            server.close();
        }
    }

    @TempDir
    static Path dir;
    private static boolean created;
    private static Process script;
    private static long serverPid;
    private static int port;
    private static Path key;
    private static Path serverTmp;

    @BeforeAll
    static void setUp() throws Exception {
        if (ProcessIdentity.current().uid() != 0) {
            fail("SessionIsolationTest needs root (it creates an account and runs sessions as it); CI runs as root");
        }
        for (String tool : List.of("/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/script", "/usr/sbin/useradd",
                "/usr/bin/ps")) {
            assertTrue(Files.isExecutable(Path.of(tool)), "MISSING " + tool
                    + " (apt-get install openssh-client bsdutils passwd procps)");
        }
        assertEquals(0, run(List.of("/usr/sbin/useradd", "-m", "-s", "/bin/bash", "-p", "*", USER)).rc);
        created = true;
        key = dir.resolve("id");
        assertEquals(0, run(List.of("/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString())).rc);
        Path home = SystemAccounts.INSTANCE.byName(USER).orElseThrow().home();
        Path keys = home.resolve(".ssh/authorized_keys");
        Files.createDirectories(keys.getParent());
        Files.writeString(keys, Files.readString(dir.resolve("id.pub")));
        assertEquals(0, run(List.of("chown", "-R", USER + ":", keys.getParent().toString())).rc);
        // the server's temporary directory, readable by the session: a wait-status file would show there
        serverTmp = Files.createTempDirectory(Path.of("/tmp"), "pqssh-iso-tmp-");
        Files.setPosixFilePermissions(serverTmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> jvm = List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-Djava.io.tmpdir=" + serverTmp,
                "-cp", System.getProperty("java.class.path"), ServerMain.class.getName());
        String cmd = String.join(" ", jvm.stream().map(a -> "'" + a.replace("'", "'\\''") + "'").toList());
        script = new ProcessBuilder("/usr/bin/script", "-qec", cmd, "/dev/null").redirectErrorStream(true).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(script.getInputStream(), StandardCharsets.UTF_8));
        Matcher m = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line; (line = r.readLine()) != null;) {
                    Matcher x = READY.matcher(line);
                    if (x.find()) {
                        return x;
                    }
                }
                return null;
            } catch (java.io.IOException e) {
                return null;
            }
        }).get(90, TimeUnit.SECONDS);
        assertTrue(m != null, "the server under script(1) did not start");
        port = Integer.parseInt(m.group(1));
        serverPid = Long.parseLong(m.group(2));
        // keep draining the terminal's output so the server never blocks on it
        Thread drain = new Thread(() -> {
            try {
                r.transferTo(java.io.Writer.nullWriter());
            } catch (java.io.IOException e) {
                // the terminal went away
            }
        });
        drain.setDaemon(true);
        drain.start();
        // the premise of the first test: the server itself has a controlling terminal
        assertNotEquals("0", stat(serverPid).get(4), "the server under script(1) has no controlling terminal");
    }

    @AfterAll
    static void tearDown() throws Exception {
        try {
            if (serverPid > 0) {
                ProcessHandle.of(serverPid).ifPresent(ProcessHandle::destroy);
            }
            if (script != null) {
                script.destroy();
                if (!script.waitFor(20, TimeUnit.SECONDS)) {
                    script.destroyForcibly();
                }
            }
        } finally {
            if (created) {
                TestAccounts.remove(USER);
            }
            if (serverTmp != null) {
                try (Stream<Path> s = Files.walk(serverTmp)) {
                    for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    /** /proc/PID/stat fields after the command name: state, ppid, pgrp, session, tty_nr, ... */
    private static List<String> stat(long pid) throws Exception {
        String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return List.of(s.substring(s.lastIndexOf(')') + 2).split(" "));
    }

    private record Out(int rc, String out, String err) {
    }

    private static Out run(List<String> cmd) throws Exception {
        Path o = Files.createTempFile(dir, "o", ".txt");
        Path e = Files.createTempFile(dir, "e", ".txt");
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(o.toFile()).redirectError(e.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(cmd + " hangs");
        }
        return new Out(p.exitValue(), Files.readString(o), Files.readString(e));
    }

    private static Out ssh(String tty, List<String> options, String command) throws Exception {
        List<String> c = new ArrayList<>(List.of("/usr/bin/ssh", tty, "-F", "/dev/null", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                "-o", "IdentitiesOnly=yes", "-i", key.toString(), "-p", String.valueOf(port)));
        c.addAll(options);
        c.add(USER + "@127.0.0.1");
        c.add(command);
        return run(c);
    }

    private static String field(String out, String name) {
        Matcher m = Pattern.compile(name + "=\\[([^\\]]*)\\]").matcher(out);
        assertTrue(m.find(), name + " missing in: " + out);
        return m.group(1).strip();
    }

    /** sshd's setsid for a session without a pty: its own session and process group, no controlling terminal. */
    @Test
    void aSessionWithoutPtyHasItsOwnSessionAndNoControllingTerminal() throws Exception {
        Out r = ssh("-T", List.of(), "echo \"PID=[$$]\"; echo \"PS=[$(ps -o sid=,pgid=,tty= -p $$)]\";"
                + " echo \"TTY=[$( (exec 9<>/dev/tty) 2>&1 && echo OPENED)]\"");
        assertEquals(0, r.rc, r.toString());
        String pid = field(r.out, "PID");
        List<String> ps = List.of(field(r.out, "PS").split("\\s+"));
        assertEquals(List.of(pid, pid, "?"), ps, "sid, pgid and tty of the session (sshd: its pid, its pid, ?): "
                + r.out);
        String tty = field(r.out, "TTY");
        assertTrue(tty.contains("No such device or address") && !tty.contains("OPENED"),
                "/dev/tty in a session without pty must fail with ENXIO, not reach the server's terminal: " + tty);
    }

    /** With a pty: the session leader of its own terminal, which belongs to the user (group tty, 0620). */
    @Test
    void aPtySessionLeadsItsOwnTerminalWhichIsTheUsers() throws Exception {
        Out r = ssh("-tt", List.of(), "echo \"PID=[$$]\"; echo \"PS=[$(ps -o sid=,tty= -p $$)]\";"
                + " echo \"TTY=[$(tty)]\"; echo \"STAT=[$(stat -c '%U %G %a' \"$(tty)\")]\"");
        assertEquals(0, r.rc, r.toString());
        String pid = field(r.out, "PID");
        String tty = field(r.out, "TTY");
        assertTrue(tty.startsWith("/dev/pts/"), r.out);
        assertEquals(List.of(pid, tty.substring("/dev/".length())), List.of(field(r.out, "PS").split("\\s+")),
                r.out);
        assertEquals(USER + " tty 620", field(r.out, "STAT"), "sshd's pty_setowner: user, group tty, 0620");
    }

    /**
     * The client's environment (AcceptEnv *) reaches the user's process, and no process running as root: glibc's
     * dynamic loader honours LD_DEBUG_OUTPUT in every process that has it in its environment (none is setuid
     * here), and the file it writes is owned by that process's uid. An unknown LANG must not make anything print
     * locale warnings.
     */
    @Test
    void theClientsEnvironmentReachesOnlyTheUsersOwnProcess() throws Exception {
        Path ld = Files.createTempDirectory(Path.of("/tmp"), "pqssh-iso-ld-");
        try {
            Files.setPosixFilePermissions(ld, PosixFilePermissions.fromString("rwxrwxrwx"));
            // and more than a pipe holds (64 KiB), which the server writes while the trampoline reads
            String big = " BIG1=" + "x".repeat(20000) + " BIG2=" + "y".repeat(20000) + " BIG3=" + "z".repeat(20000)
                    + " BIG4=" + "w".repeat(20000);
            Out r = ssh("-T", List.of("-o", "SetEnv=LD_DEBUG=libs LD_DEBUG_OUTPUT=" + ld.resolve("ld")
                    + " LANG=xx_YY.UTF-8 IFS=x POSIXLY_CORRECT=1 e=x REPLY=x PQSSH_MARK=seen" + big),
                    "echo \"MARK=[$PQSSH_MARK]\"; echo \"BIG=[${#BIG1} ${#BIG4} ${BIG4:0:3}]\"");
            assertEquals(0, r.rc, r.toString());
            assertEquals("seen", field(r.out, "MARK"), "AcceptEnv * must still pass the client's variables");
            assertEquals("20000 20000 www", field(r.out, "BIG"), "80 kB of the client's environment");
            assertFalse(r.err.contains("warning"), "locale warnings from a process that is not the user's: " + r.err);
            List<String> owners = new ArrayList<>();
            try (Stream<Path> s = Files.list(ld)) {
                for (Path p : s.toList()) {
                    owners.add(Files.getOwner(p).getName() + ":" + p.getFileName());
                }
            }
            assertFalse(owners.isEmpty(), "the user's own process did not get LD_DEBUG_OUTPUT");
            assertTrue(owners.stream().allMatch(o -> o.startsWith(USER + ":")),
                    "a process running as root saw the client's environment: " + owners);
        } finally {
            try (Stream<Path> s = Files.list(ld)) {
                for (Path p : s.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(ld);
        }
    }

    /**
     * The session's process is the server's own child (no root wrapper in between), no status file is kept for
     * it, and it inherits no descriptor of the server beyond its stdin, stdout and stderr.
     */
    @Test
    void noWrapperNoStatusFileAndNoLeakedDescriptors() throws Exception {
        for (String tty : List.of("-T", "-tt")) {
            Out r = ssh(tty, List.of(), "echo \"PPID=[$PPID]\"; echo \"TMP=[$(ls -A " + serverTmp
                    + " | tr '\\n' ' ')]\"");
            assertEquals(0, r.rc, r.toString());
            assertEquals(Long.toString(serverPid), field(r.out, "PPID"), tty + ": a process between the server and"
                    + " the session: " + r.out);
            assertEquals("", field(r.out, "TMP"), tty + ": files the server keeps per session");
            // ls in the session's own process (exec): what it inherited, plus the directory it reads
            Out fds = ssh(tty, List.of(), "exec ls -l /proc/self/fd");
            assertEquals(0, fds.rc, fds.toString());
            Matcher m = Pattern.compile("(\\d+) -> (\\S+)").matcher(fds.out);
            List<String> open = new ArrayList<>();
            while (m.find()) {
                if (!m.group(2).startsWith("/proc/")) {
                    open.add(m.group(1));
                }
            }
            assertEquals(List.of("0", "1", "2"), open, tty + ": descriptors of the session's process: " + fds.out);
        }
    }
}
