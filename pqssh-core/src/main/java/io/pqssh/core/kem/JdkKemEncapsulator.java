package io.pqssh.core.kem;

import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

import javax.crypto.KEM;
import javax.crypto.SecretKey;
import javax.security.auth.DestroyFailedException;

import io.pqssh.core.provider.JdkProviders;

/**
 * The JDK's own ML-KEM ({@code javax.crypto.KEM "ML-KEM"}, SunJCE in JDK 24+). The raw wire key becomes an X.509
 * SubjectPublicKeyInfo by prefixing the fixed DER header of its parameter set (AlgorithmIdentifier without
 * parameters, id-alg-ml-kem-N = 2.16.840.1.101.3.4.4.{1,2,3}). The FIPS 203 modulus check is done here explicitly,
 * so a key Bouncy Castle rejects is rejected the same way whatever the JDK provider checks.
 */
final class JdkKemEncapsulator implements KemEncapsulator {
    private static final int Q = 3329;

    private final String kemProviderName;
    private final KEM kem; // immutable and thread-safe (javax.crypto.KEM contract)
    private final JdkProviders.RawKeyDecoder keys;

    private JdkKemEncapsulator(Provider kemProvider, Provider keyFactoryProvider) throws GeneralSecurityException {
        this.kemProviderName = kemProvider.getName();
        this.kem = KEM.getInstance("ML-KEM", kemProvider);
        this.keys = new JdkProviders.RawKeyDecoder("ML-KEM", keyFactoryProvider);
    }

    /** The JDK's (non-Bouncy-Castle) ML-KEM, or empty when this JDK has none. */
    static Optional<KemEncapsulator> create() {
        return JdkProviders.create("KEM", "ML-KEM", "ML-KEM", JdkKemEncapsulator::new);
    }

    static byte[] spkiHeader(KemAlgorithm a) {
        return switch (a) {
            case MLKEM512 -> Headers.H512;
            case MLKEM768 -> Headers.H768;
            case MLKEM1024 -> Headers.H1024;
        };
    }

    private static final class Headers {
        private static final HexFormat HEX = HexFormat.of();
        static final byte[] H512 = HEX.parseHex("30820332300b06096086480165030404010382032100");
        static final byte[] H768 = HEX.parseHex("308204b2300b0609608648016503040402038204a100");
        static final byte[] H1024 = HEX.parseHex("30820632300b06096086480165030404030382062100");
    }

    /** FIPS 203 section 7.2: ByteEncode12(ByteDecode12(ek[0:384k])) == ek[0:384k], i.e. every coefficient < q. */
    static boolean coefficientsReduced(KemAlgorithm a, byte[] ek) {
        int polyBytes = a.publicKeyBytes() - 32;
        for (int i = 0; i < polyBytes; i += 3) {
            int b0 = ek[i] & 0xFF;
            int b1 = ek[i + 1] & 0xFF;
            int b2 = ek[i + 2] & 0xFF;
            if ((b0 | ((b1 & 0x0F) << 8)) >= Q || ((b1 >> 4) | (b2 << 4)) >= Q) {
                return false;
            }
        }
        return true;
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
        if (!coefficientsReduced(algorithm, publicKey)) {
            throw new IllegalArgumentException(algorithm.sshName()
                    + " public key fails the FIPS 203 modulus check (coefficient not reduced mod q)");
        }
        KEM.Encapsulated e;
        try {
            PublicKey pub = keys.decode(spkiHeader(algorithm), publicKey);
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
