package io.pqssh.core.cert;

import io.pqssh.core.sig.SshSigningKey;

/** A certificate authority's key as a signer: its public key blob and SSH signature blobs over data. */
public interface CaSigner {
    /** The CA's plain public key blob (the certificate's {@code signature key}). */
    byte[] publicKeyBlob();

    /** An SSH signature blob ({@code string algorithm, string signature}) over {@code data}. */
    byte[] sign(byte[] data);

    /** A CA of any post-quantum or Ed25519 type pqssh signs with. */
    static CaSigner of(SshSigningKey key) {
        return new CaSigner() {
            @Override
            public byte[] publicKeyBlob() {
                return key.publicKeyBlob();
            }

            @Override
            public byte[] sign(byte[] data) {
                return key.sign(data);
            }
        };
    }
}
