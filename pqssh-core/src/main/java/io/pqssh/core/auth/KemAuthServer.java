package io.pqssh.core.auth;

import java.security.SecureRandom;
import java.util.Objects;

import io.pqssh.core.kem.Encapsulation;
import io.pqssh.core.kem.MlKem;

/**
 * Server side of KEMUAuth: turns an authorized request into a challenge and the pending state that checks the
 * answer. Authorization (is this key allowed for this user, is the alg allowed) is decided by the caller before.
 */
public final class KemAuthServer {
    private final SecureRandom random;

    public KemAuthServer(SecureRandom random) {
        this.random = Objects.requireNonNull(random);
    }

    /** Encapsulates to the requested key, computes the expected response, discards the shared secret. */
    public IssuedChallenge issue(byte[] sessionId, KemAuthRequest request) {
        KemCredential cred = request.credential();
        Encapsulation enc = MlKem.encapsulate(cred.algorithm(), cred.publicKey(), random);
        try {
            // the challenge echoes alg and key exactly as received
            KemChallenge challenge = new KemChallenge(cred.alg(), cred.publicKey(), enc.ciphertext());
            byte[] ctx = AuthContext.encode(request, challenge);
            byte[] expected = ResponseDerivation.derive(enc.sharedSecret(), sessionId, ctx);
            return new IssuedChallenge(challenge,
                    new PendingChallenge(request.method(), cred.alg(), expected, System.nanoTime()));
        } finally {
            enc.destroy();
        }
    }

    /** The message to send and the state to keep. */
    public record IssuedChallenge(KemChallenge challenge, PendingChallenge pending) {
    }
}
