package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * X11 forwarding with real tools: Xvfb on a display this test picks ({@code -nolisten tcp}, its own authority file
 * with a random cookie), xauth, and x11-utils' xdpyinfo/xprop run in the remote session. pqssh ssh and OpenSSH's ssh
 * against pqssh server, pqssh ssh against Debian's sshd; the fake cookie is checked (a wrong one is refused), and a
 * refused request gives ssh's line. Needs root (useradd: xauth writes the test account's ~/.Xauthority, not
 * root's) and the Debian packages xvfb, xauth, x11-utils, openssh-server (CI installs them); it fails, never skips,
 * without them.
 */
class X11ForwardingTest {
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String PROBE = "echo display=$DISPLAY; xdpyinfo | head -1; xprop -root _XKB_RULES_NAMES";

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();
    private final List<String> users = new ArrayList<>();
    private String display;
    private String realCookie;

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : started) {
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        for (String u : users) {
            CliHarness.exec(Path.of("/"), List.of("/usr/sbin/userdel", "-r", u));
        }
    }

    /** pqssh ssh -Y and OpenSSH's ssh -Y to pqssh server: X clients in the session reach the local display. */
    @Test
    void pqsshAndOpenSshClientsForwardToPqsshServer() throws Exception {
        startXvfb();
        String user = account("pqx");
        int port = startPqsshServer(List.of("X11Forwarding yes"));

        CliHarness.Result pq = pqssh(port, user, "-Y", PROBE + "; xauth list");
        assertEquals(0, pq.rc(), pq.all());
        assertProbeRan(pq);
        // the session's authority holds the fake cookie the client made up, never the display's real one
        String entry = pq.out().lines().filter(l -> l.contains("/unix:")).findFirst().orElse("");
        assertTrue(entry.contains("MIT-MAGIC-COOKIE-1"), pq.all());
        assertFalse(entry.contains(realCookie), pq.all());

        CliHarness.Result o = openSsh(port, user, "-Y", PROBE);
        assertEquals(0, o.rc(), o.all());
        assertProbeRan(o);
        assertFalse(CliHarness.read(dir.resolve("server.err")).contains(realCookie), "cookie in the server log");
    }

    /**
     * X11 through connection sharing, as ssh's mux_session_confirm: a client that asks (-X/-Y) gets X11 when the master
     * forwards X11 itself (its -Y and DISPLAY); one that does not ask gets no DISPLAY. OpenSSH's ssh through a pqssh
     * master and pqssh ssh through both masters.
     */
    @Test
    void connectionSharingForwardsX11ForClientsThatAsk() throws Exception {
        startXvfb();
        String user = account("pqx");
        int port = startPqsshServer(List.of("X11Forwarding yes"));
        String dest = user + "@127.0.0.1";
        String pqSock = dir.resolve("pq.sock").toString();
        String osSock = dir.resolve("os.sock").toString();
        List<String> pqssh = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "io.pqssh.cli.Main", "ssh");
        try {
            List<String> master = new ArrayList<>(pqssh);
            master.addAll(common(port, "-Y", false));
            master.addAll(List.of("-M", "-S", pqSock, "-fN", dest));
            CliHarness.Result m = run(master);
            assertEquals(0, m.rc(), m.all());

            CliHarness.Result o = run(List.of(CliHarness.SSH.toString(), "-F", "none", "-S", pqSock, "-Y", dest,
                    PROBE));
            assertEquals(0, o.rc(), o.all());
            assertProbeRan(o);
            List<String> viaPq = new ArrayList<>(pqssh);
            viaPq.addAll(List.of("-F", "none", "-S", pqSock, "-Y", dest, PROBE));
            CliHarness.Result p = run(viaPq);
            assertEquals(0, p.rc(), p.all());
            assertProbeRan(p);
            CliHarness.Result none = run(List.of(CliHarness.SSH.toString(), "-F", "none", "-S", pqSock, "-x", dest,
                    "echo display=$DISPLAY."));
            assertEquals(0, none.rc(), none.all());
            assertTrue(none.out().contains("display=."), none.all());

            List<String> osMaster = new ArrayList<>(List.of(CliHarness.SSH.toString()));
            osMaster.addAll(common(port, "-Y", false));
            // the master's own debug log, for the failure below
            Path masterLog = dir.resolve("os-master.log");
            osMaster.addAll(List.of("-vvv", "-E", masterLog.toString(), "-M", "-S", osSock, "-fN", dest));
            CliHarness.Result om = run(osMaster);
            assertEquals(0, om.rc(), om.all());
            List<String> pqViaOs = new ArrayList<>(pqssh);
            // -vvv: a failure shows whether the master sent no exit message or the control socket broke
            pqViaOs.addAll(List.of("-vvv", "-F", "none", "-S", osSock, "-Y", dest, PROBE));
            CliHarness.Result q = run(pqViaOs);
            if (q.rc() == 255 && q.err().contains("Control master terminated unexpectedly")) {
                // Seen in 3 of ~9 CI runs, never in ~45 local ones: after the probe has run and printed everything,
                // OpenSSH 9.2's master closes the control socket without MUX_S_EXIT_MESSAGE. Its log (CI,
                // 2026-12-06) shows why: for the session channel it received EOF, sent CLOSE at once (its input
                // was already closed), and received CLOSE, but never an exit-status: pqssh server dropped it
                // (sshd keeps a closed session's channel until the child has exited and sends its exit-status
                // then). Fixed in PqsshChannelSession.closeShell (the status now goes before EOF;
                // OpenSshClientToPqsshServerTest.exitStatusComesBeforeEof); this retry stays as a guard for one
                // more round of CI: it prints the master's log when it triggers, and a second such end fails.
                System.out.println("X11ForwardingTest: OpenSSH master ended a mux session without its exit message;"
                        + " retrying once.\n--- client\n" + q.all() + "\n--- master log\n"
                        + (Files.exists(masterLog) ? Files.readString(masterLog) : "(none)"));
                q = run(pqViaOs);
            }
            assertEquals(0, q.rc(), q.all() + "\n--- master log\n"
                    + (Files.exists(masterLog) ? Files.readString(masterLog) : "(none)"));
            assertProbeRan(q);
        } finally {
            for (String sock : List.of(pqSock, osSock)) {
                if (Files.exists(Path.of(sock))) {
                    CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", "none", "-S", sock, "-O", "exit",
                            dest));
                }
            }
        }
    }

    /** pqssh ssh -X to Debian's sshd with X11Forwarding yes. */
    @Test
    void pqsshClientForwardsToOpenSshServer() throws Exception {
        startXvfb();
        String user = account("pqx");
        int port = startSshd(List.of("X11Forwarding yes"));
        CliHarness.Result pq = pqssh(port, user, "-X", PROBE);
        assertEquals(0, pq.rc(), pq.all() + "\n--- sshd\n" + CliHarness.read(dir.resolve("sshd.log")));
        assertProbeRan(pq);
    }

    /**
     * An X client in the session that presents another cookie than the fake one is refused by the client with ssh's
     * line, and never reaches the X server.
     */
    @Test
    void wrongCookieIsRefused() throws Exception {
        startXvfb();
        String user = account("pqx");
        int port = startPqsshServer(List.of("X11Forwarding yes"));
        String wrong = "f=$HOME/wrong; xauth -q -f $f add unix:${DISPLAY#localhost:} MIT-MAGIC-COOKIE-1 "
                + HexFormat.of().formatHex(new byte[16]) + "; XAUTHORITY=$f xdpyinfo >/dev/null 2>&1;"
                + " echo wrong=$?; xdpyinfo >/dev/null 2>&1; echo right=$?";
        CliHarness.Result r = pqssh(port, user, "-Y", wrong);
        assertEquals(0, r.rc(), r.all());
        assertTrue(r.out().contains("wrong=1"), r.all());
        assertTrue(r.out().contains("right=0"), r.all());
        assertTrue(r.err().contains("X11 connection rejected because of wrong authentication."), r.all());
    }

    /**
     * Refusals: X11Forwarding no (here by Match) and a key with no-X11-forwarding make the request fail with ssh's
     * line, the session goes on without DISPLAY, and the server logs sshd's reason. OpenSSH's ssh prints the same.
     */
    @Test
    void refusedRequestGivesSshsLine() throws Exception {
        startXvfb();
        String allowed = account("pqx");
        String refused = account("pqn");
        Path restricted = CliHarness.sshKeygen(dir.resolve("id_restricted"), "ed25519");
        Files.writeString(home(allowed).resolve(".ssh/authorized_keys"), "no-X11-forwarding " + Files.readString(
                CliHarness.pub(restricted)), java.nio.file.StandardOpenOption.APPEND);
        int port = startPqsshServer(List.of("X11Forwarding yes", "Match User " + refused, "  X11Forwarding no"));
        String line = "X11 forwarding request failed on channel 0";

        CliHarness.Result pq = pqssh(port, refused, "-Y", "echo display=$DISPLAY.");
        assertEquals(0, pq.rc(), pq.all());
        assertTrue(pq.out().contains("display=."), pq.all());
        assertTrue(pq.err().lines().anyMatch(line::equals), pq.all());
        CliHarness.Result o = openSsh(port, refused, "-Y", "echo display=$DISPLAY.");
        assertTrue(o.err().contains(line), o.all());
        assertTrue(CliHarness.read(dir.resolve("server.err")).contains(
                "X11 forwarding disabled in server configuration file."), log());

        CliHarness.Result key = pqssh(port, allowed, "-Y", "echo display=$DISPLAY.", "-i", restricted.toString());
        assertEquals(0, key.rc(), key.all());
        assertTrue(key.out().contains("display=."), key.all());
        assertTrue(key.err().lines().anyMatch(line::equals), key.all());
        assertTrue(CliHarness.read(dir.resolve("server.err")).contains("X11 forwarding disabled by key options."),
                log());
    }

    /**
     * sshd's rc rule: with ~/.ssh/rc the protocol and cookie go to it on stdin and xauth is not run; the display
     * works once rc has added them. Untrusted forwarding runs ssh's {@code xauth generate DISPLAY
     * MIT-MAGIC-COOKIE-1 untrusted timeout 1260} (seen through an XAuthLocation that logs its arguments).
     */
    @Test
    void userRcGetsTheCookieAndUntrustedGeneratesOne() throws Exception {
        startXvfb();
        String user = account("pqx");
        Path rc = home(user).resolve(".ssh/rc");
        Files.createDirectories(rc.getParent());
        Files.writeString(rc, "read proto cookie\necho \"$proto $cookie\" > $HOME/rc-input\n"
                + "xauth -q add unix:${DISPLAY#localhost:} $proto $cookie\n");
        CliHarness.exec(dir, List.of("chown", "-R", user + ":", rc.getParent().toString()));
        int port = startPqsshServer(List.of("X11Forwarding yes"));
        CliHarness.Result r = pqssh(port, user, "-Y", "cat $HOME/rc-input; " + PROBE);
        assertEquals(0, r.rc(), r.all());
        assertProbeRan(r);
        assertTrue(r.out().lines().anyMatch(l -> l.matches("MIT-MAGIC-COOKIE-1 [0-9a-f]{32}")), r.all());
        assertFalse(r.out().contains(realCookie), r.all());

        Path logged = dir.resolve("xauth-args");
        Path wrapper = Files.writeString(dir.resolve("xauth-logging"), "#!/bin/sh\necho \"$*\" >> " + logged
                + "\nexec /usr/bin/xauth \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        CliHarness.Result u = pqssh(port, user, "-X", "echo display=$DISPLAY", "-o", "ForwardX11Trusted=no", "-o",
                "XAuthLocation=" + wrapper);
        assertEquals(0, u.rc(), u.all());
        assertTrue(u.out().contains("display=localhost:"), u.all());
        String args = CliHarness.read(logged);
        assertTrue(args.matches("(?s)-f /tmp/ssh-\\S+/xauthfile generate :" + display.substring(1)
                + " MIT-MAGIC-COOKIE-1 untrusted timeout 1260\n-f /tmp/ssh-\\S+/xauthfile list :"
                + display.substring(1) + "\n"), args);
    }

    /**
     * User certificates (ssh-keygen's, OpenSSH's ssh -X) and their permit-X11-forwarding and permit-user-rc
     * extensions, against pqssh server and Debian's sshd with the same configuration and the same expectations:
     * with all default extensions, DISPLAY is set and ~/.ssh/rc runs (it gets the cookie and adds it); without
     * permit-X11-forwarding, ssh's refusal line, no DISPLAY, and rc still runs; without permit-user-rc, DISPLAY is
     * set, rc does not run (the server adds the cookie itself, so X clients still work). The rc file belongs to an
     * account this test creates and writes a marker file in its home.
     */
    @Test
    void certificateExtensionsGateX11AndUserRc() throws Exception {
        startXvfb();
        String user = account("pqc");
        Path home = home(user);
        Path rc = home.resolve(".ssh/rc");
        Path marker = home.resolve("rc-ran");
        Files.writeString(rc, "touch \"$HOME/rc-ran\"\n"
                + "if read proto cookie && [ -n \"$DISPLAY\" ]; then\n"
                + "  xauth -q add unix:${DISPLAY#localhost:} $proto $cookie\n"
                + "fi\n");
        CliHarness.exec(dir, List.of("chown", "-R", user + ":", rc.getParent().toString()));
        Path ca = CliHarness.sshKeygen(dir.resolve("user_ca"), "ed25519");
        Path full = CliHarness.sshKeygen(dir.resolve("id_full"), "ed25519");
        Path noX11 = CliHarness.sshKeygen(dir.resolve("id_nox11"), "ed25519");
        Path noRc = CliHarness.sshKeygen(dir.resolve("id_norc"), "ed25519");
        CliHarness.sshKeygenSign(ca, full, "-I", "full", "-n", user);
        CliHarness.sshKeygenSign(ca, noX11, "-I", "nox11", "-n", user, "-O", "no-x11-forwarding");
        CliHarness.sshKeygenSign(ca, noRc, "-I", "norc", "-n", user, "-O", "no-user-rc");
        List<String> config = List.of("X11Forwarding yes", "TrustedUserCAKeys " + CliHarness.pub(ca));
        String line = "X11 forwarding request failed on channel 0";
        String probe = "echo display=$DISPLAY.; xdpyinfo | head -1";

        for (String server : List.of("pqssh", "sshd")) {
            int port = "pqssh".equals(server) ? startPqsshServer(config) : startSshd(config);
            String what = server + ": ";

            Files.deleteIfExists(marker);
            CliHarness.Result ok = certSsh(port, user, full, probe);
            assertEquals(0, ok.rc(), what + ok.all());
            assertTrue(ok.out().contains("display=localhost:"), what + ok.all());
            assertTrue(ok.out().contains("name of display:    localhost:"), what + ok.all());
            assertFalse(ok.err().contains(line), what + ok.all());
            assertTrue(Files.exists(marker), what + "~/.ssh/rc did not run with permit-user-rc");

            Files.deleteIfExists(marker);
            CliHarness.Result x = certSsh(port, user, noX11, probe);
            assertEquals(0, x.rc(), what + x.all());
            assertTrue(x.out().contains("display=."), what + "DISPLAY without permit-X11-forwarding\n" + x.all());
            assertTrue(x.err().contains(line), what + x.all());
            assertTrue(Files.exists(marker), what + "~/.ssh/rc did not run with permit-user-rc");

            Files.deleteIfExists(marker);
            CliHarness.Result r = certSsh(port, user, noRc, probe);
            assertEquals(0, r.rc(), what + r.all());
            assertTrue(r.out().contains("display=localhost:"), what + r.all());
            assertTrue(r.out().contains("name of display:    localhost:"), what + r.all());
            assertFalse(Files.exists(marker), what + "~/.ssh/rc ran without permit-user-rc");
        }
        assertTrue(CliHarness.read(dir.resolve("server.err")).contains("X11 forwarding disabled by key options."),
                log());
    }

    /** OpenSSH's ssh -X with {@code key} and its certificate only. */
    private CliHarness.Result certSsh(int port, String user, Path key, String command) throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH.toString()));
        cmd.addAll(common(port, "-X", true));
        cmd.addAll(List.of("-o", "IdentitiesOnly=yes", "-i", key.toString(), user + "@127.0.0.1", command));
        return run(cmd);
    }

    private static void assertProbeRan(CliHarness.Result r) {
        assertTrue(r.out().contains("display=localhost:"), r.all());
        assertTrue(r.out().contains("name of display:    localhost:"), r.all());
        assertTrue(r.out().contains("_XKB_RULES_NAMES(STRING) = "), r.all());
    }

    /** The servers' logs, appended to each run's stderr for failure messages. */
    private String log() {
        return "\n--- server log\n" + CliHarness.read(dir.resolve("server.err")) + "\n--- sshd log\n"
                + CliHarness.read(dir.resolve("sshd.log"));
    }

    /** Xvfb on the first free display from :90, with its own authority file and a random cookie. */
    private void startXvfb() throws Exception {
        for (String tool : List.of("/usr/bin/Xvfb:xvfb", "/usr/bin/xauth:xauth", "/usr/bin/xdpyinfo:x11-utils",
                "/usr/bin/xprop:x11-utils")) {
            String[] t = tool.split(":");
            assertTrue(Files.isExecutable(Path.of(t[0])), "MISSING " + t[0] + ": X11ForwardingTest needs the Debian"
                    + " package '" + t[1] + "' (apt-get install -y " + t[1] + ")");
        }
        realCookie = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        Path auth = dir.resolve("xvfb.auth");
        for (int n = 90; n < 190; n++) {
            if (Files.exists(Path.of("/tmp/.X11-unix/X" + n)) || Files.exists(Path.of("/tmp/.X" + n + "-lock"))) {
                continue;
            }
            Files.deleteIfExists(auth);
            Files.createFile(auth);
            CliHarness.Result add = CliHarness.exec(dir, List.of("/usr/bin/xauth", "-q", "-f", auth.toString(),
                    "add", ":" + n, "MIT-MAGIC-COOKIE-1", realCookie));
            assertEquals(0, add.rc(), add.all());
            Path log = dir.resolve("xvfb-" + n + ".log");
            // -noreset: as a desktop's server, which a session manager keeps from resetting between clients
            Process x = new ProcessBuilder("/usr/bin/Xvfb", ":" + n, "-nolisten", "tcp", "-noreset", "-auth",
                    auth.toString())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            started.add(x);
            int number = n;
            CliHarness.waitUntil(Duration.ofSeconds(30), () -> !x.isAlive()
                    || Files.exists(Path.of("/tmp/.X11-unix/X" + number)), () -> "Xvfb :" + number + " did not"
                    + " start: " + CliHarness.read(log));
            if (x.isAlive()) {
                display = ":" + n;
                return;
            }
        }
        fail("no display from :90 to :189 was free for Xvfb");
    }

    private String account(String prefix) throws Exception {
        if (!"root".equals(CliHarness.user())) {
            fail("X11ForwardingTest creates accounts (useradd): run as root (CI does)");
        }
        String name = prefix + Integer.toString(new SecureRandom().nextInt(1 << 24), 36);
        CliHarness.Result r = CliHarness.exec(Path.of("/"), List.of("/usr/sbin/useradd", "-m", "-s", "/bin/bash",
                "-p", "*", name));
        assertEquals(0, r.rc(), r.all());
        users.add(name);
        Path key = dir.resolve("id_ed25519");
        if (!Files.exists(key)) {
            CliHarness.sshKeygen(key, "ed25519");
        }
        Path ssh = home(name).resolve(".ssh");
        Files.createDirectories(ssh);
        Files.copy(CliHarness.pub(key), ssh.resolve("authorized_keys"));
        CliHarness.exec(dir, List.of("chown", "-R", name + ":", ssh.toString()));
        return name;
    }

    private static Path home(String user) throws Exception {
        return Path.of(CliHarness.exec(Path.of("/"), List.of("/usr/bin/getent", "passwd", user)).out().strip()
                .split(":")[5]);
    }

    private Path hostKey() throws Exception {
        Path hostKey = dir.resolve("host_key");
        if (!Files.exists(hostKey)) {
            CliHarness.sshKeygen(hostKey, "ed25519");
        }
        return hostKey;
    }

    private int startPqsshServer(List<String> more) throws Exception {
        int port = CliHarness.freePort();
        List<String> lines = new ArrayList<>(List.of("ListenAddress 127.0.0.1", "Port " + port,
                "HostKey " + hostKey(), "StrictModes no", "UsePAM no",
                "PrintMotd no", "PrintLastLog no"));
        lines.addAll(more);
        Path cfg = Files.writeString(dir.resolve("sshd_config"), String.join("\n", lines) + "\n");
        Path err = dir.resolve("server.err");
        // the forwarding filter's refusal lines (sshd's texts) are INFO of its own logger, which the daemon's
        // default log level leaves out
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dorg.slf4j.simpleLogger.log.io.pqssh.server.forward=info", "-cp",
                System.getProperty("java.class.path"), "io.pqssh.cli.Main", "server", "-D", "-f", cfg.toString())
                .directory(dir.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("server.out").toFile()).redirectError(err.toFile()).start();
        started.add(server);
        CliHarness.waitUntil(WAIT, () -> CliHarness.read(err).contains("pqssh server listening")
                || !server.isAlive(), () -> "server did not start:\n" + CliHarness.read(err));
        assertTrue(server.isAlive(), "server did not start:\n" + CliHarness.read(err));
        return port;
    }

    private int startSshd(List<String> more) throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        CliHarness.ensureSshdPrivsepDir();
        int port = CliHarness.freePort();
        List<String> lines = new ArrayList<>(List.of("ListenAddress 127.0.0.1", "Port " + port,
                "HostKey " + hostKey(), "StrictModes no", "UsePAM no",
                "PidFile none", "PrintMotd no", "PrintLastLog no"));
        lines.addAll(more);
        Path cfg = Files.writeString(dir.resolve("openssh_sshd_config"), String.join("\n", lines) + "\n");
        Path log = dir.resolve("sshd.log");
        Process sshd = new ProcessBuilder(CliHarness.SSHD.toString(), "-D", "-e", "-f", cfg.toString())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        started.add(sshd);
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> !sshd.isAlive()
                || CliHarness.read(log).contains("Server listening on 127.0.0.1 port " + port),
                () -> "sshd did not start: " + CliHarness.read(log));
        assertTrue(sshd.isAlive(), "sshd did not start: " + CliHarness.read(log));
        return port;
    }

    /** {@code pqssh ssh FLAG [extra...] user@127.0.0.1 command} as its own process, with the display's DISPLAY. */
    private CliHarness.Result pqssh(int port, String user, String flag, String command, String... extra)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), "io.pqssh.cli.Main", "ssh"));
        List<String> more = List.of(extra);
        cmd.addAll(common(port, flag, more.contains("-i")));
        cmd.addAll(more);
        cmd.addAll(List.of(user + "@127.0.0.1", command));
        return run(cmd);
    }

    private CliHarness.Result openSsh(int port, String user, String flag, String command) throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH.toString()));
        cmd.addAll(common(port, flag, false));
        cmd.addAll(List.of(user + "@127.0.0.1", command));
        return run(cmd);
    }

    /** The options every run shares; the test's key unless the caller names its own identity. */
    private List<String> common(int port, String flag, boolean ownIdentity) {
        // no LogLevel ERROR: pqssh takes it as quiet, ssh's error lines included
        List<String> c = new ArrayList<>(List.of("-F", "none", "-o", "BatchMode=yes", "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-p", Integer.toString(port),
                flag));
        if (!ownIdentity) {
            c.addAll(List.of("-i", dir.resolve("id_ed25519").toString()));
        }
        return c;
    }

    /** Runs with DISPLAY and XAUTHORITY of the test's Xvfb, bounded. */
    private CliHarness.Result run(List<String> cmd) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        Map<String, String> env = pb.environment();
        env.put("DISPLAY", display);
        env.put("XAUTHORITY", dir.resolve("xvfb.auth").toString());
        Process p = pb.start();
        try {
            if (!p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                fail(String.join(" ", cmd) + " did not finish within " + WAIT + "\nstderr:\n" + Files.readString(err));
            }
            CliHarness.Result r = new CliHarness.Result(p.exitValue(), Files.readString(out), Files.readString(err)
                    + log());
            System.out.println("$ " + String.join(" ", cmd) + "\n" + r.all() + "\n");
            return r;
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
