package io.pqssh.core.keys.openssh;

import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Optional;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/** Ciphers of the {@code openssh-key-v1} private section (names as OpenSSH writes them). */
public enum OpenSshCipher {
    NONE("none", 0, 0, 8, 0, null),
    AES128_CTR("aes128-ctr", 16, 16, 16, 0, "AES/CTR/NoPadding"),
    AES192_CTR("aes192-ctr", 24, 16, 16, 0, "AES/CTR/NoPadding"),
    AES256_CTR("aes256-ctr", 32, 16, 16, 0, "AES/CTR/NoPadding"),
    AES128_CBC("aes128-cbc", 16, 16, 16, 0, "AES/CBC/NoPadding"),
    AES192_CBC("aes192-cbc", 24, 16, 16, 0, "AES/CBC/NoPadding"),
    AES256_CBC("aes256-cbc", 32, 16, 16, 0, "AES/CBC/NoPadding"),
    AES128_GCM("aes128-gcm@openssh.com", 16, 12, 16, 16, "AES/GCM/NoPadding"),
    AES256_GCM("aes256-gcm@openssh.com", 32, 12, 16, 16, "AES/GCM/NoPadding");

    /** OpenSSH's default for new encrypted keys. */
    public static final OpenSshCipher DEFAULT = AES256_CTR;

    private final String sshName;
    private final int keyBytes;
    private final int ivBytes;
    private final int blockSize;
    private final int authTagBytes;
    private final String transformation;

    OpenSshCipher(String sshName, int keyBytes, int ivBytes, int blockSize, int authTagBytes, String transformation) {
        this.sshName = sshName;
        this.keyBytes = keyBytes;
        this.ivBytes = ivBytes;
        this.blockSize = blockSize;
        this.authTagBytes = authTagBytes;
        this.transformation = transformation;
    }

    public String sshName() {
        return sshName;
    }

    public int keyBytes() {
        return keyBytes;
    }

    public int ivBytes() {
        return ivBytes;
    }

    /** The private section is padded to a multiple of this (8 for "none", as OpenSSH). */
    public int blockSize() {
        return blockSize;
    }

    /** Bytes of authentication tag following the encrypted section (AEAD ciphers only). */
    public int authTagBytes() {
        return authTagBytes;
    }

    public static Optional<OpenSshCipher> fromName(String name) {
        return Arrays.stream(values()).filter(c -> c.sshName.equals(name)).findFirst();
    }

    /**
     * Encrypts or decrypts with {@code keyIv = key ‖ iv} (as derived by the KDF). For AEAD, decryption input is
     * ciphertext ‖ tag and encryption output ciphertext ‖ tag.
     *
     * @throws AEADBadTagException when the tag does not verify
     */
    byte[] apply(boolean encrypt, byte[] keyIv, byte[] input) throws GeneralSecurityException {
        if (this == NONE) {
            return input.clone();
        }
        SecretKeySpec key = new SecretKeySpec(keyIv, 0, keyBytes, "AES");
        Cipher c = Cipher.getInstance(transformation);
        int mode = encrypt ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE;
        if (authTagBytes > 0) {
            c.init(mode, key, new GCMParameterSpec(authTagBytes * 8, keyIv, keyBytes, ivBytes));
        } else {
            c.init(mode, key, new IvParameterSpec(keyIv, keyBytes, ivBytes));
        }
        return c.doFinal(input);
    }
}
