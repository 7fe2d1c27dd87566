package io.pqssh.common.cipher;

import java.security.GeneralSecurityException;
import java.util.Arrays;

import javax.crypto.AEADBadTagException;
import javax.crypto.spec.ChaCha20ParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.mac.Mac;
import org.apache.sshd.common.mac.Poly1305Mac;

/**
 * {@code chacha20-poly1305@openssh.com} (OpenSSH's PROTOCOL.chacha20poly1305) with the JDK's ChaCha20 cipher for
 * the keystream: C2 compiles it to the JDK's vectorised ChaCha20 block intrinsic, where MINA's own
 * {@code ChaCha20Cipher} runs a scalar Java block function (its {@code setKeyStream} topped the client's profile of a
 * bulk upload). The Poly1305 tag is MINA's {@link Poly1305Mac}.
 *
 * <p>OpenSSH's construction on IETF ChaCha20: the 64-bit packet sequence number is the nonce's last 8 bytes
 * (big-endian, as OpenSSH writes it), the first 4 bytes are the zero high word of the original 64-bit block counter.
 * Key bytes 32..63 encrypt the 4-byte length at counter 0; key bytes 0..31 give the Poly1305 key (block 0) and
 * encrypt the payload from block 1. The tag covers the encrypted length and payload.
 *
 * <p>MINA passes the sequence number as the IV on every (re)key and advances it per packet; it does so for ciphers
 * whose {@link #getAlgorithm()} starts with "ChaCha".
 */
public final class JdkChaCha20Poly1305 implements Cipher {
    private static final int KEY_BYTES = 32;
    private static final int TAG_BYTES = 16;
    private static final byte[] ZERO_BLOCK = new byte[64];

    private final javax.crypto.Cipher header;
    private final javax.crypto.Cipher body;
    private final Mac poly = new Poly1305Mac();
    private final byte[] nonce = new byte[12];
    private final byte[] block = new byte[64];
    private final byte[] tag = new byte[TAG_BYTES];
    private SecretKeySpec headerKey;
    private SecretKeySpec bodyKey;
    private Mode mode;
    private long firstSeq;
    private long seq;

    public JdkChaCha20Poly1305() throws GeneralSecurityException {
        header = javax.crypto.Cipher.getInstance("ChaCha20", "SunJCE");
        body = javax.crypto.Cipher.getInstance("ChaCha20", "SunJCE");
    }

    @Override
    public void init(Mode mode, byte[] key, byte[] iv) throws Exception {
        if (key == null || key.length < 2 * KEY_BYTES) {
            throw new IllegalArgumentException("chacha20-poly1305 needs a 64-byte key");
        }
        // MINA writes the sequence number into the first 8 bytes of its (longer) key-derived IV
        if (iv == null || iv.length < Long.BYTES || iv[0] != 0 || iv[1] != 0 || iv[2] != 0 || iv[3] != 0) {
            throw new IllegalArgumentException("chacha20-poly1305 needs the 32-bit packet sequence number as its IV");
        }
        this.mode = mode;
        bodyKey = new SecretKeySpec(Arrays.copyOfRange(key, 0, KEY_BYTES), "ChaCha20");
        headerKey = new SecretKeySpec(Arrays.copyOfRange(key, KEY_BYTES, 2 * KEY_BYTES), "ChaCha20");
        firstSeq = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            firstSeq = firstSeq << 8 | (iv[i] & 0xff);
        }
        seq = firstSeq;
        startPacket();
    }

    /** Sets both keystreams to this packet's nonce and keys Poly1305 with the body's block 0. */
    private void startPacket() throws GeneralSecurityException {
        for (int i = 0; i < Long.BYTES; i++) {
            nonce[4 + i] = (byte) (seq >>> (56 - 8 * i));
        }
        int op = mode == Mode.Encrypt ? javax.crypto.Cipher.ENCRYPT_MODE : javax.crypto.Cipher.DECRYPT_MODE;
        header.init(op, headerKey, new ChaCha20ParameterSpec(nonce, 0));
        body.init(op, bodyKey, new ChaCha20ParameterSpec(nonce, 0));
        // block 0's first half is the Poly1305 key; the payload then starts at block 1, where this leaves the counter
        body.update(ZERO_BLOCK, 0, ZERO_BLOCK.length, block, 0);
        try {
            poly.init(Arrays.copyOf(block, KEY_BYTES));
        } catch (Exception e) {
            throw new GeneralSecurityException("Poly1305 key setup failed", e);
        } finally {
            Arrays.fill(block, (byte) 0);
        }
    }

    @Override
    public void updateAAD(byte[] data, int offset, int length) throws Exception {
        checkInit();
        if (length != Integer.BYTES) {
            throw new IllegalArgumentException("chacha20-poly1305: the associated data is the 4-byte packet length");
        }
        if (mode == Mode.Decrypt) {
            poly.update(data, offset, length);
        }
        header.update(data, offset, length, data, offset);
        if (mode == Mode.Encrypt) {
            poly.update(data, offset, length);
        }
    }

    @Override
    public void update(byte[] input, int offset, int length) throws Exception {
        checkInit();
        if (mode == Mode.Decrypt) {
            poly.update(input, offset, length);
            poly.doFinal(tag, 0);
            if (!tagMatches(input, offset + length)) {
                throw new AEADBadTagException("chacha20-poly1305: packet authentication failed");
            }
            body.update(input, offset, length, input, offset);
        } else {
            body.update(input, offset, length, input, offset);
            poly.update(input, offset, length);
            poly.doFinal(input, offset + length);
        }
        // the sequence number is a uint32 that wraps; reusing one under the same key would reuse a keystream
        seq = (seq + 1) & 0xFFFF_FFFFL;
        if (seq == firstSeq) {
            throw new IllegalStateException("chacha20-poly1305: packet sequence number reused under one key");
        }
        startPacket();
    }

    /** Constant time: a timing difference would tell a forger how many leading tag bytes it got right. */
    private boolean tagMatches(byte[] data, int at) {
        int diff = 0;
        for (int i = 0; i < TAG_BYTES; i++) {
            diff |= data[at + i] ^ tag[i];
        }
        return diff == 0;
    }

    private void checkInit() {
        if (mode == null) {
            throw new IllegalStateException("chacha20-poly1305: cipher not initialized");
        }
    }

    @Override
    public String getAlgorithm() {
        return "ChaCha20"; // MINA keys the IV to the sequence number for algorithms named ChaCha*
    }

    @Override
    public String getTransformation() {
        return "ChaCha20";
    }

    @Override
    public int getIVSize() {
        return Long.BYTES;
    }

    @Override
    public int getAuthenticationTagSize() {
        return TAG_BYTES;
    }

    @Override
    public int getCipherBlockSize() {
        return 8;
    }

    @Override
    public int getKdfSize() {
        return 2 * KEY_BYTES;
    }

    @Override
    public int getKeySize() {
        return 8 * 2 * KEY_BYTES;
    }

    @Override
    public String toString() {
        return "chacha20-poly1305 (JDK ChaCha20)";
    }
}
