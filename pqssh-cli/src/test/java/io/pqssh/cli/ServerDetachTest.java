package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.daemon.Detach;
import io.pqssh.server.daemon.Libc;

/**
 * {@code pqssh server} without {@code -D} detaches as sshd: the launched process exits 0 once a daemon in its own
 * session (no terminal) listens and has written its PidFile; the daemon logs to the {@code -E} file or to syslog
 * (an AF_UNIX datagram socket this test binds), stops on SIGTERM (removing the PidFile) and reloads on SIGHUP; a
 * bad configuration or a busy port makes the launched process exit 255 with the error on its stderr. Every daemon
 * is stopped by its PID.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerDetachTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** A launched {@code pqssh server}: its exit status, stderr and every daemon PID seen while it ran. */
    private record Launch(int rc, String err, Set<Long> children, long launchedPid) {
    }

    private static Launch launch(Path dir, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.pqssh.cli.Main", "server"));
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile(dir, "launch", ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("launch.out").toFile()).redirectError(err.toFile());
        pb.environment().put("PQSSH_CONFIG_DIR", dir.resolve("config").toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        Set<Long> children = new HashSet<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (p.isAlive() && System.nanoTime() < deadline) {
            p.children().forEach(c -> children.add(c.pid()));
            Thread.sleep(20);
        }
        boolean exited = p.waitFor(1, TimeUnit.SECONDS);
        if (!exited) {
            p.destroyForcibly();
            children.forEach(ServerDetachTest::killByPid);
        }
        assertTrue(exited, "the launched pqssh server did not exit within " + WAIT + ":\n" + CliHarness.read(err));
        String stderr = Files.readString(err);
        System.out.println("$ " + String.join(" ", args) + "\nexit " + p.exitValue() + "\n" + stderr);
        return new Launch(p.exitValue(), stderr, children, p.pid());
    }

    private static void killByPid(long pid) {
        ProcessHandle.of(pid).ifPresent(h -> {
            h.destroyForcibly();
            h.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> null).join();
        });
    }

    /** Fields of /proc/PID/stat after the command name: [0]=state, [1]=ppid, [2]=pgrp, [3]=session, [4]=tty_nr. */
    private static String[] stat(long pid) throws Exception {
        String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return s.substring(s.lastIndexOf(')') + 2).split(" ");
    }

    private static Path config(Path dir, String... extra) throws Exception {
        Path hostKey = CliHarness.sshKeygen(dir.resolve("host_key"), "ed25519");
        Path userKey = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.copy(CliHarness.pub(userKey), dir.resolve(CliHarness.user() + "_keys"));
        List<String> lines = new ArrayList<>(List.of("ListenAddress 127.0.0.1", "HostKey " + hostKey,
                "PidFile " + dir.resolve("pqssh.pid"), "AuthorizedKeysFile " + dir + "/%u_keys",
                "AuthorizedKEMKeysFile none", "StrictModes no"));
        lines.addAll(List.of(extra));
        Path conf = dir.resolve("sshd_config");
        Files.writeString(conf, String.join("\n", lines) + "\n");
        return conf;
    }

    private static CliHarness.Result sshTrue(Path dir, int port) throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        return CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", "none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=20",
                "-i", dir.resolve("id_ed25519").toString(), "-p", Integer.toString(port),
                CliHarness.user() + "@127.0.0.1", "echo", "detached-ok"));
    }

    private static long daemonPid(Path dir) throws Exception {
        return Long.parseLong(Files.readString(dir.resolve("pqssh.pid")).strip());
    }

    @Test
    void detachesIntoItsOwnSessionLogsToTheEFileReloadsAndStopsOnSigterm(@TempDir Path dir) throws Exception {
        int port = CliHarness.freePort();
        Path conf = config(dir);
        Path log = dir.resolve("server.log");
        long before = System.nanoTime();
        // -f and -E relative to the directory pqssh server is started in, which the daemon leaves for /
        Launch l = launch(dir, Map.of(), "-f", dir.relativize(conf).toString(), "-p", Integer.toString(port), "-E",
                dir.relativize(log).toString());
        long daemon = -1;
        try {
            double seconds = (System.nanoTime() - before) / 1e9;
            assertEquals(0, l.rc(), "the launched process must exit 0 once the daemon listens:\n" + l.err());
            assertTrue(seconds < 60, "took " + seconds + " s");
            daemon = daemonPid(dir);
            assertNotEquals(l.launchedPid(), daemon, "the PidFile must name the daemon, not the launched process");
            assertTrue(l.children().contains(daemon), "the daemon is not the launched process's child: "
                    + l.children() + " vs " + daemon);
            assertTrue(ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false), "the daemon is not running");
            String[] st = stat(daemon);
            assertEquals(Long.toString(daemon), st[3], "the daemon must lead its own session (setsid)");
            assertNotEquals(stat(ProcessHandle.current().pid())[3], st[3]);
            assertEquals("0", st[4], "the daemon must have no controlling terminal");
            assertEquals(Path.of("/"), Files.readSymbolicLink(Path.of("/proc/" + daemon + "/cwd")),
                    "the daemon's working directory (sshd's daemon(3) changes to /)");
            for (int fd = 0; fd <= 2; fd++) {
                assertEquals(Path.of("/dev/null"), Files.readSymbolicLink(Path.of("/proc/" + daemon + "/fd/" + fd)),
                        "fd " + fd + " of the daemon");
            }
            CliHarness.Result r = sshTrue(dir, port);
            assertEquals(0, r.rc(), r.all());
            assertEquals("detached-ok", r.out().strip());
            // sshd -E's format: the message alone, ended by CR LF
            Pattern accepted = Pattern.compile("(?m)^Accepted publickey for " + Pattern.quote(CliHarness.user())
                    + " from 127\\.0\\.0\\.1 port \\d+ ssh2: ED25519 SHA256:[^\\s]+\r\n");
            CliHarness.waitUntil(WAIT, () -> accepted.matcher(CliHarness.read(log)).find(),
                    () -> "no Accepted line in the -E file:\n" + CliHarness.read(log));
            assertFalse(l.err().contains("Accepted"), "a login was logged on the launching terminal");

            CliHarness.Result hup = CliHarness.exec(dir, List.of("/bin/kill", "-HUP", Long.toString(daemon)));
            assertEquals(0, hup.rc(), hup.all());
            CliHarness.waitUntil(WAIT, () -> CliHarness.read(log).contains("pqssh server: reloaded"),
                    () -> "SIGHUP did not reload the daemon:\n" + CliHarness.read(log));
            assertEquals(0, sshTrue(dir, port).rc(), "no login after the reload");

            CliHarness.Result term = CliHarness.exec(dir, List.of("/bin/kill", "-TERM", Long.toString(daemon)));
            assertEquals(0, term.rc(), term.all());
            ProcessHandle h = ProcessHandle.of(daemon).orElse(null);
            if (h != null) {
                h.onExit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            assertFalse(Files.exists(dir.resolve("pqssh.pid")), "PidFile left behind after SIGTERM");
            String text = CliHarness.read(log);
            assertTrue(text.endsWith("\r\n"), text);
            for (String line : text.split("\r\n")) {
                assertFalse(line.isEmpty() || line.contains("\n") || line.matches("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*")
                        || line.contains(" INFO ") || line.contains("io.pqssh.sshd"), "not sshd's -E format: " + line);
            }
        } finally {
            l.children().forEach(ServerDetachTest::killByPid);
            if (daemon > 0) {
                killByPid(daemon);
            }
        }
    }

    @Test
    void aBusyPortOrABadConfigIsReportedByTheLaunchedProcessAndLeavesNoDaemon(@TempDir Path dir) throws Exception {
        Path conf = config(dir);
        try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Launch l = launch(dir, Map.of(), "-f", conf.toString(), "-p", Integer.toString(busy.getLocalPort()),
                    "-E", dir.resolve("log").toString());
            try {
                assertEquals(255, l.rc(), l.err());
                assertTrue(l.err().contains("Address already in use"), l.err());
                assertTrue(l.children().stream().noneMatch(c -> ProcessHandle.of(c).isPresent()),
                        "a daemon was left running: " + l.children());
                assertFalse(Files.exists(dir.resolve("pqssh.pid")));
            } finally {
                l.children().forEach(ServerDetachTest::killByPid);
            }
        }
        Launch bad = launch(dir, Map.of(), "-f", conf.toString(), "-o", "NoSuchKeyword=yes");
        try {
            assertEquals(255, bad.rc(), bad.err());
            assertTrue(bad.err().contains("NoSuchKeyword"), bad.err());
        } finally {
            bad.children().forEach(ServerDetachTest::killByPid);
        }
    }

    @Test
    void withoutEFileTheDaemonLogsToSyslogFacilityAuth(@TempDir Path dir) throws Exception {
        int port = CliHarness.freePort();
        Path conf = config(dir);
        Path socket = dir.resolve("log.sock");
        int fd = Libc.datagramSocket();
        long daemon = -1;
        Launch l = null;
        try {
            Libc.bind(fd, socket);
            l = launch(dir, Map.of(Detach.SYSLOG_SOCKET_ENV, socket.toString()), "-f", conf.toString(),
                    "-p", Integer.toString(port));
            assertEquals(0, l.rc(), l.err());
            daemon = daemonPid(dir);
            assertEquals(0, sshTrue(dir, port).rc());
            // <38> = facility AUTH (4) * 8 + severity INFO (6); the tag and time stamp of glibc's syslog(3)
            Pattern accepted = Pattern.compile("^<38>[A-Z][a-z]{2} [ 1-3]\\d \\d\\d:\\d\\d:\\d\\d pqssh-server\\["
                    + daemon + "\\]: Accepted publickey for " + Pattern.quote(CliHarness.user())
                    + " from 127\\.0\\.0\\.1 port \\d+ ssh2: ED25519 SHA256:\\S+$");
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (got.stream().noneMatch(m -> accepted.matcher(m).matches()) && System.nanoTime() < deadline) {
                byte[] d = Libc.receive(fd, 1000);
                if (d != null) {
                    got.add(new String(d, StandardCharsets.UTF_8));
                }
            }
            assertTrue(got.stream().anyMatch(m -> accepted.matcher(m).matches()), "syslog got:\n" + String.join("\n", got));
            String listening = "^<38>.* pqssh-server\\[" + daemon + "\\]: pqssh server listening on 127\\.0\\.0\\.1:"
                    + port + "$";
            assertTrue(got.stream().anyMatch(m -> m.matches(listening)), String.join("\n", got));
        } finally {
            Libc.close(fd);
            if (l != null) {
                l.children().forEach(ServerDetachTest::killByPid);
            }
            if (daemon > 0) {
                killByPid(daemon);
            }
        }
    }
}
