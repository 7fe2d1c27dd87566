package io.pqssh.core.sig;

import java.security.SecureRandom;
import java.util.Arrays;

import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.wire.SshWriter;

/**
 * A signature private key of any {@link SignatureKeyType}, usable as an SSH host or user key: {@link #sign} gives a
 * complete SSH signature blob. Holds the secret (seed where the type has one) and wipes it on {@link #destroy()}.
 */
public final class SshSigningKey implements SshPrivateKey {
    private static final SecureRandom DEFAULT_RANDOM = new SecureRandom();

    private final SignatureKeyType type;
    private final String name;
    private final byte[] publicKey;
    private final byte[] secret;
    private volatile boolean destroyed;

    SshSigningKey(SignatureKeyType type, String name, byte[] publicKey, byte[] secret) {
        this.type = type;
        this.name = name;
        this.publicKey = publicKey.clone();
        this.secret = secret; // owned
    }

    /** A fresh key of the given type. */
    public static SshSigningKey generate(SignatureKeyType type, SecureRandom random) {
        return type.scheme().generateKey(random);
    }

    public SignatureKeyType type() {
        return type;
    }

    @Override
    public String keyType() {
        return name;
    }

    @Override
    public byte[] publicKeyBlob() {
        return type.scheme().encodePublicKey(name, publicKey);
    }

    public SshPublicKey publicKey() {
        return new SshPublicKey(type, name, publicKey);
    }

    /** Signs {@code data}, returning the SSH signature blob {@code string name, string sig}. Hedged where the type allows. */
    public byte[] sign(byte[] data) {
        return sign(data, DEFAULT_RANDOM);
    }

    public byte[] sign(byte[] data, SecureRandom random) {
        checkLive();
        synchronized (secret) {
            checkLive();
            return type.scheme().sign(name, secret, publicKey, data, random);
        }
    }

    @Override
    public void writePrivateFields(SshWriter out) {
        checkLive();
        synchronized (secret) {
            checkLive();
            type.scheme().writePrivateFields(out, publicKey, secret);
        }
    }

    /**
     * This ML-DSA-44 + Ed25519 composite key under the composite's other name ({@code ssh-mldsa44-ed25519@openssh.com}
     * of OpenSSH 10.4/10.5, {@code ssh-mldsa44-ed25519} of 10.6): the same seeds, so the same raw public key, a new
     * public key blob and fingerprint. Possible because both names use one construction and both private keys hold
     * the two 32-byte seeds; OpenSSH itself offers no conversion. Any other pair of types is refused.
     */
    public SshSigningKey withCompositeName(SignatureKeyType target) {
        if (!type.mlDsa44Ed25519Composite() || !target.mlDsa44Ed25519Composite()) {
            throw new IllegalArgumentException("only the ML-DSA-44 + Ed25519 composite changes names, not " + name
                    + " to " + target.sshName());
        }
        byte[] s = exportSecret();
        String problem = target.scheme().secretFieldProblem(s);
        if (problem != null) {
            java.util.Arrays.fill(s, (byte) 0);
            throw new IllegalArgumentException(name + " key cannot become " + target.sshName() + ": " + problem);
        }
        return new SshSigningKey(target, target.sshName(), publicKey, s);
    }

    /** The secret as this library keeps it (a copy the caller must wipe); see {@link SignatureKeyType}. */
    public byte[] exportSecret() {
        checkLive();
        synchronized (secret) {
            checkLive();
            return secret.clone();
        }
    }

    @Override
    public void destroy() {
        synchronized (secret) {
            Arrays.fill(secret, (byte) 0);
            destroyed = true;
        }
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }

    private void checkLive() {
        if (destroyed) {
            throw new IllegalStateException(name + " private key has been destroyed");
        }
    }

    @Override
    public String toString() {
        return "SshSigningKey[" + name + (destroyed ? ", destroyed]" : "]");
    }
}
