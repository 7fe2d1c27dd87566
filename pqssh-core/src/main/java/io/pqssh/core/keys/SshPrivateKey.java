package io.pqssh.core.keys;

import javax.security.auth.Destroyable;

import io.pqssh.core.wire.SshWriter;

/**
 * A private key of any SSH key type as held in an {@code openssh-key-v1} container. Implementations are per key
 * type (signature keys, ML-KEM credentials) and wipe their secret material on {@link #destroy()}.
 */
public interface SshPrivateKey extends Destroyable {
    /** The key type name as written in files and on the wire, e.g. {@code ssh-ed25519}, {@code mlkem768}. */
    String keyType();

    /** The SSH public key blob: {@code string keyType, ...type-specific public fields}. */
    byte[] publicKeyBlob();

    /** Writes the type-specific private fields that follow {@code string keyType} in the private section. */
    void writePrivateFields(SshWriter out);

    /**
     * Writes the private fields that follow {@code string certificate} when an agent is given a certificate of this
     * key (PROTOCOL.agent, OpenSSH's {@code sshkey_private_serialize} of a certificate): the same as
     * {@link #writePrivateFields} for Ed25519 and pqssh's types; RSA and ECDSA leave out the public fields, which the
     * certificate carries.
     */
    default void writeCertifiedPrivateFields(SshWriter out) {
        writePrivateFields(out);
    }
}
