package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.SshConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.server.PqsshServer;

/**
 * Issue 11: MaxAuthTries with sshd's semantics (auth2.c): failed requests count, the connection's very first request
 * does not when it is {@code none}, pending challenges do not; when the failures reach MaxAuthTries the server
 * disconnects instead of answering FAILURE. So MaxAuthTries N means N failed attempts and N-1 FAILURE replies.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MaxAuthTriesTest {
    private static final String TOO_MANY = "Too many authentication failures";

    /** Sends wrong passwords until the server ends the connection; returns the replies in order. */
    private static List<String> wrongPasswordsUntilClosed(RawAuthClient c, int max) throws Exception {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            c.password("alice", "wrong" + i);
            RawAuthClient.Reply r = c.next();
            seen.add(r.toString());
            if (r.closed()) {
                break;
            }
        }
        return seen;
    }

    @Test
    void maxAuthTriesSixMeansSixFailuresAndFiveFailureReplies() throws Exception {
        try (PqsshServer s = TestServers.builder().maxAuthTries(6).start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            List<String> seen = wrongPasswordsUntilClosed(c, 12);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                expected.add("FAILURE publickey-kem,password");
            }
            expected.add("CLOSED (" + TOO_MANY + ")");
            assertEquals(expected, seen);
        }
    }

    @Test
    void onlyTheFirstNoneIsFree() throws Exception {
        try (PqsshServer s = TestServers.builder().maxAuthTries(3).start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            c.none("alice");
            assertEquals("FAILURE publickey-kem,password", c.next().toString(), "first none: free");
            c.none("alice");
            assertEquals("FAILURE publickey-kem,password", c.next().toString(), "second none: failure 1");
            c.password("alice", "wrong");
            assertEquals("FAILURE publickey-kem,password", c.next().toString(), "failure 2");
            c.none("alice");
            assertEquals("CLOSED (" + TOO_MANY + ")", c.next().toString(), "failure 3 = MaxAuthTries");
        }
    }

    @Test
    void unknownAndDisabledMethodsCount() throws Exception {
        try (PqsshServer s = TestServers.builder().maxAuthTries(3).start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            c.request("alice", "hostbased", b -> { });
            assertEquals("FAILURE publickey-kem,password", c.next().toString());
            c.request("alice", "PASSWORD", b -> {
                b.putBoolean(false);
                b.putString("right");
            });
            assertEquals("FAILURE publickey-kem,password", c.next().toString(),
                    "method names are case-sensitive, as in sshd");
            c.request("alice", "publickey", b -> { });
            assertEquals("CLOSED (" + TOO_MANY + ")", c.next().toString());
        }
    }

    @Test
    void pendingKemChallengesAndTheRightPasswordDoNotCount() throws Exception {
        try (PqsshServer s = TestServers.builder().maxAuthTries(2).start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            for (int i = 0; i < 10; i++) {
                c.kem("alice", "mlkem768", TestServers.ALICE_KEM.publicKey());
                assertEquals(KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE, c.next().cmd(),
                        "challenge " + i + " (abandoned challenges are not failures)");
            }
            c.password("alice", "wrong");
            assertEquals("FAILURE publickey-kem,password", c.next().toString());
            c.password("alice", "right");
            assertEquals(SshConstants.SSH_MSG_USERAUTH_SUCCESS, c.next().cmd());
        }
    }

    @Test
    void wrongKemResponsesCount() throws Exception {
        try (PqsshServer s = TestServers.builder().maxAuthTries(2).start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            for (int i = 0; i < 2; i++) {
                c.kem("alice", "mlkem768", TestServers.ALICE_KEM.publicKey());
                assertEquals(KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE, c.next().cmd());
                c.raw(KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE, b -> b.putBytes(new byte[32]));
                RawAuthClient.Reply r = c.next();
                if (i == 0) {
                    assertEquals("FAILURE publickey-kem,password", r.toString());
                } else {
                    assertEquals("CLOSED (" + TOO_MANY + ")", r.toString());
                }
            }
            assertTrue(c.session().isClosed() || c.awaitClosed(RawAuthClient.T));
        }
    }
}
