package io.pqssh.mina.auth;

import java.io.IOException;
import java.security.KeyPair;
import java.util.Objects;
import java.util.Optional;

import org.apache.sshd.common.session.Session;

import io.pqssh.core.auth.ChallengeRejectedException;
import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.auth.UnusableKemCredentialException;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemPrivateKey;
import io.pqssh.core.keys.kem.KemPublicKey;

/**
 * What the client logs in with: the KEM key (or an agent holding it), the exact algorithm spelling to send (the
 * research peer sends {@code ML-KEM-768}; pqssh sends the canonical name by default) and, for
 * {@code publickey-kem-and}, the classical signature key; optionally a certificate of the KEM key
 * ({@code mlkem768-cert-v01@pqssh.io}, docs/publickey-kem.md 9.5), which is then offered instead of the bare key.
 */
public final class KemClientIdentity {
    /**
     * Answers a challenge for the identity's key on {@code session}: decapsulate and derive the response
     * (docs/publickey-kem.md 7). An agent also needs the session's host key binding, hence the whole session.
     */
    @FunctionalInterface
    public interface Responder {
        byte[] respond(Session session, KemAuthRequest request, KemChallenge challenge)
                throws ChallengeRejectedException, IOException;
    }

    private final KemPrivateKey kemKey;
    private final KemAlgorithm algorithm;
    private final byte[] publicKey;
    private final Responder responder;
    private final String wireAlg;
    private final KeyPair signatureKey;
    private final SshCertificate certificate;

    public KemClientIdentity(KemPrivateKey kemKey, String wireAlg, KeyPair signatureKey) {
        this.kemKey = Objects.requireNonNull(kemKey, "kemKey");
        this.algorithm = kemKey.algorithm();
        this.publicKey = kemKey.publicKey();
        this.responder = (session, request, challenge) -> KemAuthClient.respond(session.getSessionId(), request,
                challenge, kemKey);
        this.wireAlg = wireAlg == null ? kemKey.algorithm().sshName() : wireAlg;
        this.signatureKey = signatureKey;
        this.certificate = null;
    }

    private KemClientIdentity(KemAlgorithm algorithm, byte[] publicKey, Responder responder, KeyPair signatureKey) {
        this.kemKey = null;
        this.algorithm = Objects.requireNonNull(algorithm);
        this.publicKey = publicKey.clone();
        this.responder = Objects.requireNonNull(responder);
        this.wireAlg = algorithm.sshName();
        this.signatureKey = signatureKey;
        this.certificate = null;
    }

    private KemClientIdentity(KemClientIdentity base, SshCertificate certificate) {
        this.kemKey = base.kemKey;
        this.algorithm = base.algorithm;
        this.publicKey = base.publicKey;
        this.responder = base.responder;
        this.wireAlg = certificate.certType();
        this.signatureKey = base.signatureKey;
        this.certificate = certificate;
    }

    /**
     * This identity offering {@code certificate} (alg = its type, key field = its blob) instead of the bare key.
     *
     * @throws IllegalArgumentException when the certificate does not certify this identity's key
     */
    public KemClientIdentity withCertificate(SshCertificate certificate) {
        if (!java.util.Arrays.equals(certificate.certifiedKey(), KemPublicKey.blob(algorithm, publicKey))) {
            throw new IllegalArgumentException(certificate.certType() + " certifies another key");
        }
        return new KemClientIdentity(this, certificate);
    }

    /** The certificate offered with the key, if any. */
    public Optional<SshCertificate> certificate() {
        return Optional.ofNullable(certificate);
    }

    /** The request's {@code alg} and {@code kem_public_key}: the bare key, or the certificate. */
    public KemCredential credential() {
        if (certificate == null) {
            return new KemCredential(wireAlg, publicKey);
        }
        try {
            return KemCredential.ofCertificate(certificate);
        } catch (UnusableKemCredentialException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    public static KemClientIdentity of(KemPrivateKey kemKey) {
        return new KemClientIdentity(kemKey, null, null);
    }

    /** A key held elsewhere (an agent): only its public half is here, {@code responder} answers challenges. */
    public static KemClientIdentity remote(KemAlgorithm algorithm, byte[] publicKey, Responder responder,
            KeyPair signatureKey) {
        return new KemClientIdentity(algorithm, publicKey, responder, signatureKey);
    }

    /** The local private key; empty for a key held by an agent. */
    public Optional<KemPrivateKey> kemKey() {
        return Optional.ofNullable(kemKey);
    }

    public KemAlgorithm algorithm() {
        return algorithm;
    }

    /** Raw FIPS 203 encapsulation key. */
    public byte[] publicKey() {
        return publicKey.clone();
    }

    public byte[] respond(Session session, KemAuthRequest request, KemChallenge challenge)
            throws ChallengeRejectedException, IOException {
        return responder.respond(session, request, challenge);
    }

    public String wireAlg() {
        return wireAlg;
    }

    public Optional<KeyPair> signatureKey() {
        return Optional.ofNullable(signatureKey);
    }
}
