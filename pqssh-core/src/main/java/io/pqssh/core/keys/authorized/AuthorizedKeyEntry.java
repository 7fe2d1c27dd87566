package io.pqssh.core.keys.authorized;

import java.security.MessageDigest;
import java.time.Instant;
import java.util.Optional;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.kem.KemPublicKey;

/**
 * One authorized key: from an OpenSSH-style {@code authorized_keys} line (any key type, with options) or from a
 * research-format {@code authorized_kem_keys} line (no options).
 */
public final class AuthorizedKeyEntry {
    /** Where a line came from. */
    public enum Format { AUTHORIZED_KEYS, AUTHORIZED_KEM_KEYS }

    private final String source;
    private final int lineNumber;
    private final Format format;
    private final String keyType;
    private final byte[] blob;
    private final String comment;
    private final AuthorizedKeyOptions options;
    private final KemPublicKey kemKey;

    AuthorizedKeyEntry(String source, int lineNumber, Format format, String keyType, byte[] blob, String comment,
            AuthorizedKeyOptions options, KemPublicKey kemKey) {
        this.source = source;
        this.lineNumber = lineNumber;
        this.format = format;
        this.keyType = keyType;
        this.blob = blob.clone();
        this.comment = comment;
        this.options = options;
        this.kemKey = kemKey;
    }

    /** The file name (or other label) the entry was read from. */
    public String source() {
        return source;
    }

    /** 1-based line number in {@link #source()}. */
    public int lineNumber() {
        return lineNumber;
    }

    public Format format() {
        return format;
    }

    /** Key type name as written (for KEM keys: canonical {@code mlkem768} etc.). */
    public String keyType() {
        return keyType;
    }

    /** The SSH public key blob (for KEM keys {@code string "mlkem768", string raw_pk}). */
    public byte[] publicKeyBlob() {
        return blob.clone();
    }

    public boolean matchesBlob(byte[] other) {
        return MessageDigest.isEqual(blob, other);
    }

    public String comment() {
        return comment;
    }

    public AuthorizedKeyOptions options() {
        return options;
    }

    /** Present for ML-KEM keys. */
    public Optional<KemPublicKey> kemKey() {
        return Optional.ofNullable(kemKey);
    }

    public String fingerprint() {
        return KeyFingerprints.sha256(blob);
    }

    /** See {@link AuthorizedKeyOptions#denialReason}. */
    public Optional<String> denialReason(String clientAddress, String clientHostname, Instant now) {
        return options.denialReason(clientAddress, clientHostname, now);
    }

    public boolean permits(String clientAddress, String clientHostname, Instant now) {
        return denialReason(clientAddress, clientHostname, now).isEmpty();
    }

    @Override
    public String toString() {
        return source + ":" + lineNumber + ": " + keyType + " " + fingerprint() + " " + options;
    }
}
