package io.pqssh.core.auth;

import java.util.Arrays;
import java.util.Optional;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemPrivateKey;

/**
 * Client side of KEMUAuth: checks a challenge against the request it answers and derives the response. The checks
 * run in the spec's order and before decapsulation, so a challenge for another key or parameter set never touches
 * the secret key.
 */
public final class KemAuthClient {
    private KemAuthClient() {
    }

    public static byte[] respond(byte[] sessionId, KemAuthRequest request, KemChallenge challenge,
            KemPrivateKey key) throws ChallengeRejectedException {
        return respond(sessionId, request.user(), request.service(), request.method(), request.credential(),
                challenge, key);
    }

    /**
     * As above from the request's CTX fields (for an agent, which never sees the signature of a
     * {@code publickey-kem-and} request: it is not part of CTX).
     */
    public static byte[] respond(byte[] sessionId, String user, String service, KemAuthMethod method,
            KemCredential sent, KemChallenge challenge, KemPrivateKey key) throws ChallengeRejectedException {
        // a certificate type is echoed exactly (its names are not normalized, section 9.5); a parameter set by name
        Optional<KemAlgorithm> echoed = sent.certificate().isPresent()
                ? Optional.of(sent.algorithm()).filter(a -> challenge.alg().equals(sent.alg()))
                : KemAlgorithm.fromName(challenge.alg());
        if (echoed.isEmpty() || echoed.get() != sent.algorithm()) {
            throw new ChallengeRejectedException("challenge algorithm '" + KemCredential.printable(challenge.alg())
                    + "' differs from requested '" + sent.alg() + "'");
        }
        if (!sent.samePublicKey(challenge.publicKey())) {
            throw new ChallengeRejectedException("challenge is for a different public key");
        }
        // a certificate credential echoes the certificate blob; the key decapsulates for the certified key
        if (!Arrays.equals(key.publicKey(), sent.encapsulationKey()) || key.algorithm() != sent.algorithm()) {
            throw new ChallengeRejectedException("challenge does not match the loaded private key");
        }
        int expectedCt = sent.algorithm().ciphertextBytes();
        if (challenge.ciphertext().length != expectedCt) {
            throw new ChallengeRejectedException("ciphertext is " + challenge.ciphertext().length + " bytes, "
                    + sent.algorithm().sshName() + " needs " + expectedCt);
        }
        byte[] ss = key.decapsulate(challenge.ciphertext());
        try {
            return ResponseDerivation.derive(ss, sessionId, AuthContext.encode(user, service, method, sent, challenge));
        } finally {
            Arrays.fill(ss, (byte) 0);
        }
    }
}
