package io.pqssh.client.keys;

import java.util.Arrays;

import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.wire.SshWriter;

/**
 * A private key pqssh does not interpret (RSA, ECDSA): its public blob and the raw bytes of its private fields,
 * enough to re-encrypt it ({@code -p}) or write it after generation through {@code OpenSshKeyV1} unchanged.
 */
final class OpaqueSshKey implements SshPrivateKey {
    private final String keyType;
    private final byte[] publicKeyBlob;
    private final byte[] privateFields;
    private boolean destroyed;

    OpaqueSshKey(String keyType, byte[] publicKeyBlob, byte[] privateFields) {
        this.keyType = keyType;
        this.publicKeyBlob = publicKeyBlob.clone();
        this.privateFields = privateFields.clone();
    }

    @Override
    public String keyType() {
        return keyType;
    }

    @Override
    public byte[] publicKeyBlob() {
        return publicKeyBlob.clone();
    }

    @Override
    public void writePrivateFields(SshWriter out) {
        if (destroyed) {
            throw new IllegalStateException("key has been destroyed");
        }
        out.putRaw(privateFields);
    }

    @Override
    public void destroy() {
        Arrays.fill(privateFields, (byte) 0);
        destroyed = true;
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }
}
