package io.pqssh.mina;

import static io.pqssh.mina.KemLoginTest.authorize;
import static io.pqssh.mina.KemLoginTest.kem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import org.apache.sshd.client.auth.UserAuthFactory;
import org.apache.sshd.client.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.client.future.AuthFuture;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.server.auth.password.PasswordAuthenticator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.auth.ChallengeRejectedException;
import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.wire.SshWriter;
import io.pqssh.mina.auth.ClientKemUserAuth;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;

/**
 * KEMUAuth refusals between plain MINA peers with {@code Pqssh.install}: every case must end with no authenticated server session, and where the spec
 * says so, with the client sending no response (or no challenge being issued at all).
 */
class KemRejectionTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final String SVC = KemAuthMethod.CONNECTION_SERVICE;
    private static final SecureRandom RND = new SecureRandom();

    private static KemKeyPair key768;
    private static KemKeyPair other768;

    @BeforeAll
    static void keys() {
        key768 = kem(KemAlgorithm.MLKEM768);
        other768 = kem(KemAlgorithm.MLKEM768);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static KemServerSettings.Builder settings() {
        return KemServerSettings.builder().authorizer(authorize(key768));
    }

    /** A client whose only methods are the rogue (and password if given). */
    private static LoopbackClient rogueClient(RogueKemClientAuth.Factory rogue, String password) {
        LoopbackClient cli = LoopbackClient.builder().timeout(T).start();
        List<UserAuthFactory> auth = new ArrayList<>();
        auth.add(rogue);
        if (password != null) {
            auth.add(UserAuthPasswordFactory.INSTANCE);
        }
        cli.sshClient().setUserAuthFactories(auth);
        return cli;
    }

    /** Connected, key-exchanged, not yet authenticated. */
    private static ClientSession connect(LoopbackClient cli, LoopbackServer srv, String password) throws Exception {
        ClientSession s = cli.sshClient().connect("alice", "127.0.0.1", srv.port()).verify(T).getSession();
        if (password != null) {
            s.addPasswordIdentity(password);
        }
        return s;
    }

    private static void assertAuthFails(ClientSession s) {
        AuthFuture f;
        try {
            f = s.auth();
        } catch (Exception e) {
            return; // the session is already gone: a failure too
        }
        assertThrows(Exception.class, () -> f.verify(T), "authentication unexpectedly succeeded");
        assertFalse(s.isAuthenticated());
    }

    private static void waitUntil(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }

    private static void assertPendingDrains(LoopbackServer srv) throws InterruptedException {
        waitUntil("no KEM challenge is pending (now " + srv.pendingKemChallenges() + ")",
                () -> srv.pendingKemChallenges() == 0);
    }

    /**
     * Collects a client's sessions and copies ClientKemUserAuth.REJECTION when one closes (MINA clears session
     * attributes after close, and LoopbackClient.login closes the session when it throws).
     */
    static final class ClientWatch implements SessionListener {
        private static final String NONE = "<none>";
        final List<ClientSession> sessions = new CopyOnWriteArrayList<>();
        final java.util.Map<Session, String> atClose = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public void sessionCreated(Session session) {
            if (session instanceof ClientSession c) {
                sessions.add(c);
            }
        }

        @Override
        public void sessionClosed(Session session) {
            String r = session.getAttribute(ClientKemUserAuth.REJECTION);
            atClose.put(session, r == null ? NONE : r);
        }

        static ClientWatch on(LoopbackClient cli) {
            ClientWatch w = new ClientWatch();
            cli.sshClient().addSessionListener(w);
            return w;
        }

        /** The client's refusal reason on its only session, or null if it refused nothing. */
        String rejection() throws InterruptedException {
            assertEquals(1, sessions.size(), "client sessions");
            ClientSession s = sessions.get(0);
            if (s.isOpen()) {
                return s.getAttribute(ClientKemUserAuth.REJECTION);
            }
            waitUntil("the closed client session was recorded", () -> atClose.containsKey(s));
            String r = atClose.get(s);
            return NONE.equals(r) ? null : r;
        }
    }

    private static byte[] flipBit(byte[] in, int bit) {
        byte[] out = in.clone();
        out[bit / 8] ^= (byte) (1 << (bit % 8));
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    // ------------------------------------------------------------------------------------------ positive control

    @Test
    void rogueAnsweringHonestlyLogsIn() throws Exception {
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(key768);
        try (LoopbackServer srv = LoopbackServer.builder().kem(settings().build()).start();
                LoopbackClient cli = rogueClient(rogue, null)) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (ClientSession s = connect(cli, srv, null)) {
                s.auth().verify(T);
                assertTrue(s.isAuthenticated());
            }
            assertTrue(w.anyAuthenticated());
            assertEquals(1, rogue.challenges.get());
            assertEquals(1, probe.kemResponses.get());
            assertEquals(List.of("publickey-kem"), probe.successes);
            assertPendingDrains(srv);
        }
    }

    // ------------------------------------------------------------------------------------ no challenge at all

    @Test
    void unauthorizedKeyGetsFailureAndNoChallenge() throws Exception {
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(other768);
        try (LoopbackServer srv = LoopbackServer.builder().kem(settings().build()).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(rogue, null); ClientSession s = connect(cli, srv, null)) {
                assertAuthFails(s);
            }
            assertEquals(1, rogue.requests.get());
            assertEquals(0, rogue.challenges.get(), "server issued a challenge for an unauthorized key");
            assertEquals(1, probe.kemRequests.get());

            // the honest client: fails cleanly, never had a challenge to refuse
            try (LoopbackClient cli = LoopbackClient.builder().timeout(T).kemIdentity(KemClientIdentity.of(other768)).start()) {
                ClientWatch cw = ClientWatch.on(cli);
                assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
                assertNull(cw.rejection());
            }
            assertEquals(0, probe.kemResponses.get());
            assertTrue(probe.successes.isEmpty());
            assertFalse(w.anyAuthenticated());
            assertEquals(2, w.sessions().size());
            assertPendingDrains(srv);
        }
    }

    @Test
    void algorithmNotAllowedGetsFailureAndNoChallenge() throws Exception {
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(key768);
        KemServerSettings kem = settings().allowedAlgorithms(EnumSet.of(KemAlgorithm.MLKEM1024)).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(rogue, null); ClientSession s = connect(cli, srv, null)) {
                assertAuthFails(s);
            }
            assertEquals(1, rogue.requests.get());
            assertEquals(0, rogue.challenges.get(), "server issued a challenge for a disallowed algorithm");
            try (LoopbackClient cli = LoopbackClient.builder().timeout(T).kemIdentity(KemClientIdentity.of(key768)).start()) {
                ClientWatch cw = ClientWatch.on(cli);
                assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
                assertNull(cw.rejection());
            }
            assertEquals(0, probe.kemResponses.get());
            assertFalse(w.anyAuthenticated());
        }
    }

    @Test
    void methodDisabledOnServerFailsCleanly() throws Exception {
        PasswordAuthenticator pw = (u, p, s) -> "pw".equals(p);
        try (LoopbackServer srv = LoopbackServer.builder().password(pw).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient cli = LoopbackClient.builder().timeout(T).kemIdentity(KemClientIdentity.of(key768)).start()) {
                ClientWatch cw = ClientWatch.on(cli);
                Exception e = assertTimeoutPreemptively(Duration.ofSeconds(15),
                        () -> assertThrows(Exception.class, () -> cli.login("alice", srv.port())));
                assertNotNull(e.getMessage());
                assertNull(cw.rejection());
            }
            assertEquals(0, probe.kemRequests.get());
            assertEquals(List.of(), probe.requests);
            assertEquals(1, w.sessions().size());
            assertFalse(w.anyAuthenticated());
        }
    }

    // ----------------------------------------------------------------------------------- crafted responses

    enum BadResponse {
        EMPTY(h -> new byte[0]),
        TRUNCATED_31(h -> Arrays.copyOf(h, 31)),
        EXTENDED_33(h -> Arrays.copyOf(h, 33)),
        /** The research implementation's compare loop accepts this one. */
        CORRECT_PLUS_256_ZEROS(h -> concat(h, new byte[256])),
        CORRECT_PLUS_32_ZEROS(h -> concat(h, new byte[32])),
        ONE_BIT_FLIPPED(h -> flipBit(h, RND.nextInt(256))),
        LAST_BIT_FLIPPED(h -> flipBit(h, 255)),
        ALL_ZERO(h -> new byte[32]);

        final UnaryOperator<byte[]> craft;

        BadResponse(UnaryOperator<byte[]> craft) {
            this.craft = craft;
        }
    }

    @ParameterizedTest
    @EnumSource(BadResponse.class)
    void craftedResponseIsRefused(BadResponse bad) throws Exception {
        AtomicReference<byte[]> honest = new AtomicReference<>();
        AtomicReference<byte[]> sent = new AtomicReference<>();
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(key768).transform(h -> {
            honest.set(h);
            byte[] r = bad.craft.apply(h);
            sent.set(r);
            return r;
        });
        try (LoopbackServer srv = LoopbackServer.builder().kem(settings().build()).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(rogue, null); ClientSession s = connect(cli, srv, null)) {
                assertAuthFails(s);
            }
            assertNotNull(honest.get(), "the rogue computed no honest response");
            assertFalse(Arrays.equals(honest.get(), sent.get()), "crafted response equals the honest one");
            assertEquals(1, rogue.challenges.get());
            assertEquals(1, rogue.responses.get());
            assertEquals(1, probe.kemResponses.get());
            assertTrue(probe.successes.isEmpty(), probe.successes.toString());
            assertFalse(w.anyAuthenticated());
            assertPendingDrains(srv);
        }
    }

    @Test
    void secondResponseAfterAWrongOneIsRefused() throws Exception {
        // wrong response then the correct one back to back: the expected value is single-use
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(key768)
                .respond(r -> List.of(flipBit(r.honest(), 0), r.honest()));
        try (LoopbackServer srv = LoopbackServer.builder().kem(settings().build()).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(rogue, null); ClientSession s = connect(cli, srv, null)) {
                assertAuthFails(s);
            }
            assertEquals(2, rogue.responses.get());
            assertTrue(probe.successes.isEmpty(), probe.successes.toString());
            assertFalse(w.anyAuthenticated());
            assertPendingDrains(srv);
        }
    }

    @Test
    void responseReplayedFromAnotherSessionIsRefused() throws Exception {
        RogueKemClientAuth.Factory first = new RogueKemClientAuth.Factory(key768);
        try (LoopbackServer srv = LoopbackServer.builder().kem(settings().build()).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(first, null); ClientSession s = connect(cli, srv, null)) {
                s.auth().verify(T);
                assertTrue(s.isAuthenticated(), "session 1 must log in so its response is a valid one");
            }
            byte[] captured = first.received.get(0).honest();
            assertNotNull(captured);
            assertEquals(List.of("publickey-kem"), probe.successes);

            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            AtomicReference<byte[]> ownHonest = new AtomicReference<>();
            RogueKemClientAuth.Factory replay = new RogueKemClientAuth.Factory(key768).respond(r -> {
                ownHonest.set(r.honest());
                return List.of(captured);
            });
            try (LoopbackClient cli = rogueClient(replay, null); ClientSession s = connect(cli, srv, null)) {
                assertAuthFails(s);
            }
            assertEquals(1, replay.responses.get());
            assertFalse(Arrays.equals(captured, ownHonest.get()), "two sessions derived the same response");
            assertEquals(1, w.sessions().size());
            assertFalse(w.anyAuthenticated());
            assertEquals(List.of("publickey-kem"), probe.successes, "only session 1 may have logged in");
            assertPendingDrains(srv);
        }
    }

    // -------------------------------------------------------------------- ciphertext mutations (server side)

    enum CtMutation {
        VALID(true, false, c -> c),
        ONE_BIT(false, false, c -> flipBit(c, RND.nextInt(c.length * 8))),
        ONE_PERCENT_BITS(false, false, c -> {
            byte[] out = c.clone();
            int bits = c.length * 8;
            boolean[] done = new boolean[bits];
            for (int n = 0; n < bits / 100;) {
                int b = RND.nextInt(bits);
                if (!done[b]) {
                    done[b] = true;
                    out[b / 8] ^= (byte) (1 << (b % 8));
                    n++;
                }
            }
            return out;
        }),
        RANDOM(false, false, c -> {
            byte[] out = new byte[c.length];
            RND.nextBytes(out);
            return out;
        }),
        ALL_ZERO(false, false, c -> new byte[c.length]),
        ALL_FF(false, false, c -> {
            byte[] out = new byte[c.length];
            Arrays.fill(out, (byte) 0xFF);
            return out;
        }),
        TRUNCATED_BY_1(false, true, c -> Arrays.copyOf(c, c.length - 1)),
        EXTENDED_BY_1(false, true, c -> Arrays.copyOf(c, c.length + 1));

        final boolean logsIn;
        final boolean clientAborts;
        final UnaryOperator<byte[]> mutate;

        CtMutation(boolean logsIn, boolean clientAborts, UnaryOperator<byte[]> mutate) {
            this.logsIn = logsIn;
            this.clientAborts = clientAborts;
            this.mutate = mutate;
        }
    }

    @ParameterizedTest
    @EnumSource(CtMutation.class)
    void mutatedCiphertext(CtMutation m) throws Exception {
        AtomicReference<KemChallenge> original = new AtomicReference<>();
        AtomicReference<KemChallenge> sent = new AtomicReference<>();
        KemServerSettings kem = settings().challengeInterceptor(c -> {
            original.set(c);
            KemChallenge out = new KemChallenge(c.alg(), c.publicKey(), m.mutate.apply(c.ciphertext()));
            sent.set(out);
            return out;
        }).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).start();
                LoopbackClient cli = LoopbackClient.builder().timeout(T).kemIdentity(KemClientIdentity.of(key768)).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            ClientWatch cw = ClientWatch.on(cli);
            if (m.logsIn) {
                try (ClientSession s = cli.login("alice", srv.port())) {
                    assertTrue(s.isAuthenticated());
                }
                assertTrue(w.anyAuthenticated());
                assertEquals(List.of("publickey-kem"), probe.successes);
            } else {
                assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
                assertFalse(w.anyAuthenticated());
                assertTrue(probe.successes.isEmpty(), probe.successes.toString());
                assertFalse(Arrays.equals(original.get().ciphertext(), sent.get().ciphertext()),
                        "the mutation left the ciphertext unchanged");
            }
            String rejection = cw.rejection();
            if (m.clientAborts) {
                assertNotNull(rejection, "the client did not refuse a ciphertext of the wrong length");
                assertTrue(rejection.contains("ciphertext"), rejection);
                assertEquals(0, probe.kemResponses.get(), "the client answered a wrong-length ciphertext");
            } else {
                assertNull(rejection, rejection);
                assertEquals(1, probe.kemResponses.get(), "the client must answer a same-length ciphertext");
            }
            assertPendingDrains(srv);
            printTiming(m, sent.get());
        }
    }

    /** Decapsulation plus response derivation as the client runs it, per ciphertext class. Print only. */
    private static void printTiming(CtMutation m, KemChallenge challenge) {
        KemAuthRequest req = KemAuthRequest.kem("alice", SVC,
                new KemCredential(key768.algorithm().sshName(), key768.publicKey()));
        byte[] sid = new byte[32];
        int n = 200;
        for (int i = 0; i < 50; i++) {
            respondQuietly(sid, req, challenge);
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            respondQuietly(sid, req, challenge);
        }
        long perOp = (System.nanoTime() - t0) / n;
        System.out.printf("KemRejectionTest timing: %-16s ct %4d bytes: %6.1f us per client check+decaps+HMAC%n",
                m, challenge.ciphertext().length, perOp / 1000.0);
    }

    private static void respondQuietly(byte[] sid, KemAuthRequest req, KemChallenge challenge) {
        try {
            KemAuthClient.respond(sid, req, challenge, key768);
        } catch (ChallengeRejectedException e) {
            // wrong length: aborted before Decaps, which is what is timed then
        }
    }

    // ------------------------------------------------------------- challenge not issued for the client's request

    enum ChallengeTamper {
        OTHER_PUBLIC_KEY("different public key", false),
        ALG_MLKEM1024("algorithm", false),
        ALG_UNKNOWN("algorithm", false),
        /** Same parameter set, other spelling: accepted by the client, but the transcript no longer matches. */
        ALG_RESPELLED(null, true);

        final String rejectionContains;
        final boolean clientResponds;

        ChallengeTamper(String rejectionContains, boolean clientResponds) {
            this.rejectionContains = rejectionContains;
            this.clientResponds = clientResponds;
        }

        KemChallenge apply(KemChallenge c) {
            return switch (this) {
                case OTHER_PUBLIC_KEY -> new KemChallenge(c.alg(), other768.publicKey(), c.ciphertext());
                case ALG_MLKEM1024 -> new KemChallenge("mlkem1024", c.publicKey(), c.ciphertext());
                case ALG_UNKNOWN -> new KemChallenge("mlkem999", c.publicKey(), c.ciphertext());
                case ALG_RESPELLED -> new KemChallenge("ML-KEM-768", c.publicKey(), c.ciphertext());
            };
        }
    }

    @ParameterizedTest
    @EnumSource(ChallengeTamper.class)
    void tamperedChallenge(ChallengeTamper t) throws Exception {
        AtomicInteger issued = new AtomicInteger();
        KemServerSettings kem = settings().challengeInterceptor(c -> {
            issued.incrementAndGet();
            return t.apply(c);
        }).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).start();
                LoopbackClient cli = LoopbackClient.builder().timeout(T).kemIdentity(KemClientIdentity.of(key768)).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            ClientWatch cw = ClientWatch.on(cli);
            assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
            assertEquals(1, issued.get());
            assertFalse(w.anyAuthenticated());
            String rejection = cw.rejection();
            if (t.clientResponds) {
                assertNull(rejection, rejection);
                assertEquals(1, probe.kemResponses.get());
            } else {
                assertNotNull(rejection, "the client answered a challenge not issued for its request");
                assertTrue(rejection.contains(t.rejectionContains), rejection);
                assertEquals(0, probe.kemResponses.get(), "the client sent a response");
            }
            assertPendingDrains(srv);
        }
    }

    // --------------------------------------------------------------------------------- pending-state limits

    @Test
    void tooManyPendingChallengesRefusesUntilTheSlotIsFreed() throws Exception {
        KemServerSettings kem = settings().maxPending(1, 1).build();
        RogueKemClientAuth.Factory holder = new RogueKemClientAuth.Factory(key768).respond(r -> List.of());
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient rogueCli = rogueClient(holder, null);
                    LoopbackClient honest = LoopbackClient.builder().timeout(T).kemIdentity(KemClientIdentity.of(key768)).start()) {
                ClientSession held = connect(rogueCli, srv, null);
                try {
                    AuthFuture heldAuth = held.auth();
                    waitUntil("the rogue holds a challenge",
                            () -> holder.challenges.get() == 1 && srv.pendingKemChallenges() == 1);

                    ClientWatch cw = ClientWatch.on(honest);
                    assertThrows(Exception.class, () -> honest.login("alice", srv.port()));
                    assertNull(cw.rejection(), "the refused client should not even have had a challenge");
                    assertEquals(2, probe.kemRequests.get(), "the second client sent no KEM request");
                    assertEquals(0, probe.kemResponses.get());
                    assertEquals(1, srv.pendingKemChallenges());
                    assertFalse(heldAuth.isDone(), "the rogue's authentication should still be in progress");
                    assertFalse(w.anyAuthenticated());
                } finally {
                    held.close(true);
                }
                assertPendingDrains(srv);
                try (ClientSession s = honest.login("alice", srv.port())) {
                    assertTrue(s.isAuthenticated());
                }
                assertPendingDrains(srv);
                assertEquals(List.of("publickey-kem"), probe.successes);
            }
        }
    }

    @Test
    void newRequestWhilePendingDropsThePendingState() throws Exception {
        RogueKemClientAuth.Factory holder = new RogueKemClientAuth.Factory(key768).respond(r -> List.of());
        try (LoopbackServer srv = LoopbackServer.builder().kem(settings().build()).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(holder, null); ClientSession s = connect(cli, srv, null)) {
                AuthFuture auth = s.auth();
                waitUntil("a challenge is pending",
                        () -> holder.challenges.get() == 1 && srv.pendingKemChallenges() == 1);
                // any new request: here "none", which the server refuses with FAILURE
                RogueKemClientAuth.writeRequest(s, "alice", SVC, "none", new byte[0]);
                waitUntil("the pending challenge is dropped", () -> srv.pendingKemChallenges() == 0);
                assertFalse(s.isClosed() || s.isClosing(), "dropping the state must not need a disconnect");
                assertThrows(Exception.class, () -> auth.verify(T));
                assertEquals(0, srv.pendingKemChallenges());
            }
            assertEquals(0, probe.kemResponses.get());
            assertFalse(w.anyAuthenticated());
        }
    }

    @Test
    void responseToADroppedChallengeIsRefused() throws Exception {
        // limit 1: the second challenge can only be issued if the first one's slot was really freed
        KemServerSettings kem = settings().maxPending(1, 1).build();
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(key768);
        rogue.respond(r -> rogue.received.size() == 1 ? List.of() : List.of(rogue.received.get(0).honest()));
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(rogue, null); ClientSession s = connect(cli, srv, null)) {
                AuthFuture auth = s.auth();
                waitUntil("a challenge is pending", () -> rogue.challenges.get() == 1);
                byte[] fields = new SshWriter().putString(key768.algorithm().sshName())
                        .putString(key768.publicKey()).toByteArray();
                RogueKemClientAuth.writeRequest(s, "alice", SVC, "publickey-kem", fields);
                assertThrows(Exception.class, () -> auth.verify(T));
                assertEquals(2, rogue.challenges.get(), "the re-request got no second challenge");
                assertEquals(1, rogue.responses.get());
                assertFalse(Arrays.equals(rogue.received.get(0).honest(), rogue.received.get(1).honest()));
            }
            assertEquals(1, probe.kemResponses.get());
            assertTrue(probe.successes.isEmpty(), probe.successes.toString());
            assertFalse(w.anyAuthenticated());
            assertPendingDrains(srv);
        }
    }

    // ---------------------------------------------------------------------------------------- malformed requests

    /**
     * Requests the reference server answers with FAILURE (issue 14 §2): well-formed fields naming an unknown
     * algorithm or carrying a key of the wrong length. Only {@link MalformedKem} encoding errors disconnect.
     */
    enum UnusableKem {
        PUBLIC_KEY_TOO_SHORT, PUBLIC_KEY_TOO_LONG, UNKNOWN_ALGORITHM, EMPTY_ALGORITHM;

        byte[] fields(KemCredential c) {
            byte[] pk = c.publicKey();
            return switch (this) {
                case PUBLIC_KEY_TOO_SHORT -> new SshWriter().putString(c.alg())
                        .putString(Arrays.copyOf(pk, pk.length - 1)).toByteArray();
                case PUBLIC_KEY_TOO_LONG -> new SshWriter().putString(c.alg())
                        .putString(Arrays.copyOf(pk, pk.length + 1)).toByteArray();
                case UNKNOWN_ALGORITHM -> new SshWriter().putString("mlkem999").putString(pk).toByteArray();
                case EMPTY_ALGORITHM -> new SshWriter().putString("").putString(pk).toByteArray();
            };
        }
    }

    @ParameterizedTest
    @EnumSource(UnusableKem.class)
    void unusableKemCredentialFailsLikeTheReferenceAndTheConnectionGoesOn(UnusableKem kind) throws Exception {
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(key768).rawRequest(kind::fields);
        AtomicInteger passwordCalls = new AtomicInteger();
        KemServerSettings kem = KemServerSettings.builder().authorizer((u, c, a) -> true).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).password((u, p, s) -> passwordCalls.incrementAndGet() > 0)
                .start()) {
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(rogue, "pw"); ClientSession s = connect(cli, srv, "pw")) {
                s.auth().verify(T);
                assertTrue(s.isAuthenticated(), "password after the failed KEM request");
            }
            assertEquals(1, rogue.requests.get());
            assertEquals(0, rogue.challenges.get());
            assertEquals(1, passwordCalls.get(), "FAILURE, then the client went on to password");
            assertTrue(w.anyAuthenticated());
            assertPendingDrains(srv);
        }
    }

    /** Encoding errors: the reference server disconnects ({@code fatal_fr(r, "parse packet")}). */
    enum MalformedKem {
        TRAILING_BYTE, PUBLIC_KEY_MISSING, STRING_LENGTH_OVERRUN, UNKNOWN_ALGORITHM_AND_TRAILING_BYTE;

        byte[] fields(KemCredential c) {
            byte[] pk = c.publicKey();
            return switch (this) {
                case UNKNOWN_ALGORITHM_AND_TRAILING_BYTE -> new SshWriter().putString("mlkem999").putString(pk)
                        .putByte(0).toByteArray();
                case TRAILING_BYTE -> new SshWriter().putString(c.alg()).putString(pk).putByte(0).toByteArray();
                case PUBLIC_KEY_MISSING -> new SshWriter().putString(c.alg()).toByteArray();
                case STRING_LENGTH_OVERRUN -> new SshWriter().putString(c.alg()).putUint32(pk.length + 100)
                        .putRaw(pk).toByteArray();
            };
        }
    }

    @ParameterizedTest
    @EnumSource(MalformedKem.class)
    void malformedKemRequestDisconnects(MalformedKem kind) throws Exception {
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(key768).rawRequest(kind::fields);
        AtomicInteger passwordCalls = new AtomicInteger();
        // an authorizer that would accept anything: the refusal must come from parsing
        KemServerSettings kem = KemServerSettings.builder().authorizer((u, c, a) -> true).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).password((u, p, s) -> passwordCalls.incrementAndGet() > 0)
                .start()) {
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(rogue, "pw"); ClientSession s = connect(cli, srv, "pw")) {
                assertAuthFails(s);
                waitUntil("the client session is closed", () -> s.isClosed() || s.isClosing());
            }
            waitUntil("the server session is closed",
                    () -> w.sessions().size() == 1 && (w.sessions().get(0).isClosed() || w.sessions().get(0).isClosing()));
            assertEquals(1, rogue.requests.get());
            assertEquals(0, rogue.challenges.get());
            assertEquals(0, passwordCalls.get(), "the connection should have been dropped before password");
            assertFalse(w.anyAuthenticated());
            assertPendingDrains(srv);
        }
    }

    enum MalformedHybrid {
        FLAG_FALSE, TRUNCATED_AFTER_SIGNATURE, KEM_KEY_TOO_SHORT, TRAILING_BYTE, EMPTY;

        byte[] fields(KemCredential c) {
            byte[] pk = c.publicKey();
            SshWriter w = new SshWriter();
            if (this == EMPTY) {
                return w.toByteArray();
            }
            w.putBoolean(this != FLAG_FALSE).putString("ssh-ed25519").putString(new byte[51])
                    .putString(new byte[83]);
            return switch (this) {
                case FLAG_FALSE -> w.putString(c.alg()).putString(pk).toByteArray();
                case TRUNCATED_AFTER_SIGNATURE -> w.toByteArray();
                case KEM_KEY_TOO_SHORT -> w.putString(c.alg()).putString(Arrays.copyOf(pk, 100)).toByteArray();
                case TRAILING_BYTE -> w.putString(c.alg()).putString(pk).putByte(7).toByteArray();
                case EMPTY -> throw new AssertionError();
            };
        }
    }

    @ParameterizedTest
    @EnumSource(MalformedHybrid.class)
    void malformedHybridRequestFailsAndConnectionStaysUsable(MalformedHybrid kind) throws Exception {
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(KemAuthMethod.PUBLICKEY_KEM_AND, key768,
                key768.algorithm().sshName()).rawRequest(kind::fields);
        AtomicInteger passwordCalls = new AtomicInteger();
        KemServerSettings kem = KemServerSettings.builder().authorizer((u, c, a) -> true).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).publickey((u, k, s) -> true)
                .password((u, p, s) -> passwordCalls.incrementAndGet() > 0 && "pw".equals(p)).start()) {
            ServerAuthProbe probe = ServerAuthProbe.on(srv.sshd());
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(rogue, "pw"); ClientSession s = connect(cli, srv, "pw")) {
                s.auth().verify(T);
                assertTrue(s.isAuthenticated());
                assertFalse(s.isClosed() || s.isClosing());
            }
            assertEquals(1, rogue.requests.get());
            assertEquals(0, rogue.challenges.get());
            assertEquals(1, passwordCalls.get());
            assertEquals(List.of("publickey-kem-and", "password"), probe.requests);
            assertEquals(List.of("password"), probe.successes, "only password may have succeeded");
            assertTrue(w.anyAuthenticated());
            assertPendingDrains(srv);
        }
    }

    @Test
    void invalidEncapsulationKeyOfRightLengthGetsNoChallengeAndLeaksNoSlot() throws Exception {
        // 1184 bytes of 0xFF: coefficients not reduced mod q, so FIPS 203's encapsulation-key check fails
        RogueKemClientAuth.Factory rogue = new RogueKemClientAuth.Factory(key768).rawRequest(c -> {
            byte[] pk = new byte[c.algorithm().publicKeyBytes()];
            Arrays.fill(pk, (byte) 0xFF);
            return new SshWriter().putString(c.alg()).putString(pk).toByteArray();
        });
        KemServerSettings kem = KemServerSettings.builder().authorizer((u, c, a) -> true).maxPending(1, 1).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
            try (LoopbackClient cli = rogueClient(rogue, null); ClientSession s = connect(cli, srv, null)) {
                assertAuthFails(s);
            }
            assertEquals(1, rogue.requests.get());
            assertEquals(0, rogue.challenges.get());
            assertFalse(w.anyAuthenticated());
            assertPendingDrains(srv);
            // the single slot is still usable
            try (LoopbackClient cli = LoopbackClient.builder().timeout(T).kemIdentity(KemClientIdentity.of(key768)).start();
                    ClientSession s = cli.login("alice", srv.port())) {
                assertTrue(s.isAuthenticated());
            }
        }
    }
}
