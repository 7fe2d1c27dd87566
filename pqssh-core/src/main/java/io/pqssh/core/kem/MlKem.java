package io.pqssh.core.kem;

import java.security.SecureRandom;
import java.util.Arrays;

import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.SecretWithEncapsulation;
import org.bouncycastle.crypto.generators.MLKEMKeyPairGenerator;
import org.bouncycastle.crypto.kems.MLKEMExtractor;
import org.bouncycastle.crypto.kems.MLKEMGenerator;
import org.bouncycastle.crypto.params.MLKEMKeyGenerationParameters;
import org.bouncycastle.crypto.params.MLKEMPrivateKeyParameters;
import org.bouncycastle.crypto.params.MLKEMPublicKeyParameters;

/** ML-KEM (FIPS 203) operations on raw encodings, backed by Bouncy Castle's lightweight API. */
public final class MlKem {
    private MlKem() {
    }

    public static KemKeyPair generate(KemAlgorithm algorithm, SecureRandom random) {
        MLKEMKeyPairGenerator gen = new MLKEMKeyPairGenerator();
        gen.init(new MLKEMKeyGenerationParameters(random, algorithm.parameters()));
        AsymmetricCipherKeyPair kp = gen.generateKeyPair();
        MLKEMPrivateKeyParameters sk = (MLKEMPrivateKeyParameters) kp.getPrivate();
        byte[] seed = sk.getSeed();
        try {
            return new KemKeyPair(algorithm, ((MLKEMPublicKeyParameters) kp.getPublic()).getEncoded(), seed);
        } finally {
            Arrays.fill(seed, (byte) 0);
            sk.destroy();
        }
    }

    /** Re-derives a key pair from its 64-byte seed (deterministic, FIPS 203 ML-KEM.KeyGen_internal). */
    public static KemKeyPair fromSeed(KemAlgorithm algorithm, byte[] seed) {
        if (seed.length != KemAlgorithm.SEED_BYTES) {
            throw new IllegalArgumentException("ML-KEM seed must be 64 bytes, got " + seed.length);
        }
        MLKEMPrivateKeyParameters sk = new MLKEMPrivateKeyParameters(algorithm.parameters(), seed);
        try {
            return new KemKeyPair(algorithm, sk.getPublicKey(), seed);
        } finally {
            sk.destroy();
        }
    }

    /**
     * Imports an expanded decapsulation key (no seed). The result can decapsulate but has no seed; it is returned as
     * a {@link KemDecapsulationKey} rather than a {@link KemKeyPair}.
     */
    public static KemDecapsulationKey fromExpanded(KemAlgorithm algorithm, byte[] expanded) {
        if (expanded.length != algorithm.expandedSecretKeyBytes()) {
            throw new IllegalArgumentException(algorithm.sshName() + " expanded secret key must be "
                    + algorithm.expandedSecretKeyBytes() + " bytes, got " + expanded.length);
        }
        return new KemDecapsulationKey(algorithm, expanded);
    }

    static byte[] expand(KemAlgorithm algorithm, byte[] seed) {
        MLKEMPrivateKeyParameters sk = new MLKEMPrivateKeyParameters(algorithm.parameters(), seed);
        try {
            return sk.withPreferredFormat(MLKEMPrivateKeyParameters.EXPANDED_KEY).getEncoded();
        } finally {
            sk.destroy();
        }
    }

    public static Encapsulation encapsulate(KemAlgorithm algorithm, byte[] publicKey, SecureRandom random) {
        if (publicKey.length != algorithm.publicKeyBytes()) {
            throw new IllegalArgumentException(algorithm.sshName() + " public key must be "
                    + algorithm.publicKeyBytes() + " bytes, got " + publicKey.length);
        }
        // FIPS 203 §7.2 input check: BC rejects keys whose coefficients are not reduced mod q.
        MLKEMPublicKeyParameters pk = new MLKEMPublicKeyParameters(algorithm.parameters(), publicKey);
        SecretWithEncapsulation enc = new MLKEMGenerator(random).generateEncapsulated(pk);
        try {
            return new Encapsulation(enc.getEncapsulation(), enc.getSecret());
        } finally {
            try {
                enc.destroy();
            } catch (javax.security.auth.DestroyFailedException ignored) {
                // getSecret() returned a copy that Encapsulation owns and wipes
            }
        }
    }

    /** Decapsulates with the key pair's seed. The ciphertext length must already have been checked. */
    public static byte[] decapsulate(KemKeyPair keyPair, byte[] ciphertext) {
        MLKEMPrivateKeyParameters sk = new MLKEMPrivateKeyParameters(keyPair.algorithm().parameters(),
                keyPair.seedUnsafe());
        try {
            return decapsulate(keyPair.algorithm(), sk, ciphertext);
        } finally {
            sk.destroy();
        }
    }

    static byte[] decapsulate(KemAlgorithm algorithm, MLKEMPrivateKeyParameters sk, byte[] ciphertext) {
        if (ciphertext.length != algorithm.ciphertextBytes()) {
            throw new IllegalArgumentException(algorithm.sshName() + " ciphertext must be "
                    + algorithm.ciphertextBytes() + " bytes, got " + ciphertext.length);
        }
        return new MLKEMExtractor(sk).extractSecret(ciphertext);
    }
}
