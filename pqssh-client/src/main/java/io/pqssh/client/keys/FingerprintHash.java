package io.pqssh.client.keys;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

import io.pqssh.core.keys.KeyFingerprints;

/** {@code -E sha256|md5}: the two fingerprint forms ssh-keygen prints. */
public enum FingerprintHash {
    /** {@code SHA256:} + unpadded base64 (OpenSSH's default). */
    SHA256,
    /** {@code MD5:} + colon-separated lower-case hex. */
    MD5;

    public static FingerprintHash parse(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "sha256" -> SHA256;
            case "md5" -> MD5;
            default -> throw new IllegalArgumentException("Invalid hash algorithm \"" + name
                    + "\" (-E takes sha256 or md5)");
        };
    }

    public String format(byte[] blob) {
        if (this == SHA256) {
            return KeyFingerprints.sha256(blob);
        }
        try {
            byte[] d = MessageDigest.getInstance("MD5").digest(blob);
            return "MD5:" + HexFormat.ofDelimiter(":").formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 unavailable", e);
        }
    }
}
