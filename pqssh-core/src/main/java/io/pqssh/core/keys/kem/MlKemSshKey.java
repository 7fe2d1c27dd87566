package io.pqssh.core.keys.kem;

import java.util.Objects;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.KemPrivateKey;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.wire.SshWriter;

/**
 * An ML-KEM credential as an {@code openssh-key-v1} private key of type {@code mlkem512/768/1024}. Private fields
 * after the type string: {@code string raw_pk, string seed} (the 64-byte FIPS 203 seed d ‖ z). The wrapped
 * {@link KemKeyPair} is the {@link KemPrivateKey} a client answers challenges with.
 */
public final class MlKemSshKey implements SshPrivateKey {
    private final KemKeyPair keyPair;

    public MlKemSshKey(KemKeyPair keyPair) {
        this.keyPair = Objects.requireNonNull(keyPair);
    }

    /** The key pair (not a copy: destroying this key destroys it). */
    public KemKeyPair keyPair() {
        return keyPair;
    }

    /** The same object as {@link #keyPair()}, typed for the authentication client. */
    public KemPrivateKey kemPrivateKey() {
        return keyPair;
    }

    public KemAlgorithm algorithm() {
        return keyPair.algorithm();
    }

    public KemPublicKey publicKey() {
        return new KemPublicKey(keyPair.algorithm(), keyPair.publicKey());
    }

    @Override
    public String keyType() {
        return keyPair.algorithm().sshName();
    }

    @Override
    public byte[] publicKeyBlob() {
        return KemPublicKey.blob(keyPair.algorithm(), keyPair.publicKey());
    }

    @Override
    public void writePrivateFields(SshWriter out) {
        byte[] seed = keyPair.seed();
        try {
            out.putString(keyPair.publicKey()).putString(seed);
        } finally {
            java.util.Arrays.fill(seed, (byte) 0);
        }
    }

    @Override
    public void destroy() {
        keyPair.destroy();
    }

    @Override
    public boolean isDestroyed() {
        return keyPair.isDestroyed();
    }

    @Override
    public String toString() {
        return "MlKemSshKey[" + keyType() + ", secret hidden]";
    }
}
