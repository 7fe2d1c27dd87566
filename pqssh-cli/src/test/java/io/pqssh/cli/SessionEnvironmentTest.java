package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code SendEnv} and {@code SetEnv} of {@code pqssh ssh} reach the remote command through {@code env} requests,
 * against Debian's sshd with {@code AcceptEnv} and against {@code pqssh server}'s {@code AcceptEnv} (sshd's semantics:
 * none by default, wildcard patterns, lines accumulate, the server's own variables such as USER win). A variable the
 * server does not accept, or one SendEnv does not name, never arrives.
 */
class SessionEnvironmentTest {
    /** Prints the variables between brackets, so an empty one shows as []. */
    private static final String PRINT = "'echo \"[$PQT_SEND][$PQT_SET][$PQT_OTHER][$PQT_REFUSED][$USER]\"'";

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

    private String run(int port, String options) throws Exception {
        // PQT_OTHER is in the environment but not named by SendEnv; PQT_REFUSED is sent but not accepted
        String script = "$PQSSH ssh -F none -o StrictHostKeyChecking=no -o UserKnownHostsFile=" + dir.resolve("kh")
                + " -i " + key + " -p " + port + " " + options + " " + CliHarness.user() + "@127.0.0.1 " + PRINT;
        CliHarness.Result r = CliHarness.shell(dir, Map.of("PQT_SEND", "sent value", "PQT_OTHER", "not named",
                "PQT_REFUSED", "refused"), script);
        assertEquals(0, r.rc(), r.all());
        return r.out().strip();
    }

    private static final String SEND_AND_SET = "-o SendEnv=PQT_SEND -o SendEnv=PQT_REFUSED"
            + " -o 'SetEnv PQT_SET=\"two words\" USER=intruder'";

    @Test
    void openSshSshdWithAcceptEnv() throws Exception {
        int port = h.startSshd(h.authorizedKeys(), "AcceptEnv PQT_SEND USER", "AcceptEnv PQT_SE?");
        assertEquals("[sent value][two words][][][" + CliHarness.user() + "]", run(port, SEND_AND_SET));
    }

    @Test
    void pqsshServerAcceptsNothingByDefault() throws Exception {
        int port = h.startServer(h.authorizedKeys());
        assertEquals("[][][][][" + CliHarness.user() + "]", run(port, SEND_AND_SET));
    }

    @Test
    void pqsshServerWithAcceptEnv() throws Exception {
        int port = h.startServer(h.authorizedKeys(), "-o", "AcceptEnv=PQT_SEND USER",
                "-o", "AcceptEnv=PQT_SE?");
        assertEquals("[sent value][two words][][][" + CliHarness.user() + "]", run(port, SEND_AND_SET));
        // a pty session gets them too
        assertEquals("[sent value][two words][][][" + CliHarness.user() + "]",
                run(port, SEND_AND_SET + " -tt").replace("\r", ""));
    }

    @Test
    void pqsshServerRefusesAnAssignmentAsPattern() throws Exception {
        // sshd: "Invalid environment name"; pqssh server: the same refusal at start-up, naming the value
        CliHarness.Result r = CliHarness.pqssh("server", "-D", "-p", "0", "-o", "AcceptEnv=LANG=C",
                "-o", "HostKey=" + CliHarness.sshKeygen(dir.resolve("hk"), "ed25519"));
        org.junit.jupiter.api.Assertions.assertNotEquals(0, r.rc(), r.all());
        org.junit.jupiter.api.Assertions.assertTrue(r.err().contains("invalid environment name \"LANG=C\""), r.all());
    }
}
