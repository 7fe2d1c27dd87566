package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.session.ReservedSessionMessagesHandler;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.server.PqsshServer;

/**
 * Issue 11 §1: a repeated SERVICE_REQUEST "ssh-userauth" before login is accepted again without building a new
 * user-auth service (sshd's {@code input_service_request}), so the failure count, the user name and the pending KEM
 * challenge carry over; LoginGraceTime counts from the TCP accept; a connection holds at most one pending KEM
 * challenge, freed on expiry and on close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RepeatedServiceRequestTest {
    @Test
    void failuresCarryOverARepeatedServiceRequest() throws Exception {
        try (PqsshServer s = TestServers.builder().maxAuthTries(3).start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            c.password("alice", "wrong");
            assertEquals("FAILURE publickey-kem,password", c.next().toString());
            c.serviceRequest("ssh-userauth");
            c.password("alice", "wrong");
            assertEquals("FAILURE publickey-kem,password", c.next().toString());
            c.serviceRequest("ssh-userauth");
            c.password("alice", "wrong");
            assertEquals("CLOSED (Too many authentication failures)", c.next().toString());
        }
    }

    @Test
    void theUserNameStaysLocked() throws Exception {
        try (PqsshServer s = TestServers.builder().start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            c.password("alice", "wrong");
            assertEquals("FAILURE publickey-kem,password", c.next().toString());
            c.serviceRequest("ssh-userauth");
            c.password("bob", "right");
            RawAuthClient.Reply r = c.next();
            assertTrue(r.closed() && r.disconnect().startsWith("Change of username or service is not allowed"),
                    r.toString());
        }
    }

    @Test
    void otherServicesBeforeLoginEndTheConnection() throws Exception {
        try (PqsshServer s = TestServers.builder().start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            c.serviceRequest("ssh-connection");
            RawAuthClient.Reply r = c.next();
            assertTrue(r.closed(), r.toString());
        }
    }

    @Test
    void afterLoginAServiceRequestIsUnimplementedAndChangesNothing() throws Exception {
        try (PqsshServer s = TestServers.builder().start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            CopyOnWriteArrayList<Integer> unimplemented = new CopyOnWriteArrayList<>();
            c.session().setReservedSessionMessagesHandler(new ReservedSessionMessagesHandler() {
                @Override
                public boolean handleUnimplementedMessage(Session session, int cmd, Buffer buffer) {
                    unimplemented.add(cmd);
                    return true;
                }
            });
            c.password("alice", "right");
            assertEquals(SshConstants.SSH_MSG_USERAUTH_SUCCESS, c.next().cmd());
            c.serviceRequest("ssh-userauth");
            c.serviceRequest("ssh-connection");
            long end = System.nanoTime() + RawAuthClient.T.toNanos();
            while (unimplemented.size() < 2 && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assertEquals(2, unimplemented.size(), "UNIMPLEMENTED replies");
            assertFalse(c.session().isClosed(), "the connection stays up");
            assertEquals(1, s.sshd().getActiveSessions().size());
        }
    }

    @Test
    void loginGraceTimeCountsFromAcceptAndIsNeverReset() throws Exception {
        Duration grace = Duration.ofSeconds(2);
        try (PqsshServer s = TestServers.builder().loginGraceTime(grace).maxAuthTries(1000).start()) {
            long t0 = System.nanoTime();
            try (RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
                boolean closed = false;
                // a request and a new SERVICE_REQUEST every 200 ms: each used to restart MINA's timer
                for (int i = 0; i < 40 && !closed; i++) {
                    try {
                        c.serviceRequest("ssh-userauth");
                        c.none("alice");
                    } catch (java.io.IOException closing) {
                        closed = true; // the server closed it between two requests
                        break;
                    }
                    closed = c.awaitClosed(Duration.ofMillis(200));
                }
                long took = System.nanoTime() - t0;
                assertTrue(closed, "still connected after " + took / 1_000_000 + " ms with LoginGraceTime 2 s");
                assertTrue(took < Duration.ofMillis(4500).toNanos(), "closed only after " + took / 1_000_000 + " ms");
                assertTrue(took > Duration.ofMillis(1500).toNanos(), "closed too early: " + took / 1_000_000 + " ms");
            }
        }
    }

    @Test
    void oneConnectionHoldsAtMostOneChallenge() throws Exception {
        try (PqsshServer s = TestServers.builder().maxAuthTries(3).start()) {
            try (RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
                // 40 > the 32 slots per source: today's code refused the 33rd
                for (int i = 0; i < 40; i++) {
                    c.serviceRequest("ssh-userauth");
                    c.kem("alice", "mlkem768", TestServers.ALICE_KEM.publicKey());
                    assertEquals(KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE, c.next().cmd(), "challenge " + i);
                    assertEquals(1, s.pendingKemChallenges(), "pending after challenge " + i);
                }
                // a different method drops the pending challenge
                c.password("alice", "wrong");
                assertEquals("FAILURE publickey-kem,password", c.next().toString());
                assertEquals(0, s.pendingKemChallenges());
                c.kem("alice", "mlkem768", TestServers.ALICE_KEM.publicKey());
                assertEquals(KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE, c.next().cmd());
                assertEquals(1, s.pendingKemChallenges());
            }
            waitFor(() -> s.pendingKemChallenges() == 0, "the slot is freed when the connection closes");
        }
    }

    @Test
    void anUnansweredChallengeExpires() throws Exception {
        KemServerSettings.Builder kem = KemServerSettings.builder()
                .authorizer((user, cred, addr) -> cred.samePublicKey(TestServers.ALICE_KEM.publicKey()))
                .challengeTimeout(Duration.ofMillis(700));
        try (PqsshServer s = TestServers.builder().kem(kem.build()).start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            c.kem("alice", "mlkem768", TestServers.ALICE_KEM.publicKey());
            assertEquals(KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE, c.next().cmd());
            assertEquals(1, s.pendingKemChallenges());
            waitFor(() -> s.pendingKemChallenges() == 0, "the challenge expires after 700 ms");
            assertFalse(c.session().isClosed(), "the connection itself stays");
            // a late answer finds nothing pending: FAILURE
            c.raw(KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE, b -> b.putBytes(new byte[32]));
            assertEquals("FAILURE publickey-kem,password", c.next().toString());
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier cond, String what) throws InterruptedException {
        long end = System.nanoTime() + RawAuthClient.T.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out: " + what);
            }
            Thread.sleep(20);
        }
    }
}
