package io.pqssh.core.sig;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;

import org.bouncycastle.crypto.params.MLDSAParameters;


/**
 * OpenSSH's ML-DSA-44 + Ed25519 composite under both its names, {@code ssh-mldsa44-ed25519@openssh.com} (10.4/10.5,
 * draft-miller-sshm-mldsa44-ed25519-composite-sigs-00) and {@code ssh-mldsa44-ed25519} (10.6,
 * draft-ietf-sshm-composite-sigs-00). Both halves sign
 * <pre>M' = "CompositeAlgorithmSignatures2025" || "COMPSIG-MLDSA44-Ed25519-SHA512" || byte 0 || SHA-512(M)</pre>
 * ML-DSA-44 as pure ML-DSA with context "COMPSIG-MLDSA44-Ed25519-SHA512" (hedged), Ed25519 plainly.
 * pk = mldsa pk(1312) || ed pk(32); sig = mldsa sig(2420) || ed sig(64). Secret and private fields as OpenSSH:
 * {@code string pk(1344), string mldsa seed(32) || ed25519 seed(32)}.
 */
final class CompositeMlDsa44Ed25519Scheme extends SignatureScheme {
    public static final byte[] PREFIX = "CompositeAlgorithmSignatures2025".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] LABEL = "COMPSIG-MLDSA44-Ed25519-SHA512".getBytes(StandardCharsets.US_ASCII);
    static final int MLDSA_PK = 1312;
    static final int MLDSA_SIG = 2420;
    static final int SECRET_BYTES = MlDsaScheme.SEED_BYTES + Ed25519Scheme.SEED_BYTES;

    CompositeMlDsa44Ed25519Scheme(SignatureKeyType type) {
        super(type);
    }

    /** The message representative both halves sign (SSH uses an empty composite context). */
    public static byte[] representative(byte[] message) {
        byte[] h;
        try {
            h = MessageDigest.getInstance("SHA-512").digest(message);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] m = new byte[PREFIX.length + LABEL.length + 1 + h.length];
        System.arraycopy(PREFIX, 0, m, 0, PREFIX.length);
        System.arraycopy(LABEL, 0, m, PREFIX.length, LABEL.length);
        m[PREFIX.length + LABEL.length] = 0;
        System.arraycopy(h, 0, m, PREFIX.length + LABEL.length + 1, h.length);
        return m;
    }

    @Override
    protected KeyMaterial generate(SecureRandom random) {
        byte[] secret = new byte[SECRET_BYTES];
        random.nextBytes(secret);
        return new KeyMaterial(derivePublicKey(secret), secret);
    }

    @Override
    protected byte[] derivePublicKey(byte[] secret) {
        if (secret.length != SECRET_BYTES) {
            throw new IllegalArgumentException("composite secret must be 64 bytes, got " + secret.length);
        }
        byte[] ml = Arrays.copyOfRange(secret, 0, 32);
        byte[] ed = Arrays.copyOfRange(secret, 32, 64);
        try {
            byte[] pk = new byte[MLDSA_PK + Ed25519Scheme.PUBLIC_BYTES];
            System.arraycopy(MlDsaScheme.publicFromSecret(MLDSAParameters.ml_dsa_44, ml), 0, pk, 0, MLDSA_PK);
            System.arraycopy(Ed25519Scheme.publicFromSeed(ed), 0, pk, MLDSA_PK, Ed25519Scheme.PUBLIC_BYTES);
            return pk;
        } finally {
            Arrays.fill(ml, (byte) 0);
            Arrays.fill(ed, (byte) 0);
        }
    }

    @Override
    protected byte[] signRaw(byte[] secret, byte[] publicKey, byte[] data, SecureRandom random) {
        byte[] m = representative(data);
        byte[] ml = Arrays.copyOfRange(secret, 0, 32);
        byte[] ed = Arrays.copyOfRange(secret, 32, 64);
        try {
            byte[] s1 = MlDsaScheme.sign(MLDSAParameters.ml_dsa_44, ml, LABEL, m, random);
            byte[] s2 = Ed25519Scheme.signWithSeed(ed, m);
            byte[] sig = new byte[s1.length + s2.length];
            System.arraycopy(s1, 0, sig, 0, s1.length);
            System.arraycopy(s2, 0, sig, s1.length, s2.length);
            return sig;
        } finally {
            Arrays.fill(ml, (byte) 0);
            Arrays.fill(ed, (byte) 0);
        }
    }

    @Override
    protected boolean verifyRaw(byte[] publicKey, byte[] data, byte[] signature) {
        byte[] m = representative(data);
        byte[] mlPk = Arrays.copyOfRange(publicKey, 0, MLDSA_PK);
        byte[] edPk = Arrays.copyOfRange(publicKey, MLDSA_PK, publicKey.length);
        byte[] mlSig = Arrays.copyOfRange(signature, 0, MLDSA_SIG);
        byte[] edSig = Arrays.copyOfRange(signature, MLDSA_SIG, signature.length);
        // both halves are always checked; no early exit on the first failure
        boolean a = MlDsaScheme.verify(MLDSAParameters.ml_dsa_44, mlPk, LABEL, m, mlSig);
        boolean b = Ed25519Scheme.verifyWith(edPk, m, edSig);
        return a & b;
    }

    @Override
    protected String secretFieldProblem(byte[] secret) {
        return secret.length == SECRET_BYTES ? null
                : "secret must be 64 bytes (ML-DSA-44 seed || Ed25519 seed), got " + secret.length;
    }
}
