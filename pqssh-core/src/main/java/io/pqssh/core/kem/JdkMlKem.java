package io.pqssh.core.kem;

import java.util.HexFormat;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The Java 17 side of the JDK's own ML-KEM: finds the {@link JdkKemFactory} of the multi-release jar's Java 24 layer
 * (absent on Java 17, where {@code javax.crypto.KEM} does not exist), and holds the key checks that layer shares
 * with the tests: the fixed DER header per parameter set that turns a raw wire key into an X.509
 * SubjectPublicKeyInfo (AlgorithmIdentifier without parameters, id-alg-ml-kem-N = 2.16.840.1.101.3.4.4.{1,2,3}),
 * and the FIPS 203 modulus check, done explicitly so a key Bouncy Castle rejects is rejected the same way whatever
 * the JDK provider checks.
 */
final class JdkMlKem {
    /** The first Java release with {@code javax.crypto.KEM "ML-KEM"} (JEP 496). */
    static final int FIRST_JDK_WITH_ML_KEM = 24;
    private static final int Q = 3329;

    private JdkMlKem() {
    }

    /** The JDK's (non-Bouncy-Castle) ML-KEM, or empty when this JDK has none (always on Java 17 to 23). */
    static Optional<KemEncapsulator> create() {
        if (Runtime.version().feature() < FIRST_JDK_WITH_ML_KEM) {
            return Optional.empty();
        }
        try {
            for (JdkKemFactory f : ServiceLoader.load(JdkKemFactory.class, JdkMlKem.class.getClassLoader())) {
                Optional<KemEncapsulator> e = f.create();
                if (e.isPresent()) {
                    return e;
                }
            }
        } catch (ServiceConfigurationError e) {
            // a class path without the Java 24 layer (e.g. the jar unpacked): as if the JDK had none
        }
        return Optional.empty();
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
}
