package io.pqssh.client.keys;

import java.util.Arrays;

import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * A private key pqssh does not interpret (RSA, ECDSA): its public blob and the raw bytes of its private fields,
 * enough to re-encrypt it ({@code -p}), write it after generation through {@code OpenSshKeyV1} unchanged, or hand it
 * to an agent (alone or with a certificate).
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

    /** RSA's {@code d iqmp p q}, ECDSA's {@code d}: the fields after the two public ones ({@code n e}, curve and Q). */
    @Override
    public void writeCertifiedPrivateFields(SshWriter out) {
        if (destroyed) {
            throw new IllegalStateException("key has been destroyed");
        }
        SshReader r = new SshReader(privateFields);
        try {
            r.getString();
            r.getString();
            byte[] rest = r.getRaw(r.remaining());
            out.putRaw(rest);
            Arrays.fill(rest, (byte) 0);
        } catch (MalformedMessageException e) {
            throw new IllegalStateException(keyType + " private fields are malformed", e);
        }
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
