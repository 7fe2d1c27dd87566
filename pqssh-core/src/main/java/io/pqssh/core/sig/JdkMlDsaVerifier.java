package io.pqssh.core.sig;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.util.HexFormat;
import java.util.Optional;

import io.pqssh.core.provider.JdkProviders;

/**
 * The JDK's own ML-DSA ({@code Signature "ML-DSA-44/65/87"}, SUN in JDK 24+). The raw wire key becomes an X.509
 * SubjectPublicKeyInfo by prefixing the fixed DER header of its parameter set (AlgorithmIdentifier without
 * parameters, id-ml-dsa-N = 2.16.840.1.101.3.4.3.{17,18,19}). The JDK's default for {@code Signature "ML-DSA-N"}
 * without a parameter spec is pure ML-DSA with an empty context, which is what {@code ssh-mldsa-*} signs; the
 * self-check in {@link SigProviders#disagreement} and the tests hold it to Bouncy Castle's results.
 */
final class JdkMlDsaVerifier implements MlDsaVerifier {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] H44 = HEX.parseHex("30820532300b06096086480165030403110382052100");
    private static final byte[] H65 = HEX.parseHex("308207b2300b0609608648016503040312038207a100");
    private static final byte[] H87 = HEX.parseHex("30820a32300b060960864801650304031303820a2100");

    private final Provider signatureProvider;
    private final JdkProviders.RawKeyDecoder keys;
    // Signature objects are not thread-safe; one per thread and parameter set
    private final ThreadLocal<Signature[]> signatures;

    private JdkMlDsaVerifier(Provider signatureProvider, Provider keyFactoryProvider)
            throws GeneralSecurityException {
        this.signatureProvider = signatureProvider;
        this.keys = new JdkProviders.RawKeyDecoder("ML-DSA", keyFactoryProvider);
        // fail now, not on the first login
        for (String n : new String[] {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87"}) {
            Signature.getInstance(n, signatureProvider);
        }
        this.signatures = ThreadLocal.withInitial(() -> new Signature[3]);
    }

    /** The JDK's (non-Bouncy-Castle) ML-DSA, or empty when this JDK has none. */
    static Optional<MlDsaVerifier> create() {
        return JdkProviders.create("Signature", "ML-DSA-65", "ML-DSA", JdkMlDsaVerifier::new);
    }

    static byte[] spkiHeader(SignatureKeyType type) {
        return switch (type) {
            case MLDSA_44 -> H44;
            case MLDSA_65 -> H65;
            case MLDSA_87 -> H87;
            default -> throw new IllegalArgumentException(type.sshName() + " is not a pure ML-DSA type");
        };
    }

    private static int index(SignatureKeyType type) {
        return switch (type) {
            case MLDSA_44 -> 0;
            case MLDSA_65 -> 1;
            default -> 2;
        };
    }

    private Signature signature(SignatureKeyType type) {
        Signature[] s = signatures.get();
        int i = index(type);
        if (s[i] == null) {
            try {
                s[i] = Signature.getInstance(new String[] {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87"}[i],
                        signatureProvider);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("JDK ML-DSA Signature vanished", e);
            }
        }
        return s[i];
    }

    @Override
    public String name() {
        return "JDK";
    }

    @Override
    public boolean verify(SignatureKeyType type, byte[] publicKey, byte[] data, byte[] signature) {
        MlDsaVerifier.checkLengths(type, publicKey, signature);
        PublicKey pub;
        try {
            pub = keys.decode(spkiHeader(type), publicKey);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(type.sshName() + " public key rejected by the JDK: " + e.getMessage(),
                    e);
        }
        Signature s = signature(type);
        try {
            s.initVerify(pub);
            s.update(data);
            return s.verify(signature);
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException(type.sshName() + " public key rejected by the JDK: " + e.getMessage(),
                    e);
        } catch (SignatureException e) {
            // a signature the JDK cannot parse (e.g. a malformed hint encoding) is not a valid one, as with BC
            return false;
        }
    }

    @Override
    public String toString() {
        return "JDK (" + signatureProvider.getName() + ")";
    }
}
