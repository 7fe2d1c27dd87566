package io.pqssh.core.sig;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * {@code ssh-ed25519} (RFC 8709). Secret: the 32-byte seed. Private fields as OpenSSH writes them:
 * {@code string pk(32), string seed || pk (64)}.
 */
final class Ed25519Scheme extends SignatureScheme {
    public static final int SEED_BYTES = 32;
    public static final int PUBLIC_BYTES = 32;
    public static final int SIGNATURE_BYTES = 64;

    Ed25519Scheme(SignatureKeyType type) {
        super(type);
    }

    @Override
    protected KeyMaterial generate(SecureRandom random) {
        byte[] seed = new byte[SEED_BYTES];
        random.nextBytes(seed);
        return new KeyMaterial(publicFromSeed(seed), seed);
    }

    @Override
    protected byte[] derivePublicKey(byte[] secret) {
        return publicFromSeed(secret);
    }

    @Override
    protected byte[] signRaw(byte[] secret, byte[] publicKey, byte[] data, SecureRandom random) {
        return signWithSeed(secret, data);
    }

    @Override
    protected boolean verifyRaw(byte[] publicKey, byte[] data, byte[] signature) {
        return verifyWith(publicKey, data, signature);
    }

    @Override
    protected void writePrivateFields(SshWriter out, byte[] publicKey, byte[] secret) {
        byte[] sk = new byte[SEED_BYTES + PUBLIC_BYTES];
        System.arraycopy(secret, 0, sk, 0, SEED_BYTES);
        System.arraycopy(publicKey, 0, sk, SEED_BYTES, PUBLIC_BYTES);
        out.putString(publicKey).putString(sk);
        Arrays.fill(sk, (byte) 0);
    }

    @Override
    protected KeyMaterial readPrivateFields(SshReader in) throws MalformedMessageException {
        byte[] pk = in.getString();
        if (pk.length != PUBLIC_BYTES) {
            throw new MalformedMessageException("ssh-ed25519 private section: public key must be 32 bytes, got "
                    + pk.length);
        }
        byte[] sk = in.getString();
        try {
            String problem = secretFieldProblem(sk);
            if (problem != null) {
                throw new MalformedMessageException("ssh-ed25519 private section: " + problem);
            }
            if (!MessageDigest.isEqual(Arrays.copyOfRange(sk, SEED_BYTES, sk.length), pk)) {
                throw new MalformedMessageException("ssh-ed25519 private section: the two copies of the public key"
                        + " differ");
            }
            return new KeyMaterial(pk, Arrays.copyOf(sk, SEED_BYTES));
        } finally {
            Arrays.fill(sk, (byte) 0);
        }
    }

    // ---- primitives, shared with the composite ----

    public static byte[] publicFromSeed(byte[] seed) {
        if (seed.length != SEED_BYTES) {
            throw new IllegalArgumentException("Ed25519 seed must be 32 bytes, got " + seed.length);
        }
        return new Ed25519PrivateKeyParameters(seed, 0).generatePublicKey().getEncoded();
    }

    public static byte[] signWithSeed(byte[] seed, byte[] data) {
        Ed25519Signer s = new Ed25519Signer();
        s.init(true, new Ed25519PrivateKeyParameters(seed, 0));
        s.update(data, 0, data.length);
        return s.generateSignature();
    }

    public static boolean verifyWith(byte[] publicKey, byte[] data, byte[] signature) {
        if (publicKey.length != PUBLIC_BYTES || signature.length != SIGNATURE_BYTES) {
            return false;
        }
        Ed25519Signer s = new Ed25519Signer();
        s.init(false, new Ed25519PublicKeyParameters(publicKey, 0));
        s.update(data, 0, data.length);
        return s.verifySignature(signature);
    }

    @Override
    protected String secretFieldProblem(byte[] secret) {
        return secret.length == SEED_BYTES + PUBLIC_BYTES ? null : "secret key must be 64 bytes, got " + secret.length;
    }
}
