package io.pqssh.core.keys.kem;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.PrivateKeyCodec;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * Reads {@code string raw_pk, string seed(64)}; re-derives the key pair from the seed and rejects a stored public
 * key that does not match it.
 */
public final class MlKemPrivateKeyCodec implements PrivateKeyCodec {
    private final KemAlgorithm algorithm;

    public MlKemPrivateKeyCodec(KemAlgorithm algorithm) {
        this.algorithm = algorithm;
    }

    public KemAlgorithm algorithm() {
        return algorithm;
    }

    @Override
    public List<String> keyTypes() {
        return List.of(algorithm.sshName());
    }

    @Override
    public SshPrivateKey readPrivateFields(String keyType, SshReader in) throws MalformedMessageException {
        byte[] pk = in.getString();
        if (pk.length != algorithm.publicKeyBytes()) {
            throw new MalformedMessageException(keyType + " public key must be " + algorithm.publicKeyBytes()
                    + " bytes, got " + pk.length);
        }
        byte[] seed = in.getString();
        try {
            if (seed.length != KemAlgorithm.SEED_BYTES) {
                throw new MalformedMessageException(keyType + " seed must be " + KemAlgorithm.SEED_BYTES
                        + " bytes, got " + seed.length);
            }
            KemKeyPair kp = MlKem.fromSeed(algorithm, seed);
            if (!MessageDigest.isEqual(kp.publicKey(), pk)) {
                kp.destroy();
                throw new MalformedMessageException(keyType + " public key does not match the one derived from "
                        + "the seed");
            }
            return new MlKemSshKey(kp);
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
    }
}
