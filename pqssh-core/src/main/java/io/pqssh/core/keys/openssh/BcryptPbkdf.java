package io.pqssh.core.keys.openssh;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * OpenBSD's {@code bcrypt_pbkdf} (the KDF "bcrypt" of OpenSSH private key files): PBKDF2-like iteration of a
 * bcrypt-style hash of SHA-512(passphrase) and SHA-512(salt ‖ counter), with the 32-byte constant
 * "OxychromaticBlowfishSwatDynamite" encrypted 64 times, output bytes interleaved across blocks.
 * Bouncy Castle 1.87 has bcrypt (password hashing) but not this function.
 */
public final class BcryptPbkdf {
    private static final byte[] MAGIC = "OxychromaticBlowfishSwatDynamite".getBytes(StandardCharsets.US_ASCII);
    private static final int HASH_BYTES = 32;
    /** The largest output the OpenBSD function produces. */
    public static final int MAX_KEY_BYTES = HASH_BYTES * HASH_BYTES;

    private BcryptPbkdf() {
    }

    /**
     * Derives {@code keyLength} bytes. The password and salt must be non-empty, rounds ≥ 1, and
     * 1 ≤ keyLength ≤ 1024 (the limits of the OpenBSD implementation).
     */
    public static byte[] derive(byte[] password, byte[] salt, int rounds, int keyLength) {
        if (rounds < 1) {
            throw new IllegalArgumentException("bcrypt_pbkdf needs at least 1 round");
        }
        if (password.length == 0 || salt.length == 0) {
            throw new IllegalArgumentException("bcrypt_pbkdf needs a non-empty password and salt");
        }
        if (keyLength < 1 || keyLength > MAX_KEY_BYTES || salt.length > (1 << 20)) {
            throw new IllegalArgumentException("bcrypt_pbkdf key length must be 1.." + MAX_KEY_BYTES);
        }
        MessageDigest sha512 = sha512();
        int stride = (keyLength + HASH_BYTES - 1) / HASH_BYTES;
        int amount = (keyLength + stride - 1) / stride;
        byte[] key = new byte[keyLength];
        byte[] sha2pass = sha512.digest(password);
        byte[] countSalt = Arrays.copyOf(salt, salt.length + 4);
        byte[] out = new byte[HASH_BYTES];
        byte[] tmp = new byte[HASH_BYTES];
        try {
            int remaining = keyLength;
            for (int count = 1; remaining > 0; count++) {
                countSalt[salt.length] = (byte) (count >>> 24);
                countSalt[salt.length + 1] = (byte) (count >>> 16);
                countSalt[salt.length + 2] = (byte) (count >>> 8);
                countSalt[salt.length + 3] = (byte) count;
                byte[] sha2salt = sha512.digest(countSalt);
                hash(sha2pass, sha2salt, tmp);
                System.arraycopy(tmp, 0, out, 0, HASH_BYTES);
                for (int r = 1; r < rounds; r++) {
                    sha2salt = sha512.digest(tmp);
                    hash(sha2pass, sha2salt, tmp);
                    for (int i = 0; i < HASH_BYTES; i++) {
                        out[i] ^= tmp[i];
                    }
                }
                Arrays.fill(sha2salt, (byte) 0);
                int amt = Math.min(amount, remaining);
                int i;
                for (i = 0; i < amt; i++) {
                    int dest = i * stride + (count - 1);
                    if (dest >= keyLength) {
                        break;
                    }
                    key[dest] = out[i];
                }
                remaining -= i;
            }
            return key;
        } finally {
            Arrays.fill(sha2pass, (byte) 0);
            Arrays.fill(countSalt, (byte) 0);
            Arrays.fill(out, (byte) 0);
            Arrays.fill(tmp, (byte) 0);
        }
    }

    /** bcrypt_hash: 64-byte SHA-512 digests in, 32 bytes out (words little-endian, as OpenBSD copies them out). */
    static void hash(byte[] sha2pass, byte[] sha2salt, byte[] out) {
        EksBlowfish bf = new EksBlowfish();
        bf.expandState(sha2salt, sha2pass);
        for (int i = 0; i < 64; i++) {
            bf.expand0State(sha2salt);
            bf.expand0State(sha2pass);
        }
        int[] cdata = new int[HASH_BYTES / 4];
        int[] pos = {0};
        for (int i = 0; i < cdata.length; i++) {
            cdata[i] = EksBlowfish.streamToWord(MAGIC, pos);
        }
        for (int i = 0; i < 64; i++) {
            for (int b = 0; b < cdata.length; b += 2) {
                bf.encipher(cdata, b);
            }
        }
        for (int i = 0; i < cdata.length; i++) {
            out[4 * i + 3] = (byte) (cdata[i] >>> 24);
            out[4 * i + 2] = (byte) (cdata[i] >>> 16);
            out[4 * i + 1] = (byte) (cdata[i] >>> 8);
            out[4 * i] = (byte) cdata[i];
        }
        Arrays.fill(cdata, 0);
        bf.wipe();
    }

    private static MessageDigest sha512() {
        try {
            return MessageDigest.getInstance("SHA-512");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-512 unavailable", e);
        }
    }
}
