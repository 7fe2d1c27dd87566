package io.pqssh.lab.sidechannel;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import io.pqssh.core.auth.ChallengeRejectedException;
import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;

/**
 * The JMH benchmark behind {@code pqssh lab decaps-timing}. {@code client}: the client's whole answer to a
 * challenge, {@link KemAuthClient#respond} (checks, decapsulation, CTX, HMAC; a wrong-length ciphertext ends in
 * {@link ChallengeRejectedException}). {@code raw}: {@link MlKem#decapsulate} alone, same-length classes only.
 * Key and ciphertexts are fixed per trial, derived from constant seeds so every fork sees the same bytes.
 */
@State(Scope.Thread)
public class DecapsTimingBenchmark {
    public static final String CLIENT = "client";
    public static final String RAW = "raw";

    @Param({"mlkem768"})
    public String algorithm;

    @Param({CLIENT})
    public String path;

    @Param({"valid"})
    public String ciphertextClass;

    private KemKeyPair key;
    private byte[] sessionId;
    private KemAuthRequest request;
    private KemChallenge challenge;
    private byte[] ciphertext;

    @Setup(Level.Trial)
    public void setUp() {
        Inputs in = Inputs.create(KemAlgorithm.require(algorithm), CiphertextClass.parse(ciphertextClass));
        key = in.key;
        sessionId = in.sessionId;
        request = in.request;
        challenge = in.challenge;
        ciphertext = in.challenge.ciphertext();
        if (RAW.equals(path) && !CiphertextClass.parse(ciphertextClass).sameLength()) {
            throw new IllegalArgumentException("raw decapsulation needs a ciphertext of the right length");
        }
        if (!CLIENT.equals(path) && !RAW.equals(path)) {
            throw new IllegalArgumentException("path must be client or raw: " + path);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        key.destroy();
    }

    @Benchmark
    public Object run() {
        if (RAW.equals(path)) {
            return MlKem.decapsulate(key, ciphertext);
        }
        try {
            return KemAuthClient.respond(sessionId, request, challenge, key);
        } catch (ChallengeRejectedException e) {
            return e;
        }
    }

    /** The fixed inputs of one class: a key from a constant seed, its request, and the class's challenge. */
    static final class Inputs {
        final KemKeyPair key;
        final byte[] sessionId;
        final KemAuthRequest request;
        final KemChallenge challenge;

        private Inputs(KemKeyPair key, byte[] sessionId, KemAuthRequest request, KemChallenge challenge) {
            this.key = key;
            this.sessionId = sessionId;
            this.request = request;
            this.challenge = challenge;
        }

        static Inputs create(KemAlgorithm alg, CiphertextClass cls) {
            byte[] seed = new byte[KemAlgorithm.SEED_BYTES];
            for (int i = 0; i < seed.length; i++) {
                seed[i] = (byte) (i * 7 + 1);
            }
            KemKeyPair key = MlKem.fromSeed(alg, seed);
            java.security.SecureRandom encRandom;
            try {
                encRandom = java.security.SecureRandom.getInstance("SHA1PRNG");
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            encRandom.setSeed(42L); // deterministic: the same valid ciphertext in every fork
            byte[] valid = MlKem.encapsulate(alg, key.publicKey(), encRandom).ciphertext();
            byte[] ct = cls.derive(valid, new Random(0x5eedL + cls.ordinal()));
            byte[] sid = "decaps-timing-session-id-32bytes".getBytes(StandardCharsets.US_ASCII);
            KemAuthRequest req = KemAuthRequest.kem("bench", "ssh-connection",
                    new KemCredential(alg.sshName(), key.publicKey()));
            return new Inputs(key, sid, req, new KemChallenge(alg.sshName(), key.publicKey(), ct));
        }
    }
}
