package io.pqssh.core.kem;

import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;

import javax.crypto.KEM;
import javax.crypto.SecretKey;
import javax.security.auth.DestroyFailedException;

import io.pqssh.core.provider.JdkProviders;

/**
 * The JDK's own ML-KEM ({@code javax.crypto.KEM "ML-KEM"}, SunJCE in JDK 24+). The raw wire key becomes an X.509
 * SubjectPublicKeyInfo by prefixing the fixed DER header of its parameter set (AlgorithmIdentifier without
 * parameters, id-alg-ml-kem-N = 2.16.840.1.101.3.4.4.{1,2,3}). The FIPS 203 modulus check is done here explicitly,
 * so a key Bouncy Castle rejects is rejected the same way whatever the JDK provider checks. Compiled for Java 24
 * into the multi-release jar's {@code META-INF/versions/24}: {@code javax.crypto.KEM} does not exist on Java 17.
 */
final class JavaxCryptoKemEncapsulator implements KemEncapsulator {
    private final String kemProviderName;
    private final KEM kem; // immutable and thread-safe (javax.crypto.KEM contract)
    private final JdkProviders.RawKeyDecoder keys;

    JavaxCryptoKemEncapsulator(Provider kemProvider, Provider keyFactoryProvider) throws GeneralSecurityException {
        this.kemProviderName = kemProvider.getName();
        this.kem = KEM.getInstance("ML-KEM", kemProvider);
        this.keys = new JdkProviders.RawKeyDecoder("ML-KEM", keyFactoryProvider);
    }

    @Override
    public String name() {
        return "JDK";
    }

    @Override
    public Encapsulation encapsulate(KemAlgorithm algorithm, byte[] publicKey, SecureRandom random) {
        if (publicKey.length != algorithm.publicKeyBytes()) {
            throw new IllegalArgumentException(algorithm.sshName() + " public key must be "
                    + algorithm.publicKeyBytes() + " bytes, got " + publicKey.length);
        }
        if (!JdkMlKem.coefficientsReduced(algorithm, publicKey)) {
            throw new IllegalArgumentException(algorithm.sshName()
                    + " public key fails the FIPS 203 modulus check (coefficient not reduced mod q)");
        }
        KEM.Encapsulated e;
        try {
            PublicKey pub = keys.decode(JdkMlKem.spkiHeader(algorithm), publicKey);
            e = kem.newEncapsulator(pub, random).encapsulate();
        } catch (GeneralSecurityException ex) {
            throw new IllegalArgumentException(algorithm.sshName() + " public key rejected by the JDK: "
                    + ex.getMessage(), ex);
        }
        SecretKey key = e.key();
        byte[] ss = key.getEncoded();
        try {
            key.destroy();
        } catch (DestroyFailedException ignored) {
            // a key type without destroy(): its copy is left to the GC; ours is wiped by Encapsulation
        }
        byte[] ct = e.encapsulation();
        if (ss == null || ss.length != KemAlgorithm.SHARED_SECRET_BYTES || ct.length != algorithm.ciphertextBytes()) {
            throw new IllegalStateException("JDK ML-KEM returned a malformed encapsulation");
        }
        return new Encapsulation(ct, ss);
    }

    @Override
    public String toString() {
        return "JDK (" + kemProviderName + ")";
    }
}
