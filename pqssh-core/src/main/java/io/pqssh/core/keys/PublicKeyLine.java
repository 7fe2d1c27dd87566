package io.pqssh.core.keys;

import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * One OpenSSH public key line ({@code id_*.pub}, {@code known_hosts}-style without host field): {@code keytype
 * base64(blob) [comment]}, for any key type. The type name must equal the name inside the blob.
 */
public final class PublicKeyLine {
    private final String keyType;
    private final byte[] blob;
    private final String comment;

    public PublicKeyLine(String keyType, byte[] blob, String comment) {
        this.keyType = Objects.requireNonNull(keyType);
        this.blob = blob.clone();
        this.comment = comment == null ? "" : comment;
    }

    /** A line for a blob, taking the type name from the blob. */
    public static PublicKeyLine of(byte[] blob, String comment) throws KeyFileException {
        return new PublicKeyLine(blobKeyType(blob), blob, comment);
    }

    public String keyType() {
        return keyType;
    }

    public byte[] blob() {
        return blob.clone();
    }

    public String comment() {
        return comment;
    }

    public String fingerprint() {
        return KeyFingerprints.sha256(blob);
    }

    /** {@code keytype base64 comment} (no trailing newline; no trailing space when the comment is empty). */
    public String format() {
        String s = keyType + " " + Base64.getEncoder().encodeToString(blob);
        return comment.isEmpty() ? s : s + " " + comment;
    }

    @Override
    public String toString() {
        return format();
    }

    /**
     * Parses {@code keytype base64 [comment]}. Leading/trailing whitespace is ignored; the comment is the rest of
     * the line. The blob must start with a string equal to {@code keytype}.
     */
    public static PublicKeyLine parse(String line) throws KeyFileException {
        String s = line.strip();
        int sp = indexOfWhitespace(s, 0);
        if (s.isEmpty() || sp < 0) {
            throw new KeyFileException("public key line must be 'keytype base64 [comment]'");
        }
        String type = s.substring(0, sp);
        int b = skipWhitespace(s, sp);
        int e = indexOfWhitespace(s, b);
        String b64 = e < 0 ? s.substring(b) : s.substring(b, e);
        String comment = e < 0 ? "" : s.substring(skipWhitespace(s, e));
        byte[] blob = decodeBase64(b64);
        String inner = blobKeyType(blob);
        if (!inner.equals(type)) {
            throw new KeyFileException("key type '" + type + "' does not match the blob's type '" + inner + "'");
        }
        return new PublicKeyLine(type, blob, comment);
    }

    /** The {@code string keytype} at the start of a public key blob. */
    public static String blobKeyType(byte[] blob) throws KeyFileException {
        try {
            String t = new SshReader(blob).getUtf8();
            if (t.isEmpty()) {
                throw new KeyFileException("public key blob has an empty key type");
            }
            return t;
        } catch (MalformedMessageException e) {
            throw new KeyFileException("malformed public key blob: " + e.getMessage());
        }
    }

    static byte[] decodeBase64(String b64) throws KeyFileException {
        try {
            return Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            throw new KeyFileException("invalid base64 in public key: " + e.getMessage());
        }
    }

    static int indexOfWhitespace(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t') {
                return i;
            }
        }
        return -1;
    }

    static int skipWhitespace(String s, int from) {
        int i = from;
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PublicKeyLine p && p.keyType.equals(keyType) && Arrays.equals(p.blob, blob)
                && p.comment.equals(comment);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(blob);
    }
}
