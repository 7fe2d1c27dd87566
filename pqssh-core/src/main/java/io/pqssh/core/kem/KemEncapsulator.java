package io.pqssh.core.kem;

import java.security.SecureRandom;

/**
 * ML-KEM.Encaps on a raw encapsulation key from the wire, by one provider. Implementations check the key length and
 * the FIPS 203 section 7.2 modulus check (every coefficient reduced mod q) and are safe for concurrent use.
 * {@link KemProviders#selected()} picks the one the server uses.
 */
public interface KemEncapsulator {
    /** {@code "BC"} or {@code "JDK"}. */
    String name();

    /** Encapsulates to {@code publicKey}; the caller wipes the result with {@link Encapsulation#destroy()}. */
    Encapsulation encapsulate(KemAlgorithm algorithm, byte[] publicKey, SecureRandom random);
}
