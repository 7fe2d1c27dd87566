package io.pqssh.core.keys;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/** Key fingerprints as {@code ssh-keygen -l} prints them. */
public final class KeyFingerprints {
    private KeyFingerprints() {
    }

    /** {@code SHA256:} followed by the unpadded base64 of SHA-256 over the public key blob (OpenSSH's default). */
    public static String sha256(byte[] publicKeyBlob) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(publicKeyBlob);
            return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(h);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
