package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that refuses the pty (Debian's sshd with {@code PermitTTY no}): {@code pqssh ssh -tt} prints ssh's
 * {@code PTY allocation request failed on channel 0} and, the pty having been asked for explicitly, ends with 255 as
 * OpenSSH's ssh 9.2 does against the same server; with the pty granted, no such line. (MINA sends pty-req without
 * asking for a reply: before this, the refusal went unnoticed and the command ran without a pty.)
 */
class PtyRefusedTest {
    private static final String LINE = "PTY allocation request failed on channel 0";

    @TempDir
    Path dir;

    private ForwardingHarness h;

    @AfterEach
    void tearDown() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private List<String> args(Path key, int port) {
        return List.of("-F", "none", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile="
                + dir.resolve("known_hosts"), "-o", "BatchMode=yes", "-i", key.toString(), "-p", String.valueOf(port),
                "-tt", CliHarness.user() + "@127.0.0.1", "echo ran; exit 3");
    }

    @Test
    void refusedPtyGivesSshsLineAndEndsAsSsh() throws Exception {
        h = new ForwardingHarness(dir);
        Path key = h.userKey();
        int refusing = h.startSshd(h.authorizedKeys(), "PermitTTY no");

        List<String> ssh = new java.util.ArrayList<>(List.of(CliHarness.SSH.toString()));
        ssh.addAll(args(key, refusing));
        CliHarness.Result o = CliHarness.exec(dir, ssh);
        assertTrue(o.err().contains(LINE), o.all());

        List<String> pq = new java.util.ArrayList<>(List.of("ssh"));
        pq.addAll(args(key, refusing));
        CliHarness.Result r = CliHarness.pqssh(pq.toArray(String[]::new));
        assertTrue(r.err().lines().anyMatch(LINE::equals), r.all());
        assertEquals(o.rc(), r.rc(), "OpenSSH: " + o.all() + "\npqssh: " + r.all());
        assertEquals(255, r.rc(), r.all());
    }

    @Test
    void grantedPtyPrintsNothing() throws Exception {
        h = new ForwardingHarness(dir);
        Path key = h.userKey();
        int port = h.startSshd(h.authorizedKeys());
        List<String> pq = new java.util.ArrayList<>(List.of("ssh"));
        pq.addAll(args(key, port));
        CliHarness.Result r = CliHarness.pqssh(pq.toArray(String[]::new));
        assertEquals(3, r.rc(), r.all());
        assertTrue(r.out().contains("ran"), r.all());
        assertFalse(r.err().contains("PTY allocation"), r.all());
    }
}
