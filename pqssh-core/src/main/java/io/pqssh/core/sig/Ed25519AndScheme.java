package io.pqssh.core.sig;

import java.security.SecureRandom;
import java.util.Arrays;

import org.bouncycastle.crypto.params.MLDSAParameters;
import org.bouncycastle.crypto.params.SLHDSAParameters;

import io.pqssh.core.wire.MalformedMessageException;

/**
 * The "AND" composites {@code ssh-ed25519-mldsa-65} and {@code ssh-ed25519-slhdsapuresha2192f}. The KEMUAuth
 * artifact uses these names but publishes no wire layout; this is pqssh's own (docs/lab-handshake.md):
 * <pre>
 * pk  = ed25519 pk(32) || pq pk
 * sig = ed25519 sig(64) || pq sig      both over the same message M, no prefix, no context
 * private fields: string pk, string (ed25519 seed(32) || pq secret)
 * </pre>
 * where the PQ half is ML-DSA-65 (pure, empty context, hedged; secret = 32-byte seed ξ) or SLH-DSA-SHA2-192f (pure,
 * empty context, hedged; secret = FIPS 205 sk, 96 bytes). A signature is valid only if both halves are; both are
 * always checked in full so the time taken does not say which half failed.
 */
final class Ed25519AndScheme extends SignatureScheme {
    private static final int ED_PK = Ed25519Scheme.PUBLIC_BYTES;
    private static final int ED_SIG = Ed25519Scheme.SIGNATURE_BYTES;
    private static final int ED_SEED = Ed25519Scheme.SEED_BYTES;

    /** The post-quantum half. */
    private interface PqHalf {
        int secretBytes();

        byte[][] generate(SecureRandom random);

        byte[] publicKey(byte[] secret);

        byte[] sign(byte[] secret, byte[] m, SecureRandom random);

        boolean verify(byte[] pk, byte[] m, byte[] sig);
    }

    private static final class MlDsaHalf implements PqHalf {
        private final MLDSAParameters params;

        MlDsaHalf(MLDSAParameters params) {
            this.params = params;
        }

        @Override
        public int secretBytes() {
            return MlDsaScheme.SEED_BYTES;
        }

        @Override
        public byte[][] generate(SecureRandom random) {
            byte[] seed = new byte[MlDsaScheme.SEED_BYTES];
            random.nextBytes(seed);
            return new byte[][] {MlDsaScheme.publicFromSecret(params, seed), seed};
        }

        @Override
        public byte[] publicKey(byte[] secret) {
            return MlDsaScheme.publicFromSecret(params, secret);
        }

        @Override
        public byte[] sign(byte[] secret, byte[] m, SecureRandom random) {
            return MlDsaScheme.sign(params, secret, null, m, random);
        }

        @Override
        public boolean verify(byte[] pk, byte[] m, byte[] sig) {
            return MlDsaScheme.verify(params, pk, null, m, sig);
        }
    }

    private static final class SlhDsaHalf implements PqHalf {
        private final SLHDSAParameters params;

        SlhDsaHalf(SLHDSAParameters params) {
            this.params = params;
        }

        @Override
        public int secretBytes() {
            return SlhDsaScheme.secretBytes(params);
        }

        @Override
        public byte[][] generate(SecureRandom random) {
            return SlhDsaScheme.generate(params, random);
        }

        @Override
        public byte[] publicKey(byte[] secret) {
            return SlhDsaScheme.publicFromSecret(params, secret);
        }

        @Override
        public byte[] sign(byte[] secret, byte[] m, SecureRandom random) {
            return SlhDsaScheme.sign(params, secret, m, random);
        }

        @Override
        public boolean verify(byte[] pk, byte[] m, byte[] sig) {
            return SlhDsaScheme.verify(params, pk, m, sig);
        }
    }

    private final PqHalf pq;
    private final int pqPk;
    private final int pqSig;

