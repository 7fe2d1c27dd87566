package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ProxyCommand}: the SSH connection over a command's stdin and stdout, with real proxies — OpenSSH's
 * {@code ssh -W} and {@code pqssh ssh -W} through a hop — to Debian's sshd and to {@code pqssh server}; the tokens
 * and ssh's {@code exec}; the proxy process gone once the session ends; the host name check before anything reaches
 * a shell; and ssh's own lines when the command exits without a server behind it (compared with OpenSSH's ssh).
 */
class ProxyCommandTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private Path knownHosts;
    private int sshd;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        key = h.userKey();
        knownHosts = dir.resolve("known_hosts");
        sshd = h.startSshd(h.authorizedKeys());
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    /** A config both OpenSSH's ssh and pqssh read: {@code hop} is the sshd, the rest is per test. */
    private Path config(String... more) throws Exception {
        Path cfg = dir.resolve("ssh_config");
        List<String> lines = new java.util.ArrayList<>(List.of(
                "Host hop", "    HostName 127.0.0.1", "    Port " + sshd,
                "Host *", "    IdentityFile " + key, "    IdentitiesOnly yes", "    StrictHostKeyChecking accept-new",
                "    UserKnownHostsFile " + knownHosts, "    User " + CliHarness.user(), "    BatchMode yes"));
        lines.addAll(List.of(more));
        lines.add("");
        Files.writeString(cfg, String.join("\n", lines));
        return cfg;
    }

    private Path script(String name, String body) throws Exception {
        Path s = dir.resolve(name);
        Files.writeString(s, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("rwx------"));
        return s;
    }

    @Test
    void throughOpenSshStdioForwardingToSshdAndToPqsshServer() throws Exception {
        int pqssh = h.startServer(h.authorizedKeys());
        Path cfg = dir.resolve("ssh_config");
        config("Host to-sshd", "    HostName 127.0.0.1", "    Port " + sshd,
                "    ProxyCommand /usr/bin/ssh -F " + cfg + " -W %h:%p hop",
                "Host to-pqssh", "    HostName 127.0.0.1", "    Port " + pqssh,
                "    ProxyCommand /usr/bin/ssh -F " + cfg + " -W %h:%p hop");

        CliHarness.Result a = CliHarness.pqssh("ssh", "-F", cfg.toString(), "to-sshd", "echo via-sshd; exit 3");
        assertEquals(3, a.rc(), a.all());
        assertEquals("via-sshd", a.out().strip(), a.all());

        CliHarness.Result b = CliHarness.pqssh("ssh", "-F", cfg.toString(), "-v", "to-pqssh", "echo via-pqssh");
        assertEquals(0, b.rc(), b.all());
        assertEquals("via-pqssh", b.out().strip(), b.all());
        assertTrue(b.err().contains("debug1: Executing proxy command: exec /usr/bin/ssh -F " + cfg + " -W 127.0.0.1:"
                + pqssh + " hop"), b.all());
        assertTrue(b.err().contains("Authenticated to 127.0.0.1 (via proxy)"), b.all());
        // the destination's key is recorded under the destination's name, never the proxy's
        assertTrue(CliHarness.read(knownHosts).contains("[127.0.0.1]:" + pqssh + " "), CliHarness.read(knownHosts));

        // ProxyCommand none on the command line wins over the file's: a direct connection
        CliHarness.Result c = CliHarness.pqssh("ssh", "-F", cfg.toString(), "-v", "-o", "ProxyCommand=none",
                "to-sshd", "echo direct");
        assertEquals(0, c.rc(), c.all());
        assertFalse(c.err().contains("Executing proxy command"), c.all());
        assertTrue(c.err().contains("Authenticated to 127.0.0.1 ([127.0.0.1]:" + sshd + ")"), c.all());
    }

    @Test
    void throughPqsshStdioForwarding() throws Exception {
        int pqssh = h.startServer(h.authorizedKeys());
        Path cfg = dir.resolve("ssh_config");
        config("Host pqhop", "    HostName 127.0.0.1", "    Port " + pqssh,
                "Host dest", "    HostName 127.0.0.1", "    Port " + sshd,
                "    ProxyCommand " + CliHarness.pqsshCommandLine() + " ssh -F " + cfg + " -W %h:%p pqhop");
        CliHarness.Result r = CliHarness.pqssh("ssh", "-F", cfg.toString(), "dest", "echo through-pqssh-W");
        assertEquals(0, r.rc(), r.all());
        assertEquals("through-pqssh-W", r.out().strip(), r.all());
        assertTrue(CliHarness.read(h.sshdLog()).contains("Accepted publickey for " + CliHarness.user()),
                CliHarness.read(h.sshdLog()));
    }

    @Test
    void tokensExecAndTheProxyIsGoneAfterTheSession() throws Exception {
        Path cfg = dir.resolve("ssh_config");
        Path args = dir.resolve("proxy-args");
        // stays alive after its ssh -W ends (exec sleep, same pid): only the client's hang-up ends it early
        Path proxy = script("proxy.sh", "echo \"$$ $*\" > " + args + "\n/usr/bin/ssh -F " + cfg
                + " -W \"$1:$3\" hop\nexec sleep 120");
        config("Host tok", "    HostName 127.0.0.1", "    Port " + sshd,
                "    ProxyCommand " + proxy + " %h %n %p %r %%");
        CliHarness.Result r = CliHarness.pqssh("ssh", "-F", cfg.toString(), "tok", "echo tokens");
        assertEquals(0, r.rc(), r.all());
        assertEquals("tokens", r.out().strip(), r.all());
        String[] words = CliHarness.read(args).strip().split(" ");
        assertEquals(List.of("127.0.0.1", "tok", String.valueOf(sshd), CliHarness.user(), "%"),
                List.of(words).subList(1, words.length), CliHarness.read(args));
        // "exec COMMAND" as ssh: the shell is replaced, so the process the client started is the script itself
        long pid = Long.parseLong(words[0]);
        CliHarness.waitUntil(Duration.ofSeconds(15), () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true),
                () -> "the proxy command (pid " + pid + ") is still running after the session ended");
    }

    @Test
    void aHostNameWithShellMetacharactersIsRefusedBeforeAnyShellRuns() throws Exception {
        Path cfg = config();
        Path ran = dir.resolve("ran");
        Path evil = dir.resolve("evil");
        for (String host : List.of("x;touch " + evil, "x$(touch " + evil + ")", "x`touch " + evil + "`",
                "-oProxyCommand=x", "a b")) {
            CliHarness.Result r = CliHarness.pqssh("ssh", "-F", cfg.toString(), "-o", "ProxyCommand=touch " + ran
                    + " %h", "--", host, "true");
            assertEquals(255, r.rc(), r.all());
            assertEquals("pqssh: hostname contains invalid characters", r.err().strip(), r.all());
            // OpenSSH's ssh refuses the same names with the same words
            CliHarness.Result o = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", cfg.toString(), "-o",
                    "ProxyCommand=touch " + ran + " %h", "--", host, "true"));
            assertEquals(255, o.rc(), o.all());
            assertTrue(o.err().contains("hostname contains invalid characters"), o.all());
        }
        CliHarness.Result u = CliHarness.pqssh("ssh", "-F", cfg.toString(), "-o", "ProxyCommand=touch " + ran
                + " %r", "-l", "u;touch " + evil, "hop", "true");
        assertEquals(255, u.rc(), u.all());
        assertEquals("pqssh: remote username contains invalid characters", u.err().strip(), u.all());
        assertFalse(Files.exists(ran), "a proxy command ran");
        assertFalse(Files.exists(evil), "a shell ran the host name");
    }

    @Test
    void aCommandThatExitsGivesSshsLines() throws Exception {
        Path cfg = config("Host gone", "    ProxyCommand /bin/true %h");
        List<String> want = List.of("kex_exchange_identification: Connection closed by remote host",
                "Connection closed by UNKNOWN port 65535");
        CliHarness.Result o = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", cfg.toString(), "gone",
                "true"));
        assertEquals(255, o.rc(), o.all());
        assertEquals(want, o.err().lines().filter(l -> !l.startsWith("Pseudo-terminal")).toList(), o.all());
        CliHarness.Result r = CliHarness.pqssh("ssh", "-F", cfg.toString(), "gone", "true");
        assertEquals(255, r.rc(), r.all());
        // (the earlier tests' servers run in this JVM and may still log their ends to the same stderr)
        assertEquals(want, r.err().lines().filter(l -> !l.matches("\\d\\d:\\d\\d:\\d\\d\\..*")).toList(),
                r.all());

        CliHarness.Result token = CliHarness.pqssh("ssh", "-F", cfg.toString(), "-o", "ProxyCommand=echo %u", "gone",
                "true");
        assertEquals(255, token.rc(), token.all());
        assertTrue(token.err().contains("unknown key %u"), token.all());
    }

    /**
     * {@code ProxyUseFdpass yes}: a proxy (Python's socket.send_fds) connects to the server and passes the socket back
     * over its stdout; pqssh logs in over that socket, to sshd and to pqssh server. A command that passes nothing back
     * gives ssh's two lines and 255 (compared with OpenSSH's ssh on the same config).
     */
    @Test
    void proxyUseFdpassTakesTheSocketTheCommandPassesBack() throws Exception {
        java.nio.file.Path python = java.nio.file.Path.of("/usr/bin/python3");
        CliHarness.requireBinary(python, "python3-minimal");
        int pqssh = h.startServer(h.authorizedKeys());
        Path dialer = dir.resolve("fdpass.py");
        Files.writeString(dialer, "import socket, sys\n"
                + "s = socket.create_connection((sys.argv[1], int(sys.argv[2])))\n"
                + "socket.send_fds(socket.socket(fileno=1), [b'\\0'], [s.fileno()])\n");
        Path cfg = config("Host fd-*", "    HostName 127.0.0.1", "    ProxyUseFdpass yes",
                "    ProxyCommand " + python + " " + dialer + " %h %p",
                "Host fd-sshd", "    Port " + sshd, "Host fd-pqssh", "    Port " + pqssh,
                "Host nothing", "    ProxyUseFdpass yes", "    ProxyCommand /bin/true %h");
        for (String host : List.of("fd-sshd", "fd-pqssh")) {
            CliHarness.Result r = CliHarness.pqssh("ssh", "-F", cfg.toString(), "-v", host, "echo via-fdpass; exit 4");
            assertEquals(4, r.rc(), host + ": " + r.all());
            assertEquals("via-fdpass", r.out().strip(), host + ": " + r.all());
            assertTrue(r.err().contains("Authenticated to 127.0.0.1 (via proxy)"), host + ": " + r.all());
        }

        List<String> want = List.of("mm_receive_fd: recvmsg: expected received 1 got 0",
                "proxy dialer did not pass back a connection");
        CliHarness.Result o = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", cfg.toString(), "nothing",
                "true"));
        assertEquals(255, o.rc(), o.all());
        assertEquals(want, o.err().lines().filter(l -> !l.startsWith("Pseudo-terminal")).toList(), o.all());
        CliHarness.Result r = CliHarness.pqssh("ssh", "-F", cfg.toString(), "nothing", "true");
        assertEquals(255, r.rc(), r.all());
        assertEquals(want, r.err().lines().filter(l -> !l.matches("\\d\\d:\\d\\d:\\d\\d\\..*")).toList(),
                r.all());
    }
}
