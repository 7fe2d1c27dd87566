package io.pqssh.core.sig;

/**
 * Pure ML-DSA verification (FIPS 204, empty context: what {@code ssh-mldsa-44/65/87} signs) of a raw public key
 * from the wire, by one provider. Implementations reject keys and signatures of the wrong length for the parameter
 * set with {@link IllegalArgumentException} and are safe for concurrent use. {@link SigProviders#selected()} picks
 * the one the server uses.
 */
public interface MlDsaVerifier {
    /** {@code "BC"} or {@code "JDK"}. */
    String name();

    /**
     * True when {@code signature} is a valid pure ML-DSA signature over {@code data}; {@code type} is
     * {@link SignatureKeyType#MLDSA_44}, {@link SignatureKeyType#MLDSA_65} or {@link SignatureKeyType#MLDSA_87}.
     */
    boolean verify(SignatureKeyType type, byte[] publicKey, byte[] data, byte[] signature);

    /** The length checks every implementation does before handing anything to its library. */
    static void checkLengths(SignatureKeyType type, byte[] publicKey, byte[] signature) {
        switch (type) {
            case MLDSA_44, MLDSA_65, MLDSA_87 -> {
            }
            default -> throw new IllegalArgumentException(type.sshName() + " is not a pure ML-DSA type");
        }
        if (publicKey.length != type.publicKeySize()) {
            throw new IllegalArgumentException(type.sshName() + " public key must be " + type.publicKeySize()
                    + " bytes, got " + publicKey.length);
        }
        if (signature.length != type.signatureSize()) {
            throw new IllegalArgumentException(type.sshName() + " signature must be " + type.signatureSize()
                    + " bytes, got " + signature.length);
        }
    }
}