    Ed25519AndScheme(SignatureKeyType type) {
        super(type);
        this.pq = switch (type.name()) { // by name: the enum is still initialising here
            case "ED25519_MLDSA_65" -> new MlDsaHalf(MLDSAParameters.ml_dsa_65);
            case "ED25519_SLHDSA_SHA2_192F" -> new SlhDsaHalf(SLHDSAParameters.sha2_192f);
            default -> throw new IllegalArgumentException(type.name());
        };
        this.pqPk = type.publicKeySize() - ED_PK;
        this.pqSig = type.signatureSize() - ED_SIG;
    }

    /** Length of the secret: Ed25519 seed then the PQ secret. */
    public int secretBytes() {
        return ED_SEED + pq.secretBytes();
    }

    @Override
    protected KeyMaterial generate(SecureRandom random) {
        byte[] seed = new byte[ED_SEED];
        random.nextBytes(seed);
        byte[] edPk = Ed25519Scheme.publicFromSeed(seed);
        byte[][] half = pq.generate(random);
        byte[] secret = concat(seed, half[1]);
        Arrays.fill(seed, (byte) 0);
        Arrays.fill(half[1], (byte) 0);
        return new KeyMaterial(concat(edPk, half[0]), secret);
    }

    @Override
    protected byte[] derivePublicKey(byte[] secret) {
        if (secret.length != secretBytes()) {
            throw new IllegalArgumentException(type().sshName() + " secret must be " + secretBytes() + " bytes, got "
                    + secret.length);
        }
        byte[] ed = Arrays.copyOfRange(secret, 0, ED_SEED);
        byte[] ps = Arrays.copyOfRange(secret, ED_SEED, secret.length);
        try {
            return concat(Ed25519Scheme.publicFromSeed(ed), pq.publicKey(ps));
        } finally {
            Arrays.fill(ed, (byte) 0);
            Arrays.fill(ps, (byte) 0);
        }
    }

    @Override
    protected byte[] signRaw(byte[] secret, byte[] publicKey, byte[] data, SecureRandom random) {
        byte[] ed = Arrays.copyOfRange(secret, 0, ED_SEED);
        byte[] ps = Arrays.copyOfRange(secret, ED_SEED, secret.length);
        try {
            return concat(Ed25519Scheme.signWithSeed(ed, data), pq.sign(ps, data, random));
        } finally {
            Arrays.fill(ed, (byte) 0);
            Arrays.fill(ps, (byte) 0);
        }
    }

    @Override
    protected boolean verifyRaw(byte[] publicKey, byte[] data, byte[] signature) {
        byte[] edPk = Arrays.copyOfRange(publicKey, 0, ED_PK);
        byte[] pqPkBytes = Arrays.copyOfRange(publicKey, ED_PK, publicKey.length);
        byte[] edSig = Arrays.copyOfRange(signature, 0, ED_SIG);
        byte[] pqSigBytes = Arrays.copyOfRange(signature, ED_SIG, signature.length);
        // both halves run to completion whatever the first one says
        boolean a = checkQuietly(() -> Ed25519Scheme.verifyWith(edPk, data, edSig));
        boolean b = checkQuietly(() -> pq.verify(pqPkBytes, data, pqSigBytes));
        return a & b;
    }

    private static boolean checkQuietly(java.util.function.BooleanSupplier check) {
        try {
            return check.getAsBoolean();
        } catch (RuntimeException e) {
            return false; // an unparsable half is an invalid half; the other half is still checked
        }
    }

    @Override
    protected void checkPublicKey(byte[] raw) throws MalformedMessageException {
        if (raw.length != type().publicKeySize()) {
            throw new MalformedMessageException(type().sshName() + " public key must be " + ED_PK + " + " + pqPk
                    + " = " + type().publicKeySize() + " bytes, got " + raw.length);
        }
    }

    @Override
    protected void checkSignature(byte[] raw) throws MalformedMessageException {
        if (raw.length != type().signatureSize()) {
            throw new MalformedMessageException(type().sshName() + " signature must be " + ED_SIG + " + " + pqSig
                    + " = " + type().signatureSize() + " bytes, got " + raw.length);
        }
    }



    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Override
    protected String secretFieldProblem(byte[] secret) {
        return secret.length == secretBytes() ? null : "secret must be " + secretBytes() + " bytes (Ed25519 seed(32) || "
                + pq.secretBytes() + "-byte PQ secret), got " + secret.length;
    }
}
