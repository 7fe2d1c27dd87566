package io.pqssh.core.kem;

import java.util.Arrays;

import org.bouncycastle.crypto.params.MLKEMPrivateKeyParameters;

/** An expanded ML-KEM decapsulation key without its seed, as the research implementation's identity file holds. */
public final class KemDecapsulationKey implements KemPrivateKey {
    private final KemAlgorithm algorithm;
    private final byte[] expanded;
    private volatile boolean destroyed;

    KemDecapsulationKey(KemAlgorithm algorithm, byte[] expanded) {
        this.algorithm = algorithm;
        this.expanded = expanded.clone();
    }

    @Override
    public KemAlgorithm algorithm() {
        return algorithm;
    }

    /** The encapsulation key embedded in the expanded form (FIPS 203: dk = dk_pke ‖ ek ‖ H(ek) ‖ z). */
    @Override
    public byte[] publicKey() {
        int off = algorithm.publicKeyBytes() - 32; // |dk_pke| = 384·k = |ek| - 32
        return Arrays.copyOfRange(expanded, off, off + algorithm.publicKeyBytes());
    }

    public byte[] expanded() {
        check();
        return expanded.clone();
    }

    @Override
    public byte[] decapsulate(byte[] ciphertext) {
        check();
        MLKEMPrivateKeyParameters sk = new MLKEMPrivateKeyParameters(algorithm.parameters(), expanded);
        try {
            return MlKem.decapsulate(algorithm, sk, ciphertext);
        } finally {
            sk.destroy();
        }
    }

    private void check() {
        if (destroyed) {
            throw new IllegalStateException("key has been destroyed");
        }
    }

    @Override
    public void destroy() {
        Arrays.fill(expanded, (byte) 0);
        destroyed = true;
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }

    @Override
    public String toString() {
        return "KemDecapsulationKey[" + algorithm.sshName() + ", secret hidden]";
    }
}
