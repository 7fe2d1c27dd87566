package io.pqssh.core.kem;

import java.security.SecureRandom;

/** Bouncy Castle's lightweight ML-KEM ({@link MlKem#encapsulate}): the default and the fallback. */
final class BcKemEncapsulator implements KemEncapsulator {
    static final BcKemEncapsulator INSTANCE = new BcKemEncapsulator();

    private BcKemEncapsulator() {
    }

    @Override
    public String name() {
        return "BC";
    }

    @Override
    public Encapsulation encapsulate(KemAlgorithm algorithm, byte[] publicKey, SecureRandom random) {
        return MlKem.encapsulate(algorithm, publicKey, random);
    }

    @Override
    public String toString() {
        return "BC";
    }
}
