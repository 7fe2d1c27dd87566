package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh server -D} as its own process, as an admin starts it: under umask 000 a session still gets sshd's
 * umask (the admin's | 022, so 0022 here, never 0000); SIGTERM ends it in order with sshd's exit status 0 (not the
 * JVM's 143), its "Received signal 15; terminating." line and the PidFile removed.
 */
class ServerProcessSafetyTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** The server under {@code umask 000}, as root's shell would start it; returns the process. */
    private Process start(Path pid, Path portFile, Path err) throws Exception {
        Path hostKey = CliHarness.sshKeygen(dir.resolve("host_key"), "ed25519");
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path authorized = dir.resolve("authorized_keys");
        Files.writeString(authorized, Files.readString(CliHarness.pub(key)));
        String cmd = "umask 000; exec " + CliHarness.pqsshCommandLine() + " server -D -p 0 --port-file " + portFile
                + " -o HostKey=" + hostKey + " -o AuthorizedKeysFile=" + authorized
                + " -o AuthorizedKEMKeysFile=none -o StrictModes=no -o PidFile=" + pid;
        Process p = new ProcessBuilder("/bin/sh", "-c", cmd).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(dir.resolve("server.out").toFile()).redirectError(err.toFile()).start();
        CliHarness.waitUntil(WAIT, () -> !p.isAlive() || CliHarness.read(portFile).matches("\\d+\\n"),
                () -> "server did not start:\n" + CliHarness.read(err));
        assertTrue(p.isAlive(), "server exited: " + CliHarness.read(err));
        return p;
    }

    private static void stopForcibly(Process p) throws InterruptedException {
        if (p.isAlive()) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void sessionsDoNotInheritAnAdminsUmaskThatLetsOthersWrite() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        Path err = dir.resolve("server.err");
        Path port = dir.resolve("port");
        Process p = start(dir.resolve("pid"), port, err);
        try {
            CliHarness.Result r = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", "none",
                    "-i", dir.resolve("id_ed25519").toString(), "-o", "BatchMode=yes",
                    "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    "-p", CliHarness.read(port).strip(), CliHarness.user() + "@127.0.0.1",
                    "umask; touch " + dir.resolve("made-by-session") + "; stat -c %a " + dir.resolve("made-by-session")));
            assertEquals(0, r.rc(), r.all() + "\nserver:\n" + CliHarness.read(err));
            assertEquals("0022\n644", r.out().strip(), "sshd: umask |= 022 at start\n" + r.all());
        } finally {
            stopForcibly(p);
        }
    }

    @Test
    void sigtermEndsTheServerWithStatusZeroAndRemovesThePidFile() throws Exception {
        Path err = dir.resolve("server.err");
        Path pid = dir.resolve("pid");
        Process p = start(pid, dir.resolve("port"), err);
        try {
            CliHarness.waitUntil(WAIT, () -> Files.exists(pid), () -> "no PidFile:\n" + CliHarness.read(err));
            CliHarness.Result k = CliHarness.exec(dir, List.of("/bin/kill", "-TERM", Long.toString(p.pid())));
            assertEquals(0, k.rc(), k.all());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "SIGTERM did not end the server:\n" + CliHarness.read(err));
            assertEquals(0, p.exitValue(), "sshd exits 0 on SIGTERM\n" + CliHarness.read(err));
            assertTrue(CliHarness.read(err).contains("Received signal 15; terminating."), CliHarness.read(err));
            assertFalse(Files.exists(pid), "PidFile left behind");
        } finally {
            stopForcibly(p);
        }
    }
}
