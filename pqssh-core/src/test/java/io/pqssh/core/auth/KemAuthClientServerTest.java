package io.pqssh.core.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.KemPrivateKey;
import io.pqssh.core.kem.MlKem;

/** The client's checks (order, abort before Decaps) and full challenge/response round trips with the server. */
class KemAuthClientServerTest {
    static final SecureRandom RND = new SecureRandom();
    static final byte[] SID = TestVectors.pattern(0x80, 32);
    static final KemAuthServer SERVER = new KemAuthServer(RND);

    /** Wraps a key and counts decapsulations, to prove a rejected challenge never reaches the secret key. */
    static final class CountingKey implements KemPrivateKey {
        final KemPrivateKey inner;
        final AtomicInteger decaps = new AtomicInteger();

        CountingKey(KemPrivateKey inner) {
            this.inner = inner;
        }

        @Override
        public KemAlgorithm algorithm() {
            return inner.algorithm();
        }

        @Override
        public byte[] publicKey() {
            return inner.publicKey();
        }

        @Override
        public byte[] decapsulate(byte[] ciphertext) {
            decaps.incrementAndGet();
            return inner.decapsulate(ciphertext);
        }
    }

    static KemAuthRequest request(KemKeyPair kp, String alg) {
        return KemAuthRequest.kem("alice", "ssh-connection", new KemCredential(alg, kp.publicKey()));
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void roundTripAllSizesAndSpellings(KemAlgorithm a) throws Exception {
        KemKeyPair kp = MlKem.generate(a, RND);
        for (String alg : new String[] {a.sshName(), a.fipsName(), "kyber" + a.sshName().substring(5)}) {
            for (KemAuthRequest req : new KemAuthRequest[] {request(kp, alg), KemAuthRequest.hybrid("alice",
                    "ssh-connection", KemCodecTest.sig(), new KemCredential(alg, kp.publicKey()))}) {
                KemAuthServer.IssuedChallenge issued = SERVER.issue(SID, req);
                KemChallenge ch = issued.challenge();
                assertEquals(alg, ch.alg(), "alg echoed byte for byte");
                assertArrayEquals(kp.publicKey(), ch.publicKey());
                assertEquals(a.ciphertextBytes(), ch.ciphertext().length);
                assertEquals(req.method(), issued.pending().method());
                // over the wire and back
                KemChallenge received = KemChallenge.decode(ch.encode());
                byte[] resp = KemAuthClient.respond(SID, KemAuthRequest.decode(req.encode()), received, kp);
                assertEquals(32, resp.length);
                assertTrue(issued.pending().verify(KemResponse.decode(KemResponse.encode(resp))));
            }
        }
    }

    @Test
    void eachIssueIsFresh() {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RND);
        KemAuthRequest req = request(kp, "mlkem768");
        assertFalse(Arrays.equals(SERVER.issue(SID, req).challenge().ciphertext(),
                SERVER.issue(SID, req).challenge().ciphertext()));
    }

