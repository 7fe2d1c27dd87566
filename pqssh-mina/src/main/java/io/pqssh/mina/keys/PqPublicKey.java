package io.pqssh.mina.keys;

import java.util.Set;

import org.apache.sshd.common.config.keys.UnsupportedSshPublicKey;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.core.wire.SshWriter;

/**
 * A pqssh signature public key (ML-DSA, the OpenSSH composite, SLH-DSA, Falcon) as a {@link java.security.PublicKey}
 * MINA can carry. It extends MINA's {@link UnsupportedSshPublicKey} because that is the one public-key class MINA's
 * {@code Buffer.putRawPublicKey} encodes without knowing the algorithm: it writes {@code string keyType} and then the
 * key data verbatim, so the key data here is {@code string rawPublicKey} and the result is exactly the OpenSSH blob.
 * Equality (MINA's {@code KeyUtils.compareKeys}) is key type plus key data, i.e. blob equality.
 */
public final class PqPublicKey extends UnsupportedSshPublicKey {
    private static final long serialVersionUID = 1L;

    /** The signature key types this adapter handles: every row of the table except Ed25519, which MINA has. */
    public static final Set<SignatureKeyType> TYPES = java.util.Collections.unmodifiableSet(
            java.util.EnumSet.complementOf(java.util.EnumSet.of(SignatureKeyType.ED25519)));

    private final transient SshPublicKey key;

    private PqPublicKey(SshPublicKey key) {
        super(key.name(), new SshWriter(key.type().publicKeySize() + 4).putString(key.rawKey()).toByteArray());
        this.key = key;
    }

    /** Wraps a pqssh public key; Ed25519 is refused (MINA's own Ed25519 keys are used for it). */
    public static PqPublicKey of(SshPublicKey key) {
        if (!TYPES.contains(key.type())) {
            throw new IllegalArgumentException(key.name() + " keys are handled by MINA itself, not by PqPublicKey");
        }
        return new PqPublicKey(key);
    }

    public SshPublicKey sshPublicKey() {
        return key;
    }

    public SignatureKeyType type() {
        return key.type();
    }

    /** The SSH public key blob {@code string name, string pk}. */
    public byte[] blob() {
        return key.blob();
    }

    @Override
    public String toString() {
        return "PqPublicKey[" + key + "]";
    }
}
