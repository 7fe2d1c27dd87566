package io.pqssh.core.sig;

import java.security.SecureRandom;
import java.util.Arrays;

/**
 * Serves a fixed byte string to a key generator that draws its seed from a SecureRandom, to re-derive a key from
 * stored seed material. Fails loudly if asked for more than it holds. Never used for signing randomness.
 */
final class FixedRandom extends SecureRandom {
    private static final long serialVersionUID = 1L;
    private final byte[] data;
    private int pos;

    FixedRandom(byte[] data) {
        super(null, null);
        this.data = data.clone();
    }

    @Override
    public synchronized void nextBytes(byte[] bytes) {
        if (bytes.length > data.length - pos) {
            throw new IllegalStateException("key derivation needs more seed bytes than stored");
        }
        System.arraycopy(data, pos, bytes, 0, bytes.length);
        pos += bytes.length;
    }

    @Override
    public byte[] generateSeed(int numBytes) {
        byte[] b = new byte[numBytes];
        nextBytes(b);
        return b;
    }

    void wipe() {
        Arrays.fill(data, (byte) 0);
    }

    boolean exhausted() {
        return pos == data.length;
    }
}
