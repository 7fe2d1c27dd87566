package io.pqssh.core.keys.openssh;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import javax.security.auth.Destroyable;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * The decrypted private section of an {@code openssh-key-v1} file, before its key-type specific fields are
 * interpreted: the lower-level result of {@link OpenSshKeyV1#decrypt}. Holds the plaintext; call
 * {@link #destroy()} (or use try-with-resources) to wipe it.
 */
public final class PrivateSection implements Destroyable, AutoCloseable {
    private final OpenSshCipher cipher;
    private final String kdfName;
    private final byte[] publicKeyBlob;
    private final String keyType;
    private final byte[] plaintext;
    private final int fieldsOffset;
    private volatile boolean destroyed;

    PrivateSection(OpenSshCipher cipher, String kdfName, byte[] publicKeyBlob, String keyType, byte[] plaintext,
            int fieldsOffset) {
        this.cipher = cipher;
        this.kdfName = kdfName;
        this.publicKeyBlob = publicKeyBlob;
        this.keyType = keyType;
        this.plaintext = plaintext;
        this.fieldsOffset = fieldsOffset;
    }

    public OpenSshCipher cipher() {
        return cipher;
    }

    public String kdfName() {
        return kdfName;
    }

    public boolean encrypted() {
        return cipher != OpenSshCipher.NONE;
    }

    /** The public key blob from the unencrypted header of the file. */
    public byte[] publicKeyBlob() {
        return publicKeyBlob.clone();
    }

    /** The key type name at the start of the private section. */
    public String keyType() {
        return keyType;
    }

    /**
     * A reader over the type-specific private fields (right after {@code string keyType}), followed by the comment
     * and the padding; after reading the fields, pass the same reader to {@link #finish(SshReader)}.
     */
    public SshReader fieldsReader() {
        check();
        return new SshReader(plaintext, fieldsOffset, plaintext.length - fieldsOffset);
    }

    /**
     * Reads the comment that follows the private fields and verifies the padding (bytes 1, 2, 3, ... shorter than a
     * cipher block), returning the comment.
     */
    public String finish(SshReader afterFields) throws KeyFileException {
        try {
            byte[] comment = afterFields.getString();
            int n = afterFields.remaining();
            if (n >= cipher.blockSize()) {
                throw new KeyFileException("malformed private key: " + n + " bytes of padding (block size "
                        + cipher.blockSize() + ")");
            }
            for (int i = 1; i <= n; i++) {
                if (afterFields.getByte() != i) {
                    throw new KeyFileException("malformed private key: bad padding after the comment");
                }
            }
            return new String(comment, StandardCharsets.UTF_8);
        } catch (MalformedMessageException e) {
            throw new KeyFileException("malformed private key: " + e.getMessage());
        }
    }

    private void check() {
        if (destroyed) {
            throw new IllegalStateException("private section has been wiped");
        }
    }

    @Override
    public void destroy() {
        Arrays.fill(plaintext, (byte) 0);
        destroyed = true;
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }

    @Override
    public void close() {
        destroy();
    }

    @Override
    public String toString() {
        return "PrivateSection[" + keyType + ", cipher " + cipher.sshName() + ", secret hidden]";
    }
}
