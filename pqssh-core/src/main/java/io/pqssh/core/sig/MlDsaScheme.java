package io.pqssh.core.sig;

import java.security.SecureRandom;

import org.bouncycastle.crypto.CipherParameters;
import org.bouncycastle.crypto.CryptoException;
import org.bouncycastle.crypto.params.MLDSAParameters;
import org.bouncycastle.crypto.params.MLDSAPrivateKeyParameters;
import org.bouncycastle.crypto.params.MLDSAPublicKeyParameters;
import org.bouncycastle.crypto.params.ParametersWithContext;
import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.crypto.signers.MLDSASigner;


/**
 * {@code ssh-mldsa-44/65/87} (draft-sfluhrer-ssh-mldsa): pure ML-DSA (FIPS 204), empty context, hedged signing.
 *
 * <p>Secret: the 32-byte seed ξ. Private fields (pqssh's layout; OpenSSH has no pure ML-DSA key type whose layout
 * could be followed, so this mirrors its composite: public key string, then secret string):
 * {@code string pk, string seed(32)}. On reading, a FIPS 204 expanded private key (2560/4032/4896 bytes, the
 * layout liboqs-based tools write) is also accepted in place of the seed and written back as it was read.
 */
final class MlDsaScheme extends SignatureScheme {
    public static final int SEED_BYTES = 32;

    private final MLDSAParameters params;
    private final int expandedBytes;

    MlDsaScheme(SignatureKeyType type) {
        super(type);
        this.params = parameters(type);
        this.expandedBytes = switch (type.name()) { // by name: the enum is still initialising here
            case "MLDSA_44" -> 2560;
            case "MLDSA_65" -> 4032;
            default -> 4896;
        };
    }

    @Override
    protected KeyMaterial generate(SecureRandom random) {
        byte[] seed = new byte[SEED_BYTES];
        random.nextBytes(seed);
        return new KeyMaterial(publicFromSecret(params, seed), seed);
    }

    @Override
    protected byte[] derivePublicKey(byte[] secret) {
        if (secret.length != SEED_BYTES && secret.length != expandedBytes) {
            throw new IllegalArgumentException(type().sshName() + " secret must be a 32-byte seed or a "
                    + expandedBytes + "-byte expanded key, got " + secret.length + " bytes");
        }
        return publicFromSecret(params, secret);
    }

    @Override
    protected byte[] signRaw(byte[] secret, byte[] publicKey, byte[] data, SecureRandom random) {
        return sign(params, secret, null, data, random);
    }

    @Override
    protected boolean verifyRaw(byte[] publicKey, byte[] data, byte[] signature) {
        // the provider the server selected at start-up (Bouncy Castle until then); lengths are already checked
        return SigProviders.verifier().verify(type(), publicKey, data, signature);
    }

    /** The Bouncy Castle parameter set of {@code ssh-mldsa-44/65/87}. */
    public static MLDSAParameters parameters(SignatureKeyType type) {
        return switch (type.name()) { // by name: usable while the enum is still initialising
            case "MLDSA_44" -> MLDSAParameters.ml_dsa_44;
            case "MLDSA_65" -> MLDSAParameters.ml_dsa_65;
            case "MLDSA_87" -> MLDSAParameters.ml_dsa_87;
            default -> throw new IllegalArgumentException(type.sshName() + " is not a pure ML-DSA type");
        };
    }

    // ---- primitives, shared with the composite ----

    public static byte[] publicFromSecret(MLDSAParameters params, byte[] secret) {
        // BC keeps (and destroy() wipes) the array it is given: always hand it a copy
        MLDSAPrivateKeyParameters sk = new MLDSAPrivateKeyParameters(params, secret.clone());
        try {
            return sk.getPublicKey();
        } finally {
            sk.destroy();
        }
    }

    /** Pure ML-DSA over {@code data} with context {@code ctx} ({@code null} = empty); hedged with {@code random}. */
    public static byte[] sign(MLDSAParameters params, byte[] secret, byte[] ctx, byte[] data, SecureRandom random) {
        MLDSAPrivateKeyParameters sk = new MLDSAPrivateKeyParameters(params, secret.clone());
        try {
            CipherParameters p = new ParametersWithRandom(sk, random);
            if (ctx != null) {
                p = new ParametersWithContext(p, ctx);
            }
            MLDSASigner s = new MLDSASigner();
            s.init(true, p);
            s.update(data, 0, data.length);
            return s.generateSignature();
        } catch (CryptoException e) {
            throw new IllegalStateException("ML-DSA signing failed", e);
        } finally {
            sk.destroy();
        }
    }

    /** Bouncy Castle's verification (the composites use it directly; {@code ssh-mldsa-*} goes through the selection). */
    public static boolean verify(MLDSAParameters params, byte[] publicKey, byte[] ctx, byte[] data,
            byte[] signature) {
        CipherParameters p = new MLDSAPublicKeyParameters(params, publicKey);
        if (ctx != null) {
            p = new ParametersWithContext(p, ctx);
        }
        MLDSASigner s = new MLDSASigner();
        s.init(false, p);
        s.update(data, 0, data.length);
        return s.verifySignature(signature);
    }

    @Override
    protected String secretFieldProblem(byte[] secret) {
        return secret.length == SEED_BYTES || secret.length == expandedBytes ? null
                : "secret must be a 32-byte seed or a " + expandedBytes + "-byte expanded key, got " + secret.length
                        + " bytes";
    }
}
