package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ServerAliveInterval}/{@code ServerAliveCountMax}, through a loopback relay the test pauses (the server then
 * answers nothing while TCP stays up): {@code pqssh ssh -o ServerAliveInterval=1 -o ServerAliveCountMax=2 host sleep 60}
 * ends with 255 and OpenSSH's {@code Timeout, server HOST not responding.} within a few seconds, against Debian's sshd
 * and {@code pqssh server}. With the relay running, keepalives flow (bytes cross the relay while the remote command
 * is silent) and the session ends normally with the command's output and status.
 */
class ServerAliveTest {
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
    void openSshSshd() throws Exception {
        both(h.startSshd(h.authorizedKeys()));
    }

    @Test
    void pqsshServer() throws Exception {
        both(h.startServer(h.authorizedKeys()));
    }

    private ForwardingHarness.Proc ssh(int port, String command) throws Exception {
        // -v: the debug lines (keepalive failure, "session error: ...") are in the failure message if one happens
        return h.startPqssh(Map.of(), "ssh", "-v", "-F", "none", "-o", "StrictHostKeyChecking=no", "-o",
                "UserKnownHostsFile=" + dir.resolve("kh"), "-i", key.toString(), "-p", String.valueOf(port),
                "-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=2", CliHarness.user() + "@127.0.0.1",
                command);
    }

    private void both(int serverPort) throws Exception {
        try (PausableRelay relay = new PausableRelay(serverPort)) {
            // a live server: keepalives cross the relay while the command is silent, and do not disturb it
            ForwardingHarness.Proc live = ssh(relay.port(), "echo STARTED; sleep 5; echo ALIVE-OK; exit 3");
            CliHarness.waitUntil(Duration.ofSeconds(60), () -> CliHarness.read(live.out()).contains("STARTED")
                    || !live.process().isAlive(), live::output);
            long before = relay.relayed();
            Thread.sleep(3000);
            long during = relay.relayed() - before;
            assertEquals(3, live.waitFor(Duration.ofSeconds(60)), live.output());
            assertTrue(CliHarness.read(live.out()).contains("ALIVE-OK"), live.output());
            assertFalse(CliHarness.read(live.err()).contains("Timeout"), live.output());
            // each keepalive is a global request and its reply: two encrypted packets of some 50-100 bytes
            assertTrue(during >= 100, "no keepalive crossed the relay in 3 s of silence: " + during + " bytes");

            // the server stops answering: 255 and OpenSSH's message after about interval * (countmax + 1)
            ForwardingHarness.Proc hung = ssh(relay.port(), "echo STARTED; sleep 60");
            CliHarness.waitUntil(Duration.ofSeconds(60), () -> CliHarness.read(hung.out()).contains("STARTED")
                    || !hung.process().isAlive(), hung::output);
            relay.pause();
            long paused = System.nanoTime();
            int rc = hung.waitFor(Duration.ofSeconds(30));
            long seconds = Duration.ofNanos(System.nanoTime() - paused).toSeconds();
            relay.resume();
            assertEquals(255, rc, hung.output());
            assertTrue(CliHarness.read(hung.err()).contains("Timeout, server 127.0.0.1 not responding."),
                    hung.output());
            assertTrue(seconds >= 2 && seconds <= 15, "timed out after " + seconds + " s: " + hung.output());
        }
    }
}
