package io.pqssh.core.sig;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

import io.pqssh.core.wire.MalformedMessageException;

/** A signature public key: its type, the name it was encoded under (canonical or alias) and the raw key. */
public final class SshPublicKey {
    private final SignatureKeyType type;
    private final String name;
    private final byte[] raw;

    SshPublicKey(SignatureKeyType type, String name, byte[] raw) {
        this.type = type;
        this.name = name;
        this.raw = raw.clone();
    }

    /** A public key from its raw encoding under the canonical name; wrong lengths are rejected. */
    public static SshPublicKey of(SignatureKeyType type, byte[] raw) throws MalformedMessageException {
        type.scheme().checkPublicKey(raw);
        return new SshPublicKey(type, type.sshName(), raw);
    }

    /** Decodes a public key blob ({@code string name, string pk}) of any type in {@link SignatureKeyType}. */
    public static SshPublicKey decode(byte[] blob) throws MalformedMessageException {
        return SignatureKeyType.require(Signatures.peekName(blob, "public key")).scheme().decodePublicKey(blob);
    }

    /** Parses an OpenSSH public key line {@code name base64 [comment]} (as in .pub files, authorized_keys). */
    public static SshPublicKey parseOpenSsh(String line) throws MalformedMessageException {
        String[] parts = line.strip().split("[ \\t]+", 3);
        if (parts.length < 2) {
            throw new MalformedMessageException("public key line needs \"type base64\"");
        }
        byte[] blob;
        try {
            blob = Base64.getDecoder().decode(parts[1]);
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException("public key line: bad base64");
        }
        SshPublicKey k = decode(blob);
        if (!k.name.equals(parts[0])) {
            throw new MalformedMessageException("public key line says " + SignatureKeyType.printable(parts[0])
                    + " but the blob holds " + k.name);
        }
        return k;
    }

    public SignatureKeyType type() {
        return type;
    }

    /** The key type name this key is encoded with (normally {@code type().sshName()}). */
    public String name() {
        return name;
    }

    public byte[] rawKey() {
        return raw.clone();
    }

    /** The SSH public key blob {@code string name, string pk}. */
    public byte[] blob() {
        return type.scheme().encodePublicKey(name, raw);
    }

    /**
     * Verifies an SSH signature blob over {@code data}. Malformed blobs are exceptions; a well-formed signature that
     * does not verify gives {@code false}.
     */
    public boolean verify(byte[] data, byte[] signatureBlob) throws MalformedMessageException {
        return type.scheme().verify(raw, data, signatureBlob);
    }

    /** {@code SHA256:} and unpadded base64 of SHA-256(blob), as {@code ssh-keygen -l}. */
    public String fingerprintSha256() {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(blob());
            return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(h);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The OpenSSH one-line form {@code name base64 [comment]}. */
    public String toOpenSsh(String comment) {
        String s = name + " " + Base64.getEncoder().encodeToString(blob());
        return comment == null || comment.isEmpty() ? s : s + " " + comment;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SshPublicKey k && k.type == type && k.name.equals(name) && Arrays.equals(k.raw, raw);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + Arrays.hashCode(raw);
    }

    @Override
    public String toString() {
        return name + " " + fingerprintSha256();
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
