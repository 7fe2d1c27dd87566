package io.pqssh.mina.keys;

import java.security.PrivateKey;

import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.mina.internal.keys.PqSignature;

/**
 * A pqssh signature private key as a {@link PrivateKey} for MINA's {@code KeyPair}s (host keys, user identities).
 * Only {@link PqSignature} can use it; it has no encoding, and {@link #destroy()} wipes the secret.
 */
public final class PqPrivateKey implements PrivateKey {
    private static final long serialVersionUID = 1L;

    private final transient SshSigningKey key;

    PqPrivateKey(SshSigningKey key) {
        this.key = key;
    }

    public SshSigningKey signingKey() {
        return key;
    }

    /** The SSH key type name, e.g. {@code ssh-mldsa-65}. */
    @Override
    public String getAlgorithm() {
        return key.keyType();
    }

    @Override
    public String getFormat() {
        return null;
    }

    @Override
    public byte[] getEncoded() {
        return null;
    }

    @Override
    public void destroy() {
        key.destroy();
    }

    @Override
    public boolean isDestroyed() {
        return key.isDestroyed();
    }

    @Override
    public String toString() {
        return "PqPrivateKey[" + key.keyType() + "]";
    }
}
