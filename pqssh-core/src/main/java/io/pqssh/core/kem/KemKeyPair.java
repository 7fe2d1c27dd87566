package io.pqssh.core.kem;

import java.util.Arrays;

/**
 * An ML-KEM credential. The 64-byte FIPS 203 seed (d ‖ z) is the private key of record: the expanded decapsulation
 * key is derived from it when needed. Call {@link #destroy()} when done to wipe the seed.
 */
public final class KemKeyPair implements KemPrivateKey {
    private final KemAlgorithm algorithm;
    private final byte[] publicKey;
    private final byte[] seed;
    private volatile boolean destroyed;

    KemKeyPair(KemAlgorithm algorithm, byte[] publicKey, byte[] seed) {
        this.algorithm = algorithm;
        this.publicKey = publicKey.clone();
        this.seed = seed.clone();
    }

    @Override
    public KemAlgorithm algorithm() {
        return algorithm;
    }

    /** Raw FIPS 203 encapsulation key. */
    @Override
    public byte[] publicKey() {
        return publicKey.clone();
    }

    /** A copy of the 64-byte seed; the caller must wipe it. */
    public byte[] seed() {
        checkLive();
        return seed.clone();
    }

    /** The FIPS 203 expanded decapsulation key (the research implementation's {@code secret}); caller wipes it. */
    public byte[] expandedSecretKey() {
        checkLive();
        return MlKem.expand(algorithm, seed);
    }

    @Override
    public byte[] decapsulate(byte[] ciphertext) {
        return MlKem.decapsulate(this, ciphertext);
    }

    void checkLive() {
        if (destroyed) {
            throw new IllegalStateException("key has been destroyed");
        }
    }

    byte[] seedUnsafe() {
        checkLive();
        return seed;
    }

    @Override
    public void destroy() {
        Arrays.fill(seed, (byte) 0);
        destroyed = true;
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }

    @Override
    public String toString() {
        return "KemKeyPair[" + algorithm.sshName() + ", secret hidden]";
    }
}
