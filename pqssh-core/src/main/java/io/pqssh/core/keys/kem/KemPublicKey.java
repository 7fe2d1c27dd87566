package io.pqssh.core.keys.kem;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.UnsupportedKeyTypeException;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * An ML-KEM public key (raw FIPS 203 encapsulation key) with its SSH encodings: blob {@code string "mlkem768",
 * string raw_pk}, public key line {@code mlkem768 <base64 blob> comment}.
 */
public final class KemPublicKey {
    private static final int Q = 3329;
    private static final int RHO_BYTES = 32;

    private final KemAlgorithm algorithm;
    private final byte[] raw;

    public KemPublicKey(KemAlgorithm algorithm, byte[] raw) {
        this.algorithm = Objects.requireNonNull(algorithm);
        if (raw.length != algorithm.publicKeyBytes()) {
            throw new IllegalArgumentException(algorithm.sshName() + " public key must be "
                    + algorithm.publicKeyBytes() + " bytes, got " + raw.length);
        }
        this.raw = raw.clone();
    }

    public KemAlgorithm algorithm() {
        return algorithm;
    }

    /** The raw encapsulation key. */
    public byte[] raw() {
        return raw.clone();
    }

    /** The SSH public key blob: {@code string sshName, string raw}. */
    public byte[] blob() {
        return blob(algorithm, raw);
    }

    public static byte[] blob(KemAlgorithm algorithm, byte[] raw) {
        return new SshWriter(raw.length + 32).putString(algorithm.sshName()).putString(raw).toByteArray();
    }

    public String fingerprint() {
        return KeyFingerprints.sha256(blob());
    }

    /** Whether {@code keyType} names an ML-KEM key type (any accepted spelling). */
    public static boolean isKemKeyType(String keyType) {
        return KemAlgorithm.fromName(keyType).isPresent();
    }

    /**
     * Parses a public key blob. The type string must be an ML-KEM name ({@code mlkem768}; other spellings accepted
     * by {@link KemAlgorithm#fromName} too), the key of exactly the parameter set's length, nothing after it.
     */
    public static KemPublicKey fromBlob(byte[] blob) throws KeyFileException {
        try {
            SshReader r = new SshReader(blob);
            String type = r.getUtf8();
            KemAlgorithm alg = KemAlgorithm.fromName(type).orElseThrow(() -> new UnsupportedKeyTypeException(type,
                    "not an ML-KEM public key: type '" + type + "'"));
            byte[] raw = r.getString();
            r.expectEnd(type + " public key blob");
            if (raw.length != alg.publicKeyBytes()) {
                throw new KeyFileException(type + " public key must be " + alg.publicKeyBytes() + " bytes, got "
                        + raw.length);
            }
            checkEncapsulationKey(alg, raw);
            return new KemPublicKey(alg, raw);
        } catch (MalformedMessageException e) {
            throw new KeyFileException("malformed ML-KEM public key blob: " + e.getMessage());
        }
    }

    /**
     * Refuses an encapsulation key no honest key generation produces: one failing the FIPS 203 section 7.2 modulus
     * check (a 12-bit coefficient of {@code t} that is not below q = 3329), or one whose {@code t} (the first
     * {@code 384·k} bytes) is all zero, for which the ciphertext's second part carries the message in the clear, so
     * anyone could answer a challenge. The server would refuse such a key at encapsulation time anyway; refusing it
     * when an authorized file is read names the file and line instead of failing every login silently.
     */
    public static void checkEncapsulationKey(KemAlgorithm alg, byte[] raw) throws KeyFileException {
        if (raw.length != alg.publicKeyBytes()) {
            throw new KeyFileException(alg.sshName() + " public key must be " + alg.publicKeyBytes() + " bytes, got "
                    + raw.length);
        }
        int tBytes = raw.length - RHO_BYTES;
        boolean allZero = true;
        for (int i = 0; i < tBytes; i += 3) {
            int b0 = raw[i] & 0xFF;
            int b1 = raw[i + 1] & 0xFF;
            int b2 = raw[i + 2] & 0xFF;
            int c0 = b0 | (b1 & 0x0F) << 8;
            int c1 = b1 >>> 4 | b2 << 4;
            for (int j = 0; j < 2; j++) {
                int c = j == 0 ? c0 : c1;
                if (c >= Q) {
                    int index = i / 3 * 2 + j;
                    throw new KeyFileException(alg.sshName() + " public key fails the FIPS 203 modulus check:"
                            + " coefficient " + index % 256 + " of t[" + index / 256 + "] is " + c + ", not below q = "
                            + Q);
                }
            }
            allZero &= (b0 | b1 | b2) == 0;
        }
        if (allZero) {
            throw new KeyFileException(alg.sshName() + " public key is degenerate: its vector t (" + tBytes
                    + " bytes) is all zero");
        }
    }

    /** {@code mlkem768 <base64 blob> [comment]}. */
    public String toLine(String comment) {
        String s = algorithm.sshName() + " " + Base64.getEncoder().encodeToString(blob());
        return comment == null || comment.isEmpty() ? s : s + " " + comment;
    }

    /** A parsed public key line. */
    public record Line(KemPublicKey key, String comment) {
    }

    /**
     * Parses {@code <type> <base64 blob> [comment]}; the type may be spelled {@code mlkem768} or
     * {@code ML-KEM-768} (etc.), and must name the same parameter set as the blob.
     */
    public static Line parseLine(String line) throws KeyFileException {
        String s = line.strip();
        String[] parts = s.split("[ \t]+", 3);
        if (parts.length < 2) {
            throw new KeyFileException("ML-KEM public key line must be '<type> <base64 blob> [comment]'");
        }
        KemAlgorithm alg = KemAlgorithm.fromName(parts[0]).orElseThrow(() -> new UnsupportedKeyTypeException(
                parts[0], "not an ML-KEM public key: type '" + parts[0] + "'"));
        byte[] blob;
        try {
            blob = Base64.getDecoder().decode(parts[1]);
        } catch (IllegalArgumentException e) {
            throw new KeyFileException("invalid base64 in ML-KEM public key: " + e.getMessage());
        }
        KemPublicKey key = fromBlob(blob);
        if (key.algorithm != alg) {
            throw new KeyFileException("key type '" + parts[0] + "' does not match the blob's "
                    + key.algorithm.sshName());
        }
        return new Line(key, parts.length > 2 ? parts[2] : "");
    }

    /** As a generic {@link PublicKeyLine}. */
    public PublicKeyLine toPublicKeyLine(String comment) {
        return new PublicKeyLine(algorithm.sshName(), blob(), comment);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KemPublicKey k && k.algorithm == algorithm && MessageDigest.isEqual(k.raw, raw);
    }

    @Override
    public int hashCode() {
        return 31 * algorithm.hashCode() + Arrays.hashCode(raw);
    }

    @Override
    public String toString() {
        return "KemPublicKey[" + algorithm.sshName() + " " + fingerprint() + "]";
    }
}
