package io.pqssh.core.sig;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.generators.SLHDSAKeyPairGenerator;
import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.crypto.params.SLHDSAKeyGenerationParameters;
import org.bouncycastle.crypto.params.SLHDSAParameters;
import org.bouncycastle.crypto.params.SLHDSAPrivateKeyParameters;
import org.bouncycastle.crypto.params.SLHDSAPublicKeyParameters;
import org.bouncycastle.crypto.signers.SLHDSASigner;


/**
 * SLH-DSA-SHA2-128f/192f/256f (FIPS 205), pure, empty context, hedged (fresh opt_rand per signature).
 * pk = PK.seed || PK.root (2n); secret = FIPS 205 sk = SK.seed || SK.prf || PK.seed || PK.root (4n).
 * Private fields (liboqs/OQS layout): {@code string pk(2n), string sk(4n)}. On reading, PK.root is recomputed from
 * the seeds and must match.
 */
final class SlhDsaScheme extends SignatureScheme {
    private final SLHDSAParameters params;
    private final int n;

    SlhDsaScheme(SignatureKeyType type) {
        super(type);
        this.params = switch (type.name()) { // by name: the enum is still initialising here
            case "SLHDSA_SHA2_128F" -> SLHDSAParameters.sha2_128f;
            case "SLHDSA_SHA2_192F" -> SLHDSAParameters.sha2_192f;
            case "SLHDSA_SHA2_256F" -> SLHDSAParameters.sha2_256f;
            default -> throw new IllegalArgumentException(type.name());
        };
        this.n = type.publicKeySize() / 2;
    }

    @Override
    protected KeyMaterial generate(SecureRandom random) {
        byte[][] kp = generate(params, random);
        return new KeyMaterial(kp[0], kp[1]);
    }

    @Override
    protected byte[] derivePublicKey(byte[] secret) {
        return publicFromSecret(params, secret);
    }

    @Override
    protected byte[] signRaw(byte[] secret, byte[] publicKey, byte[] data, SecureRandom random) {
        return sign(params, secret, data, random);
    }

    @Override
    protected boolean verifyRaw(byte[] publicKey, byte[] data, byte[] signature) {
        return verify(params, publicKey, data, signature);
    }



    // ---- primitives, shared with the Ed25519 AND composite ----

    /** The FIPS 205 secret length, 4n, for a parameter set. */
    public static int secretBytes(SLHDSAParameters params) {
        return 4 * params.getN();
    }

    /** PK.seed || PK.root of a FIPS 205 secret, after recomputing PK.root from the seeds (it must match). */
    public static byte[] publicFromSecret(SLHDSAParameters params, byte[] secret) {
        int n = params.getN();
        if (secret.length != 4 * n) {
            throw new IllegalArgumentException("SLH-DSA secret must be " + 4 * n + " bytes, got " + secret.length);
        }
        // Re-run key generation on SK.seed || SK.prf || PK.seed to recompute PK.root.
        FixedRandom seeds = new FixedRandom(Arrays.copyOf(secret, 3 * n));
        try {
            SLHDSAKeyPairGenerator g = new SLHDSAKeyPairGenerator();
            g.init(new SLHDSAKeyGenerationParameters(seeds, params));
            AsymmetricCipherKeyPair kp = g.generateKeyPair();
            SLHDSAPrivateKeyParameters sk = (SLHDSAPrivateKeyParameters) kp.getPrivate();
            byte[] enc = sk.getEncoded();
            sk.destroy();
            boolean same = MessageDigest.isEqual(enc, secret);
            Arrays.fill(enc, (byte) 0);
            if (!same || !seeds.exhausted()) {
                throw new IllegalArgumentException("PK.root in the secret does not match its seeds");
            }
            return Arrays.copyOfRange(secret, 2 * n, 4 * n);
        } finally {
            seeds.wipe();
        }
    }

    /** A fresh FIPS 205 key pair: {public key, secret}. */
    public static byte[][] generate(SLHDSAParameters params, SecureRandom random) {
        SLHDSAKeyPairGenerator g = new SLHDSAKeyPairGenerator();
        g.init(new SLHDSAKeyGenerationParameters(random, params));
        AsymmetricCipherKeyPair kp = g.generateKeyPair();
        SLHDSAPrivateKeyParameters sk = (SLHDSAPrivateKeyParameters) kp.getPrivate();
        byte[] secret = sk.getEncoded();
        sk.destroy();
        return new byte[][] {((SLHDSAPublicKeyParameters) kp.getPublic()).getEncoded(), secret};
    }

    /** Pure SLH-DSA, empty context, hedged with {@code random}. */
    public static byte[] sign(SLHDSAParameters params, byte[] secret, byte[] data, SecureRandom random) {
        SLHDSAPrivateKeyParameters sk = new SLHDSAPrivateKeyParameters(params, secret.clone());
        try {
            SLHDSASigner s = new SLHDSASigner();
            s.init(true, new ParametersWithRandom(sk, random));
            return s.generateSignature(data);
        } finally {
            sk.destroy();
        }
    }

    public static boolean verify(SLHDSAParameters params, byte[] publicKey, byte[] data, byte[] signature) {
        SLHDSASigner s = new SLHDSASigner();
        s.init(false, new SLHDSAPublicKeyParameters(params, publicKey));
        return s.verifySignature(data, signature);
    }

    @Override
    protected String secretFieldProblem(byte[] secret) {
        return secret.length == 4 * n ? null : "secret must be " + 4 * n + " bytes, got " + secret.length;
    }
}
