package io.pqssh.core.auth;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;

import io.pqssh.core.kem.Encapsulation;
import io.pqssh.core.kem.KemEncapsulator;
import io.pqssh.core.kem.KemProviders;

/**
 * Server side of KEMUAuth: turns an authorized request into a challenge and the pending state that checks the
 * answer. Authorization (is this key allowed for this user, is the alg allowed) is decided by the caller before.
 * Encapsulation uses the provider chosen by {@link KemProviders#selected()} unless one is given.
 */
public final class KemAuthServer {
    private static final int BLOCK = 64;
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256", "SUN");
        } catch (java.security.GeneralSecurityException e) {
            try {
                return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e2) {
                throw new IllegalStateException("no SHA-256", e2);
            }
        }
    });

    private final SecureRandom random;
    private final KemEncapsulator encapsulator;

    public KemAuthServer(SecureRandom random) {
        this(random, KemProviders.encapsulator());
    }

    public KemAuthServer(SecureRandom random, KemEncapsulator encapsulator) {
        this.random = Objects.requireNonNull(random);
        this.encapsulator = Objects.requireNonNull(encapsulator);
    }

    public KemEncapsulator encapsulator() {
        return encapsulator;
    }

    /**
     * Encapsulates to the requested key (a certificate's certified key), computes the expected response, discards
     * the shared secret.
     */
    public IssuedChallenge issue(byte[] sessionId, KemAuthRequest request) {
        KemCredential cred = request.credential();
        Encapsulation enc = encapsulator.encapsulate(cred.algorithm(), cred.encapsulationKey(), random);
        try {
            // the challenge echoes alg and key (a certificate: its whole blob) exactly as received
            KemChallenge challenge = new KemChallenge(cred.alg(), cred.publicKey(), enc.ciphertext());
            byte[] ctx = AuthContext.encode(request, challenge);
            byte[] expected = hmacSha256(enc.sharedSecret(), ResponseDerivation.LABEL, sessionId, ctx);
            return new IssuedChallenge(challenge,
                    new PendingChallenge(request.method(), cred.alg(), expected, System.nanoTime()));
        } finally {
            enc.destroy();
        }
    }

    /**
     * The same value as {@link ResponseDerivation#derive} (RFC 2104 HMAC-SHA-256 over LABEL || SID || CTX), with the
     * JDK's SHA-256, which uses the CPU's SHA instructions (Bouncy Castle's digest is plain Java and was most of the
     * non-KEM cost of a challenge). The padded key blocks are wiped here, and MessageDigest clears its state on
     * {@code digest()}.
     */
    static byte[] hmacSha256(byte[] key32, byte[] label, byte[] sessionId, byte[] ctx) {
        if (key32.length != 32) {
            throw new IllegalArgumentException("ML-KEM shared secret must be 32 bytes");
        }
        MessageDigest md = SHA256.get();
        byte[] pad = new byte[BLOCK];
        byte[] inner = null;
        try {
            for (int i = 0; i < BLOCK; i++) {
                pad[i] = (byte) ((i < key32.length ? key32[i] : 0) ^ 0x36);
            }
            md.update(pad);
            md.update(label);
            md.update(sessionId);
            md.update(ctx);
            inner = md.digest();
            for (int i = 0; i < BLOCK; i++) {
                pad[i] = (byte) ((i < key32.length ? key32[i] : 0) ^ 0x5c);
            }
            md.update(pad);
            md.update(inner);
            return md.digest();
        } finally {
            md.reset();
            Arrays.fill(pad, (byte) 0);
            if (inner != null) {
                Arrays.fill(inner, (byte) 0);
            }
        }
    }

    /** The message to send and the state to keep. */
    public record IssuedChallenge(KemChallenge challenge, PendingChallenge pending) {
    }
}