    @Test
    void responseIsBoundToSessionUserServiceAndMethod() throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RND);
        KemCredential cred = new KemCredential("mlkem768", kp.publicKey());
        KemAuthRequest req = KemAuthRequest.kem("alice", "ssh-connection", cred);
        KemAuthServer.IssuedChallenge issued = SERVER.issue(SID, req);
        KemChallenge ch = issued.challenge();
        byte[] otherSid = SID.clone();
        otherSid[0] ^= 1;
        byte[] right = KemAuthClient.respond(SID, req, ch, kp);
        // replay into another session, or for another user/service/method: different response
        assertNotEquals(Arrays.toString(right), Arrays.toString(KemAuthClient.respond(otherSid, req, ch, kp)));
        for (KemAuthRequest other : new KemAuthRequest[] {KemAuthRequest.kem("mallory", "ssh-connection", cred),
            KemAuthRequest.kem("alice", "other-service", cred),
            KemAuthRequest.hybrid("alice", "ssh-connection", KemCodecTest.sig(), cred)}) {
            assertFalse(Arrays.equals(right, KemAuthClient.respond(SID, other, ch, kp)));
        }
        assertTrue(issued.pending().verify(right));
    }

    @Test
    void differentAlgRejectedBeforeDecaps() {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RND);
        CountingKey key = new CountingKey(kp);
        KemAuthRequest req = request(kp, "mlkem768");
        KemChallenge good = SERVER.issue(SID, req).challenge();
        for (String alg : new String[] {"mlkem512", "mlkem1024", "ML-KEM-1024", "kyber512", "mlkem769", "",
            "ssh-ed25519", "mlkem768 "}) {
            KemChallenge bad = new KemChallenge(alg, good.publicKey(), good.ciphertext());
            assertThrows(ChallengeRejectedException.class, () -> KemAuthClient.respond(SID, req, bad, key), alg);
        }
        assertEquals(0, key.decaps.get());
    }

    @Test
    void algOfAnotherSizeWithMatchingLengthsRejected() throws Exception {
        // a challenge that claims mlkem1024 and carries a 1568-byte key and ciphertext, for a 768 request
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RND);
        CountingKey key = new CountingKey(kp);
        KemKeyPair big = MlKem.generate(KemAlgorithm.MLKEM1024, RND);
        KemChallenge bad = new KemChallenge("mlkem1024", big.publicKey(), new byte[1568]);
        assertThrows(ChallengeRejectedException.class,
                () -> KemAuthClient.respond(SID, request(kp, "mlkem768"), bad, key));
        assertEquals(0, key.decaps.get());
    }

    @Test
    void normalizedEqualAlgAccepted() throws Exception {
        // the research server normalizes and echoes; a client must accept an echo that normalizes to its own alg.
        // The exact strings of both halves enter CTX, so such a response only verifies against a server that
        // really sent that spelling.
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RND);
        KemAuthRequest req = request(kp, "ML-KEM-768");
        KemChallenge real = SERVER.issue(SID, req).challenge();
        KemChallenge respelled = new KemChallenge("mlkem768", real.publicKey(), real.ciphertext());
        byte[] r1 = KemAuthClient.respond(SID, req, respelled, kp);
        byte[] r2 = KemAuthClient.respond(SID, req, real, kp);
        assertFalse(Arrays.equals(r1, r2));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 1183, 1185, 2368})
    void echoedKeyDiffersRejectedBeforeDecaps(int variant) {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RND);
        CountingKey key = new CountingKey(kp);
        KemAuthRequest req = request(kp, "mlkem768");
        KemChallenge good = SERVER.issue(SID, req).challenge();
        byte[] pk = switch (variant) {
            case 0 -> MlKem.generate(KemAlgorithm.MLKEM768, RND).publicKey(); // another valid key
            case 1 -> {
                byte[] k = kp.publicKey();
                k[k.length - 1] ^= 1; // one bit
                yield k;
            }
            default -> Arrays.copyOf(kp.publicKey(), variant); // truncated, extended, doubled length
        };
        KemChallenge bad = new KemChallenge("mlkem768", pk, good.ciphertext());
        assertThrows(ChallengeRejectedException.class, () -> KemAuthClient.respond(SID, req, bad, key));
        assertEquals(0, key.decaps.get());
    }

    @Test
    void loadedKeyMustMatchTheRequest() {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RND);
        KemKeyPair other = MlKem.generate(KemAlgorithm.MLKEM768, RND);
        CountingKey key = new CountingKey(other);
        KemAuthRequest req = request(kp, "mlkem768");
        KemChallenge ch = SERVER.issue(SID, req).challenge();
        assertThrows(ChallengeRejectedException.class, () -> KemAuthClient.respond(SID, req, ch, key));
        assertEquals(0, key.decaps.get());
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void wrongCiphertextLengthRejectedBeforeDecaps(KemAlgorithm a) {
        KemKeyPair kp = MlKem.generate(a, RND);
        CountingKey key = new CountingKey(kp);
        KemAuthRequest req = request(kp, a.sshName());
        byte[] ct = SERVER.issue(SID, req).challenge().ciphertext();
        for (int len : new int[] {ct.length - 1, ct.length + 1, 0, 1, 2 * ct.length}) {
            KemChallenge bad = new KemChallenge(a.sshName(), kp.publicKey(), Arrays.copyOf(ct, len));
            assertThrows(ChallengeRejectedException.class, () -> KemAuthClient.respond(SID, req, bad, key),
                    "len " + len);
        }
        assertEquals(0, key.decaps.get());
    }

    /**
     * The research implementation's robustness classes: same-length garbage is answered (implicit rejection gives a
     * pseudo-random secret), the answer does not verify, and only the valid ciphertext authenticates.
     */
    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void sameLengthGarbageAnsweredButFails(KemAlgorithm a) throws Exception {
        KemKeyPair kp = MlKem.generate(a, RND);
        KemAuthRequest req = request(kp, a.sshName());
        Random r = new Random(a.ordinal());
        for (String kind : new String[] {"one-bit", "one-percent", "random", "zero", "ff", "valid"}) {
            KemAuthServer.IssuedChallenge issued = SERVER.issue(SID, req);
            byte[] ct = issued.challenge().ciphertext();
            switch (kind) {
                case "one-bit" -> ct[r.nextInt(ct.length)] ^= (byte) (1 << r.nextInt(8));
                case "one-percent" -> {
                    for (int i = 0; i < ct.length * 8 / 100; i++) {
                        ct[r.nextInt(ct.length)] ^= (byte) (1 << r.nextInt(8));
                    }
                }
                case "random" -> r.nextBytes(ct);
                case "zero" -> Arrays.fill(ct, (byte) 0);
                case "ff" -> Arrays.fill(ct, (byte) 0xFF);
                default -> {
                }
            }
            CountingKey key = new CountingKey(kp);
            KemChallenge delivered = new KemChallenge(a.sshName(), kp.publicKey(), ct);
            byte[] resp = KemAuthClient.respond(SID, req, delivered, key);
            assertEquals(1, key.decaps.get(), kind);
            assertEquals(32, resp.length, kind);
            assertEquals(kind.equals("valid"), issued.pending().verify(resp), kind);
            assertTrue(issued.pending().isConsumed());
        }
    }

    @Test
    void implicitRejectionIsDeterministicPerCiphertext() throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM512, RND);
        KemAuthRequest req = request(kp, "mlkem512");
        byte[] ct = new byte[768];
        Arrays.fill(ct, (byte) 0x5A);
        KemChallenge ch = new KemChallenge("mlkem512", kp.publicKey(), ct);
        assertArrayEquals(KemAuthClient.respond(SID, req, ch, kp), KemAuthClient.respond(SID, req, ch, kp));
        // and it depends on z (the second seed half): the expanded key from the same seed gives the same value
        assertArrayEquals(KemAuthClient.respond(SID, req, ch, kp),
                KemAuthClient.respond(SID, req, ch, MlKem.fromExpanded(KemAlgorithm.MLKEM512,
                        kp.expandedSecretKey())));
    }

    @Test
    void responseDerivationInputs() {
        assertEquals(29, ResponseDerivation.LABEL.length);
        assertEquals("ssh-publickey-kem-client-auth", new String(ResponseDerivation.LABEL,
                java.nio.charset.StandardCharsets.US_ASCII));
        byte[] ss = TestVectors.pattern(1, 32);
        byte[] ctx = TestVectors.pattern(9, 100);
        assertArrayEquals(TestVectors.jdkResponse(ss, SID, ctx), ResponseDerivation.derive(ss, SID, ctx));
        assertArrayEquals(TestVectors.pattern(1, 32), ss, "derive leaves the caller's secret alone");
        // SID is raw, not length-prefixed: moving a byte between SID and CTX does not change the MAC input
        byte[] sid2 = Arrays.copyOf(SID, 33);
        sid2[32] = ctx[0];
        assertArrayEquals(ResponseDerivation.derive(ss, SID, ctx),
                ResponseDerivation.derive(ss, sid2, Arrays.copyOfRange(ctx, 1, ctx.length)));
        assertThrows(IllegalArgumentException.class, () -> ResponseDerivation.derive(new byte[31], SID, ctx));
        assertThrows(IllegalArgumentException.class, () -> ResponseDerivation.derive(new byte[33], SID, ctx));
    }

    @Test
    void issueDiscardsTheSharedSecretAndKeepsOnlySmallState() {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM1024, RND);
        KemAuthServer.IssuedChallenge issued = SERVER.issue(SID, request(kp, "mlkem1024"));
        assertTrue(issued.pending().explicitStateBytes() < 100);
        assertEquals("mlkem1024", issued.pending().alg());
    }
}
