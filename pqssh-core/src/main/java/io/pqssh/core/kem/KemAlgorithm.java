package io.pqssh.core.kem;

import java.util.Locale;
import java.util.Optional;

import org.bouncycastle.crypto.params.MLKEMParameters;

/**
 * The ML-KEM parameter sets usable as KEMUAuth credentials, with their canonical SSH names and FIPS 203 sizes.
 * Spellings used by the research implementation ({@code ML-KEM-768}, {@code kyber768}, optional {@code -sha256})
 * normalize to the same constant; the wire string itself is always kept as received.
 */
public enum KemAlgorithm {
    MLKEM512("mlkem512", "ML-KEM-512", 800, 1632, 768, MLKEMParameters.ml_kem_512),
    MLKEM768("mlkem768", "ML-KEM-768", 1184, 2400, 1088, MLKEMParameters.ml_kem_768),
    MLKEM1024("mlkem1024", "ML-KEM-1024", 1568, 3168, 1568, MLKEMParameters.ml_kem_1024);

    public static final int SHARED_SECRET_BYTES = 32;
    public static final int SEED_BYTES = 64;

    private final String sshName;
    private final String fipsName;
    private final int publicKeyBytes;
    private final int expandedSecretKeyBytes;
    private final int ciphertextBytes;
    private final MLKEMParameters parameters;

    KemAlgorithm(String sshName, String fipsName, int pk, int dk, int ct, MLKEMParameters parameters) {
        this.sshName = sshName;
        this.fipsName = fipsName;
        this.publicKeyBytes = pk;
        this.expandedSecretKeyBytes = dk;
        this.ciphertextBytes = ct;
        this.parameters = parameters;
    }

    /** Canonical name, as pqssh sends it and writes it into key files. */
    public String sshName() {
        return sshName;
    }

    /** FIPS 203 name, also the JCA algorithm name of the JDK's provider. */
    public String fipsName() {
        return fipsName;
    }

    public int publicKeyBytes() {
        return publicKeyBytes;
    }

    public int expandedSecretKeyBytes() {
        return expandedSecretKeyBytes;
    }

    public int ciphertextBytes() {
        return ciphertextBytes;
    }

    MLKEMParameters parameters() {
        return parameters;
    }

    /**
     * Normalizes a name as the research implementation does: ASCII case-insensitive, exactly {@code mlkemN},
     * {@code ML-KEM-N} or {@code kyberN}, each with an optional {@code -sha256} suffix. Other spellings
     * ({@code ml_kem_768}, {@code mlkem-768}, {@code ML-KEM768}) are unknown: the reference refuses them, and a name
     * pqssh accepts but the reference does not would authenticate against one server and fail against the other.
     */
    public static Optional<KemAlgorithm> fromName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        // SSH algorithm names are printable US-ASCII without spaces (RFC 4251 section 6): no trimming, and no
        // Unicode case folding (U+212A KELVIN SIGN lowercases to 'k')
        if (!name.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
            return Optional.empty();
        }
        String n = name.toLowerCase(Locale.ROOT);
        if (n.endsWith("-sha256")) {
            n = n.substring(0, n.length() - "-sha256".length());
        }
        for (KemAlgorithm a : values()) {
            String bits = a.sshName.substring("mlkem".length());
            if (n.equals("mlkem" + bits) || n.equals("ml-kem-" + bits) || n.equals("kyber" + bits)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** Like {@link #fromName} but fails with a message naming the accepted algorithms. */
    public static KemAlgorithm require(String name) {
        return fromName(name).orElseThrow(() -> new IllegalArgumentException(
                "unknown KEM algorithm '" + name + "' (accepted: mlkem512, mlkem768, mlkem1024, "
                        + "ML-KEM-512/768/1024, kyber512/768/1024, optionally with -sha256)"));
    }
}
