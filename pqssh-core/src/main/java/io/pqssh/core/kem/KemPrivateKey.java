package io.pqssh.core.kem;

import javax.security.auth.Destroyable;

/** Anything that can answer a KEM challenge: a seed-based key pair or an imported expanded key. */
public interface KemPrivateKey extends Destroyable {
    KemAlgorithm algorithm();

    /** Raw FIPS 203 encapsulation key. */
    byte[] publicKey();

    /** ML-KEM.Decaps; the ciphertext length must equal the parameter set's. Returns the 32-byte secret (wipe it). */
    byte[] decapsulate(byte[] ciphertext);
}
