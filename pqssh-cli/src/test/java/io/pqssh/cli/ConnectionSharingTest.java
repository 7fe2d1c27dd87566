package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connection sharing (issue 21) against real OpenSSH: OpenSSH 9.2's ssh as a client of a {@code pqssh ssh} master
 * (PROTOCOL.mux, stdio passed as file descriptors), {@code pqssh ssh} as a client of OpenSSH's master, ControlPersist
 * with a {@code %C} path both programs compute alike, stale sockets, and the master's SO_PEERCRED check. Debian's
 * sshd on loopback is the server; its log counts the logins, so a shared session is seen not to log in again.
 * pqssh runs as its own process here: a mux client hands over its real stdin, stdout and stderr.
 */
class ConnectionSharingTest {
    private static final Pattern MASTER_PID = Pattern.compile("Master running \\(pid=(\\d+)\\)");

    @TempDir
    Path dir;

    private Path userKey;
    private Path authorizedKeys;
    private Process sshd;
    private Path sshdLog;
    private int port;
    private final List<Long> masters = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        CliHarness.ensureSshdPrivsepDir();
        userKey = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        authorizedKeys = dir.resolve("authorized_keys");
        Files.writeString(authorizedKeys, Files.readString(pub(userKey)));
        Path hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        port = startSshd(hostKey);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (long pid : masters) {
            // a master a failed assertion left running: ours, by the pid it reported
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        }
        if (sshd != null) {
            sshd.destroy();
            if (!sshd.waitFor(5, TimeUnit.SECONDS)) {
                sshd.destroyForcibly();
            }
        }
    }

    private int startSshd(Path hostKey) throws Exception {
        for (int attempt = 0; attempt < 3; attempt++) {
            int p = CliHarness.freePort();
            Path config = dir.resolve("sshd_config");
            Files.writeString(config, String.join("\n", "ListenAddress 127.0.0.1", "HostKey " + hostKey,
                    "AuthorizedKeysFile " + authorizedKeys, "StrictModes no", "UsePAM no", "PidFile none",
                    "PermitRootLogin yes", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
                    "AllowUsers " + CliHarness.user(), "AcceptEnv MUXTEST_*", ""));
            sshdLog = dir.resolve("sshd-" + p + ".log");
            sshd = new ProcessBuilder(CliHarness.SSHD.toString(), "-D", "-e", "-f", config.toString(), "-p",
                    String.valueOf(p)).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(sshdLog.toFile()).start();
            Process s = sshd;
            CliHarness.waitUntil(Duration.ofSeconds(10), () -> !s.isAlive()
                    || CliHarness.read(sshdLog).contains("Server listening on 127.0.0.1 port " + p),
                    () -> "sshd did not start:\n" + CliHarness.read(sshdLog));
            if (s.isAlive()) {
                return p;
            }
        }
        fail("sshd would not start:\n" + CliHarness.read(sshdLog));
        return -1;
    }

    /** The options both clients get: this test's key and known_hosts, no config file, no prompts. */
    private String common() {
        return "-F none -p " + port + " -i " + userKey + " -o UserKnownHostsFile=" + dir.resolve("known_hosts")
                + " -o StrictHostKeyChecking=accept-new -o BatchMode=yes -o ConnectTimeout=20";
    }

    private String dest() {
        return CliHarness.user() + "@127.0.0.1";
    }

    private CliHarness.Result sh(String script) throws Exception {
        return CliHarness.shell(dir, Map.of(), script);
    }

    private int logins() {
        return (int) CliHarness.read(sshdLog).lines().filter(l -> l.contains("Accepted publickey for")).count();
    }

    /** {@code ssh -O check} through OpenSSH's own client; records the master's pid for clean-up. */
    private long check(Path socket) throws Exception {
        CliHarness.Result r = sh(CliHarness.SSH + " -S " + socket + " -O check " + dest());
        assertEquals(0, r.rc(), r.all());
        Matcher m = MASTER_PID.matcher(r.err());
        assertTrue(m.find(), r.all());
        long pid = Long.parseLong(m.group(1));
        masters.add(pid);
        return pid;
    }

    /** {@code pqssh ssh -M -S socket -fN}: the master in the background, checked with OpenSSH's -O check; its pid. */
    private long startPqsshMaster(Path socket) throws Exception {
        Path masterLog = dir.resolve("master.log");
        CliHarness.Result m = sh("$PQSSH ssh " + common() + " -M -S " + socket + " -fN " + dest() + " >" + masterLog
                + " 2>&1");
        assertEquals(0, m.rc(), m.all() + CliHarness.read(masterLog));
        return check(socket);
    }

    private static void waitGone(long pid) throws InterruptedException {
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true),
                () -> "master " + pid + " still running");
    }

    @Test
    void openSshClientsShareAPqsshMaster() throws Exception {
        Path socket = dir.resolve("ctl");
        Path masterLog = dir.resolve("master.log");
        CliHarness.Result m = sh("$PQSSH ssh " + common() + " -M -S " + socket + " -fN " + dest() + " >" + masterLog
                + " 2>&1");
        assertEquals(0, m.rc(), m.all() + CliHarness.read(masterLog));
        assertTrue(Files.exists(socket), CliHarness.read(masterLog));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)),
                "the control socket must be the user's alone");
        long pid = check(socket);
        assertEquals(1, logins(), CliHarness.read(sshdLog));

        // stdin, stdout, stderr and the exit status pass through the master
        CliHarness.Result s = sh("printf 'to-the-remote\\n' | " + CliHarness.SSH + " -S " + socket + " " + dest()
                + " 'cat; echo on-stderr >&2; exit 7'");
        assertEquals(7, s.rc(), s.all() + CliHarness.read(masterLog));
        assertEquals("to-the-remote\n", s.out(), s.all());
        assertTrue(s.err().contains("on-stderr"), s.all());
        // environment the master's SendEnv allows (none here: -F none) is not passed; the login is not repeated
        CliHarness.Result t = sh(CliHarness.SSH + " -S " + socket + " " + dest() + " true");
        assertEquals(0, t.rc(), t.all());
        assertEquals(1, logins(), "a shared session must not log in again:\n" + CliHarness.read(sshdLog));

        // -W: a direct-tcpip channel of the master's, here to sshd itself, which greets first
        CliHarness.Result w = sh(CliHarness.SSH + " -S " + socket + " -W 127.0.0.1:" + port + " " + dest());
        assertEquals(0, w.rc(), w.all() + CliHarness.read(masterLog));
        assertTrue(w.out().startsWith("SSH-2.0-OpenSSH"), w.all());

        // -O stop: no new clients, the master stays; -O exit ends it
        CliHarness.Result stop = sh(CliHarness.SSH + " -S " + socket + " -O stop " + dest());
        assertEquals(0, stop.rc(), stop.all());
        assertTrue(stop.err().contains("Stop listening request sent."), stop.all());
        assertFalse(Files.exists(socket), "-O stop removes the socket");
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "-O stop keeps the master");
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        waitGone(pid);

        CliHarness.Result m2 = sh("$PQSSH ssh " + common() + " -o ControlMaster=yes -o ControlPath=" + socket
                + " -fN " + dest() + " >>" + masterLog + " 2>&1");
        assertEquals(0, m2.rc(), m2.all() + CliHarness.read(masterLog));
        long pid2 = check(socket);
        CliHarness.Result exit = sh(CliHarness.SSH + " -S " + socket + " -O exit " + dest());
        assertEquals(0, exit.rc(), exit.all());
        assertTrue(exit.err().contains("Exit request sent."), exit.all());
        waitGone(pid2);
        assertFalse(Files.exists(socket), "the master removes its socket when it ends");
    }

    /**
     * A pty the server refuses (here a {@code no-pty} key) for a client of a master: as OpenSSH 9.2's master, pqssh's
     * writes {@code PTY allocation request failed} (no channel number: it would name the master's channel) to the
     * client's stderr and the session goes on without a pty; both masters, OpenSSH's client and pqssh's.
     */
    @Test
    void aRefusedPtyIsReportedToTheMuxClient() throws Exception {
        Path restricted = CliHarness.sshKeygen(dir.resolve("id_nopty"), "ed25519");
        Files.writeString(authorizedKeys, "no-pty " + Files.readString(pub(restricted)),
                java.nio.file.StandardOpenOption.APPEND);
        String opts = common().replace(userKey.toString(), restricted.toString());
        Path pqSocket = dir.resolve("pq-ctl");
        Path osSocket = dir.resolve("os-ctl");
        CliHarness.Result pm = sh("$PQSSH ssh " + opts + " -M -S " + pqSocket + " -fN " + dest() + " >"
                + dir.resolve("master.log") + " 2>&1");
        assertEquals(0, pm.rc(), pm.all() + CliHarness.read(dir.resolve("master.log")));
        check(pqSocket);
        CliHarness.Result om = sh(CliHarness.SSH + " " + opts + " -M -S " + osSocket + " -fN " + dest()
                + " >/dev/null 2>&1");
        assertEquals(0, om.rc(), om.all());
        check(osSocket);
        Pattern line = Pattern.compile("(?m)^PTY allocation request failed\r?$");
        for (Path socket : List.of(pqSocket, osSocket)) {
            for (String client : List.of(CliHarness.SSH.toString(), "$PQSSH ssh -F none")) {
                CliHarness.Result r = sh(client + " -S " + socket + " -tt " + dest()
                        + " 'tty >/dev/null || echo no-tty; exit 3'");
                String what = client + " via " + socket.getFileName() + ": " + r.all();
                assertEquals(3, r.rc(), what);
                assertTrue(r.out().contains("no-tty"), what);
                assertTrue(line.matcher(r.err()).find(), what);
            }
            sh(CliHarness.SSH + " -S " + socket + " -O exit " + dest());
        }
    }

    @Test
    void pqsshClientSharesAnOpenSshMaster() throws Exception {
        Path socket = dir.resolve("ctl");
        CliHarness.Result m = sh(CliHarness.SSH + " " + common() + " -M -S " + socket + " -fN " + dest()
                + " >/dev/null 2>&1");
        assertEquals(0, m.rc(), m.all());
        check(socket);
        CliHarness.Result s = sh("printf 'through-openssh\\n' | $PQSSH ssh " + common() + " -S " + socket + " "
                + dest() + " 'cat; echo err-line >&2; exit 5'");
        assertEquals(5, s.rc(), s.all());
        assertEquals("through-openssh\n", s.out(), s.all());
        assertTrue(s.err().contains("err-line"), s.all());
        assertEquals(1, logins(), "pqssh must use the master, not log in:\n" + CliHarness.read(sshdLog));

        CliHarness.Result w = sh("$PQSSH ssh " + common() + " -S " + socket + " -W 127.0.0.1:" + port + " "
                + dest());
        assertEquals(0, w.rc(), w.all());
        assertTrue(w.out().startsWith("SSH-2.0-OpenSSH"), w.all());
        assertEquals(1, logins(), CliHarness.read(sshdLog));

        CliHarness.Result c = sh("$PQSSH ssh " + common() + " -S " + socket + " -O check " + dest());
        assertEquals(0, c.rc(), c.all());
        assertTrue(MASTER_PID.matcher(c.err()).find(), c.all());
        CliHarness.Result exit = sh("$PQSSH ssh " + common() + " -S " + socket + " -O exit " + dest());
        assertEquals(0, exit.rc(), exit.all());
        assertTrue(exit.err().contains("Exit request sent."), exit.all());
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> !Files.exists(socket), () -> "socket still there");
        CliHarness.Result none = sh("$PQSSH ssh " + common() + " -S " + socket + " -O check " + dest());
        assertEquals(255, none.rc(), none.all());
        assertTrue(none.err().contains("Control socket connect(" + socket + "): No such file or directory"),
                none.all());
    }

    @Test
    void controlPersistMasterWithPercentCServesBothClients() throws Exception {
        String opts = common() + " -o ControlMaster=auto -o ControlPath=" + dir + "/cm-%C -o ControlPersist=60";
        CliHarness.Result first = sh("$PQSSH ssh " + opts + " " + dest() + " 'echo first; exit 3'");
        assertEquals(3, first.rc(), first.all());
        assertEquals("first\n", first.out(), first.all());
        List<Path> sockets;
        try (var l = Files.list(dir)) {
            sockets = l.filter(p -> p.getFileName().toString().startsWith("cm-")).toList();
        }
        assertEquals(1, sockets.size(), "one persistent master socket: " + sockets);
        assertTrue(sockets.get(0).getFileName().toString().matches("cm-[0-9a-f]{40}"), sockets.toString());

        // OpenSSH's ssh finds the same socket from the same ControlPath: %C is computed alike
        CliHarness.Result second = sh(CliHarness.SSH + " " + opts + " " + dest() + " 'echo second'");
        assertEquals(0, second.rc(), second.all());
        assertEquals("second\n", second.out(), second.all());
        CliHarness.Result third = sh("$PQSSH ssh " + opts + " " + dest() + " 'echo third; exit 4'");
        assertEquals(4, third.rc(), third.all());
        assertEquals("third\n", third.out(), third.all());
        assertEquals(1, logins(), "one login for three sessions:\n" + CliHarness.read(sshdLog));

        long pid = check(sockets.get(0));
        CliHarness.Result exit = sh("$PQSSH ssh " + opts + " -O exit " + dest());
        assertEquals(0, exit.rc(), exit.all());
        waitGone(pid);
    }

    @Test
    void staleSocketIsUnlinkedWithAutoAndReportedWithNo() throws Exception {
        Path socket = dir.resolve("stale");
        // a socket file nobody listens on: what a killed master leaves
        try (var ch = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            ch.bind(java.net.UnixDomainSocketAddress.of(socket));
        }
        assertTrue(Files.exists(socket));

        CliHarness.Result no = sh("$PQSSH ssh " + common() + " -o ControlMaster=no -S " + socket + " " + dest()
                + " 'echo normal'");
        assertEquals(0, no.rc(), no.all());
        assertEquals("normal\n", no.out(), no.all());
        assertTrue(no.err().contains("Control socket connect(" + socket + "): Connection refused"), no.all());
        assertTrue(Files.exists(socket), "ControlMaster no leaves a stale socket alone, as ssh");

        CliHarness.Result auto = sh("$PQSSH ssh -v " + common() + " -o ControlMaster=auto -S " + socket + " "
                + dest() + " 'echo as-master'");
        assertEquals(0, auto.rc(), auto.all());
        assertEquals("as-master\n", auto.out(), auto.all());
        assertTrue(auto.err().contains("Stale control socket " + socket + ", unlinking"), auto.all());
        assertFalse(Files.exists(socket), "the master that replaced it removed its own socket at the end");
    }

    @Test
    void anotherUidIsRefusedByTheMasterWhateverTheSocketMode() throws Exception {
        assertEquals("root", CliHarness.user(), "this test switches to uid 65534 with setpriv and must run as root");
        Path setpriv = Path.of("/usr/bin/setpriv");
        assertTrue(Files.isExecutable(setpriv), "setpriv (util-linux) is needed");
        Path shared = Files.createTempDirectory(Path.of("/tmp"), "pqssh-mux-");
        try {
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwx--x--x"));
            Path socket = shared.resolve("ctl");
            Path masterLog = dir.resolve("master.log");
            long pid = startPqsshMaster(socket);
            // a careless chmod: only the peer credential check stands between another user and the connection
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
            CliHarness.Result other = sh(setpriv + " --reuid=65534 --regid=65534 --clear-groups " + CliHarness.SSH
                    + " -F none -o UserKnownHostsFile=/dev/null -S " + socket + " -O check " + dest());
            assertEquals(255, other.rc(), other.all());
            assertFalse(other.err().contains("Master running"), other.all());
            CliHarness.Result session = sh(setpriv + " --reuid=65534 --regid=65534 --clear-groups " + CliHarness.SSH
                    + " -F none -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o ControlMaster=no -S " + socket
                    + " -p 1 " + dest() + " 'echo SHOULD-NOT-RUN'");
            assertFalse(session.out().contains("SHOULD-NOT-RUN"), session.all());
            CliHarness.waitUntil(Duration.ofSeconds(10), () -> CliHarness.read(masterLog)
                    .contains("multiplex uid mismatch: peer euid 65534 != uid 0"), () -> CliHarness.read(masterLog));
            check(socket); // the owner still can
            sh(CliHarness.SSH + " -S " + socket + " -O exit " + dest());
            waitGone(pid);
        } finally {
            try (var l = Files.list(shared)) {
                for (Path p : l.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(shared);
        }
    }

    @Test
    void ptySessionsThroughAPqsshMasterFollowTheTerminal() throws Exception {
        Path socket = dir.resolve("ctl");
        startPqsshMaster(socket);
        // OpenSSH's ssh and pqssh ssh as the passenger in a real terminal: the pty has the terminal's size, a resize
        // reaches it (the client relays SIGWINCH to the master), the exit status comes back, the terminal is restored
        for (String client : List.of(CliHarness.SSH + " -S " + socket, "$PQSSH ssh " + common() + " -S " + socket)) {
            Path before = dir.resolve("before");
            Path after = dir.resolve("after");
            Path rc = dir.resolve("rc");
            Files.deleteIfExists(rc);
            Path script = TmuxPane.script(dir, "pty.sh", "stty -a > " + before + "\n" + client + " -t " + dest()
                    + "\necho $? > " + rc + "\nstty -a > " + after + "\necho LOCAL-SCRIPT-DONE");
            try (TmuxPane pane = new TmuxPane(script, 100, 30)) {
                Thread.sleep(1000);
                pane.line("stty size; echo SIZE-$((1+1))");
                String s = pane.awaitText(Duration.ofSeconds(60), "SIZE-2");
                assertTrue(s.contains("30 100"), client + ": the pty does not have the terminal's size:\n" + s);
                pane.resize(120, 40);
                Thread.sleep(1000);
                pane.line("stty size; echo SIZE-$((2+2))");
                s = pane.awaitText(Duration.ofSeconds(60), "SIZE-4");
                assertTrue(s.contains("40 120"), client + ": window change not followed:\n" + s);
                pane.line("exit 6");
                s = pane.awaitText(Duration.ofSeconds(60), "LOCAL-SCRIPT-DONE");
                assertTrue(s.contains("Shared connection to 127.0.0.1 closed."), client + ":\n" + s);
                assertEquals("6", Files.readString(rc).strip(), client + ":\n" + s);
                assertEquals(Files.readString(before).replace("rows 30; columns 100;", "SIZE"),
                        Files.readString(after).replace("rows 40; columns 120;", "SIZE"),
                        client + ": stty -a differs after the session");
            }
        }
        assertEquals(1, logins(), CliHarness.read(sshdLog));
        sh(CliHarness.SSH + " -S " + socket + " -O exit " + dest());
    }

    /**
     * The escape character of a pty session through a pqssh master, run by the master as ssh's: {@code ~?} lists
     * what a multiplexed session has, {@code ~C}, {@code ~v}, {@code ~&} get ssh's "not available" line, {@code ~.}
     * ends that session only (255, "Shared connection ... closed.") and the master serves the next client.
     */
    @Test
    void escapesOfPtySessionsThroughAPqsshMaster() throws Exception {
        Path socket = dir.resolve("ctl");
        startPqsshMaster(socket);
        for (String client : List.of(CliHarness.SSH + " -S " + socket, "$PQSSH ssh " + common() + " -S " + socket)) {
            Path rc = dir.resolve("rc");
            Files.deleteIfExists(rc);
            Path script = TmuxPane.script(dir, "esc.sh", client + " -t " + dest() + "\necho $? > " + rc
                    + "\necho LOCAL-SCRIPT-DONE");
            try (TmuxPane pane = new TmuxPane(script, 100, 40)) {
                Thread.sleep(1000);
                pane.line("echo UP-$((1+1))");
                pane.awaitText(Duration.ofSeconds(60), "UP-2");
                pane.key("Enter");
                pane.type("~?");
                String s = pane.awaitText(Duration.ofSeconds(60), "(Note that escapes");
                assertTrue(s.contains(" ~.   - terminate session") && s.contains(" ~#   - list forwarded connections")
                        && !s.contains("~C   -") && !s.contains("~^Z"), client + ":\n" + s);
                for (String e : List.of("C", "v", "&")) {
                    pane.key("Enter");
                    pane.type("~" + e);
                    pane.awaitText(Duration.ofSeconds(60), "~" + e + " escape not available to multiplexed sessions");
                }
                pane.key("Enter");
                pane.type("~.");
                s = pane.awaitText(Duration.ofSeconds(60), "LOCAL-SCRIPT-DONE");
                assertTrue(s.contains("Shared connection to 127.0.0.1 closed."), client + ":\n" + s);
                assertEquals("255", Files.readString(rc).strip(), client + ":\n" + s);
            }
        }
        assertEquals(1, logins(), CliHarness.read(sshdLog));
        sh(CliHarness.SSH + " -S " + socket + " -O exit " + dest());
    }

    /**
     * {@code -O forward|cancel} (MUX_C_OPEN_FWD, MUX_C_CLOSE_FWD) by OpenSSH's ssh and by pqssh ssh, each against a
     * pqssh master and an OpenSSH master, every step with the same expected exit status, stdout and stderr: -L works
     * through the master's connection and stops when cancelled; -R 0 prints the allocated port, which reaches the server; -D; the same -L
     * again is success; cancelling what is not forwarded gives ssh's reason ("port not forwarded").
     */
    @Test
    void minusOForwardAndCancelBetweenEitherClientAndEitherMaster() throws Exception {
        Path pq = dir.resolve("ctl-pq");
        CliHarness.Result m = sh("$PQSSH ssh " + common() + " -M -S " + pq + " -fN " + dest() + " >"
                + dir.resolve("master.log") + " 2>&1");
        assertEquals(0, m.rc(), m.all() + CliHarness.read(dir.resolve("master.log")));
        check(pq);
        Path os = dir.resolve("ctl-os");
        CliHarness.Result o = sh(CliHarness.SSH + " " + common() + " -M -S " + os + " -fN " + dest());
        assertEquals(0, o.rc(), o.all());
        check(os);
        for (String client : List.of(CliHarness.SSH + " -S ", "$PQSSH ssh " + common() + " -S ")) {
            for (Path socket : List.of(pq, os)) {
                forwardAndCancel(client + socket + " ");
            }
        }
        sh(CliHarness.SSH + " -S " + pq + " -O exit " + dest());
        sh(CliHarness.SSH + " -S " + os + " -O exit " + dest());
    }

    /**
     * -L/-R/-D given with a session that attaches to a live master: the client sends MUX_C_OPEN_FWD for each before
     * MUX_C_NEW_SESSION, as ssh's mux client, so the forwardings live on the master's connection (no new login). A
     * forwarding the master refuses (its port is taken) makes the client log in itself, as ssh's muxclient, and that
     * login honours ExitOnForwardFailure. Both clients against both masters, same status, output and login count.
     */
    @Test
    void forwardsGivenWithASessionGoThroughEitherMaster() throws Exception {
        Path pq = dir.resolve("ctl-pq");
        startPqsshMaster(pq);
        Path os = dir.resolve("ctl-os");
        CliHarness.Result o = sh(CliHarness.SSH + " " + common() + " -M -S " + os + " -fN " + dest());
        assertEquals(0, o.rc(), o.all());
        check(os);
        for (String client : List.of(CliHarness.SSH + " ", "$PQSSH ssh ")) {
            for (Path socket : List.of(pq, os)) {
                sessionWithForwards(client + common() + " -S " + socket + " ");
            }
        }
        sh(CliHarness.SSH + " -S " + pq + " -O exit " + dest());
        sh(CliHarness.SSH + " -S " + os + " -O exit " + dest());
    }

    private void sessionWithForwards(String ssh) throws Exception {
        int lport = CliHarness.freePort();
        int rport = CliHarness.freePort();
        int dport = CliHarness.freePort();
        int before = logins();
        CliHarness.Result s = sh(ssh + "-L " + lport + ":127.0.0.1:" + port + " -R " + rport + ":127.0.0.1:" + port
                + " -D " + dport + " " + dest() + " 'echo through-the-master'");
        assertEquals(List.of(0, "through-the-master\n", ""), List.of(s.rc(), s.out(), s.err()), ssh + s.all());
        assertEquals(before, logins(), ssh + ": the forwards go to the master\n" + CliHarness.read(sshdLog));
        assertTrue(CliHarness.firstLine(lport).startsWith("SSH-2.0-OpenSSH"), ssh + " -L");
        assertTrue(CliHarness.firstLine(rport).startsWith("SSH-2.0-OpenSSH"), ssh + " -R");
        assertTrue(CliHarness.portOpen(dport), ssh + " -D");

        try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            String taken = " -L 127.0.0.1:" + busy.getLocalPort() + ":127.0.0.1:" + port + " ";
            List<String> refused = List.of("mux_client_forward: forwarding request failed: Port forwarding failed",
                    "muxclient: master forward request failed");
            CliHarness.Result exit = sh(ssh + "-o ExitOnForwardFailure=yes" + taken + dest() + " 'echo not-run'");
            assertEquals(255, exit.rc(), ssh + exit.all());
            assertEquals("", exit.out(), ssh + exit.all());
            assertEquals(refused, exit.err().lines().limit(2).toList(), ssh + exit.all());
            assertEquals(before + 1, logins(), ssh + ": the client logged in itself\n" + CliHarness.read(sshdLog));
            CliHarness.Result warn = sh(ssh + taken + dest() + " 'echo own-login'");
            assertEquals(0, warn.rc(), ssh + warn.all());
            assertEquals("own-login\n", warn.out(), ssh + warn.all());
            assertEquals(refused, warn.err().lines().limit(2).toList(), ssh + warn.all());
            assertEquals(before + 2, logins(), ssh + CliHarness.read(sshdLog));
        }
    }

    private void forwardAndCancel(String ssh) throws Exception {
        int lport = CliHarness.freePort();
        int dport = CliHarness.freePort();
        CliHarness.Result f = sh(ssh + "-O forward -L " + lport + ":127.0.0.1:" + port + " " + dest());
        assertEquals(List.of(0, "", ""), List.of(f.rc(), f.out(), f.err()), ssh + ": " + f.all());
        assertTrue(CliHarness.firstLine(lport).startsWith("SSH-2.0-OpenSSH"), ssh);
        f = sh(ssh + "-O forward -L " + lport + ":127.0.0.1:" + port + " " + dest());
        assertEquals(List.of(0, "", ""), List.of(f.rc(), f.out(), f.err()), ssh + " again: " + f.all());

        CliHarness.Result r = sh(ssh + "-O forward -R 0:127.0.0.1:" + port + " " + dest());
        assertEquals(0, r.rc(), ssh + ": " + r.all());
        assertTrue(r.out().strip().matches("\\d+"), ssh + ": " + r.all());
        assertTrue(CliHarness.firstLine(Integer.parseInt(r.out().strip())).startsWith("SSH-2.0-OpenSSH"), ssh);

        f = sh(ssh + "-O forward -D " + dport + " " + dest());
        assertEquals(List.of(0, "", ""), List.of(f.rc(), f.out(), f.err()), ssh + ": " + f.all());
        f = sh(ssh + "-O cancel -D " + dport + " " + dest());
        assertEquals(List.of(0, "", ""), List.of(f.rc(), f.out(), f.err()), ssh + ": " + f.all());

        f = sh(ssh + "-O cancel -L " + lport + ":127.0.0.1:" + port + " " + dest());
        assertEquals(List.of(0, "", ""), List.of(f.rc(), f.out(), f.err()), ssh + ": " + f.all());
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> !CliHarness.portOpen(lport), () -> "still listening on " + lport);
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> !CliHarness.portOpen(dport), () -> "still listening on " + dport);
        f = sh(ssh + "-O cancel -L " + lport + ":127.0.0.1:" + port + " " + dest());
        assertEquals(0, f.rc(), ssh + ": " + f.all());
        assertEquals(List.of("mux_client_forward: forwarding request failed: port not forwarded",
                "muxclient: master cancel forward request failed"), f.err().lines().toList(), ssh + ": "
                + f.all());
    }

    @Test
    void askIsRefusedAndMinusOWordsAreChecked() throws Exception {
        CliHarness.Result ask = CliHarness.pqssh("ssh", "-F", "none", "-o", "ControlMaster=ask", "-o",
                "ControlPath=" + dir.resolve("x"), "-p", "1", "127.0.0.1", "true");
        assertEquals(255, ask.rc(), ask.all());
        assertTrue(ask.err().contains("ControlMaster ask (command-line line 0): confirming shared sessions with"
                + " ssh-askpass is not implemented; use ControlMaster yes"), ask.all());
        CliHarness.Result noPath = CliHarness.pqssh("ssh", "-F", "none", "-O", "check", "127.0.0.1");
        assertEquals(255, noPath.rc(), noPath.all());
        assertTrue(noPath.err().contains("No ControlPath specified for \"-O\" command"), noPath.all());
        CliHarness.Result bad = CliHarness.pqssh("ssh", "-O", "bogus", "127.0.0.1");
        assertEquals(255, bad.rc(), bad.all());
        assertTrue(bad.err().contains("Invalid multiplex command."), bad.all());
    }
}
