package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh} has no idle limit of its own, as ssh: MINA's client IDLE_TIMEOUT (10 minutes by default) cut a
 * quiet session. The limit is shortened to 2 s through MINA's system property, and a command that is silent for 4 s
 * must still end normally (against sshd, a separate process the property does not reach).
 */
class ClientIdleTest {
    private static final String MINA_IDLE = "org.apache.sshd.config.idle-timeout";

    @TempDir
    Path dir;

    @Test
    void aQuietSessionOutlivesAShortenedMinaIdleTimeout() throws Exception {
        try (ForwardingHarness h = new ForwardingHarness(dir)) {
            Path key = h.userKey();
            int port = h.startSshd(h.authorizedKeys());
            String old = System.getProperty(MINA_IDLE);
            System.setProperty(MINA_IDLE, "2000");
            try {
                CliHarness.Result r = CliHarness.pqssh("ssh", "-F", "none", "-i", key.toString(), "-o",
                        "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile="
                        + dir.resolve("kh"), "-p", String.valueOf(port), "127.0.0.1", "sleep 4; echo done");
                assertEquals(0, r.rc(), r.all());
                assertEquals("done", r.out().strip(), r.all());
            } finally {
                if (old == null) {
                    System.clearProperty(MINA_IDLE);
                } else {
                    System.setProperty(MINA_IDLE, old);
                }
            }
        }
    }
}
