package io.pqssh.mina.auth;

import java.security.KeyPair;
import java.util.Objects;
import java.util.Optional;

import io.pqssh.core.kem.KemPrivateKey;

/**
 * What the client logs in with: the KEM key, the exact algorithm spelling to send (the research peer sends
 * {@code ML-KEM-768}; pqssh sends the canonical name by default) and, for {@code publickey-kem-and}, the
 * classical signature key.
 */
public final class KemClientIdentity {
    private final KemPrivateKey kemKey;
    private final String wireAlg;
    private final KeyPair signatureKey;

    public KemClientIdentity(KemPrivateKey kemKey, String wireAlg, KeyPair signatureKey) {
        this.kemKey = Objects.requireNonNull(kemKey, "kemKey");
        this.wireAlg = wireAlg == null ? kemKey.algorithm().sshName() : wireAlg;
        this.signatureKey = signatureKey;
    }

    public static KemClientIdentity of(KemPrivateKey kemKey) {
        return new KemClientIdentity(kemKey, null, null);
    }

    public KemPrivateKey kemKey() {
        return kemKey;
    }

    public String wireAlg() {
        return wireAlg;
    }

    public Optional<KeyPair> signatureKey() {
        return Optional.ofNullable(signatureKey);
    }
}
