package io.pqssh.core.sig;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * One signature key type's implementation: key generation, raw sign/verify, and the SSH encodings of public keys,
 * signatures and {@code openssh-key-v1} private fields. The blob codecs are shared (every type here uses
 * {@code string name, string raw}); subclasses supply the cryptography and the private-field layout.
 *
 * <p>A "secret" is the type's private key material as this library keeps it (a seed where the type has one).
 */
public abstract class SignatureScheme {
    private final SignatureKeyType type;

    protected SignatureScheme(SignatureKeyType type) {
        this.type = type;
    }

    public final SignatureKeyType type() {
        return type;
    }

    /** Raw public key and secret of a fresh or decoded key. */
    protected record KeyMaterial(byte[] publicKey, byte[] secret) {
        public KeyMaterial {
        }
    }

    // ---- to implement per type ----

    protected abstract KeyMaterial generate(SecureRandom random);

    /** The raw public key belonging to a secret, or {@code null} when it cannot be derived cheaply. */
    protected abstract byte[] derivePublicKey(byte[] secret);

    protected abstract byte[] signRaw(byte[] secret, byte[] publicKey, byte[] data, SecureRandom random);

    /** Called with a public key and a signature whose lengths/headers passed the checks. */
    protected abstract boolean verifyRaw(byte[] publicKey, byte[] data, byte[] signature);

    /**
     * What is wrong with a decoded secret field (its length, a header), or {@code null} if it is acceptable; the
     * caller wipes a refused field.
     */
    protected abstract String secretFieldProblem(byte[] secret);

    /**
     * Writes the private fields that follow {@code string keyType} in an {@code openssh-key-v1} private section:
     * {@code string pk, string secret}, the layout of every type but Ed25519 (which overrides this).
     */
    protected void writePrivateFields(SshWriter out, byte[] publicKey, byte[] secret) {
        out.putString(publicKey).putString(secret);
    }

    /**
     * Reads the fields {@link #writePrivateFields} writes, refusing a secret {@link #secretFieldProblem} objects to;
     * {@link #readPrivateKey} then checks the pair is consistent.
     */
    protected KeyMaterial readPrivateFields(SshReader in) throws MalformedMessageException {
        byte[] pk = in.getString();
        byte[] sk = in.getString();
        String problem = secretFieldProblem(sk);
        if (problem != null) {
            java.util.Arrays.fill(sk, (byte) 0);
            throw new MalformedMessageException(type.sshName() + " private section: " + problem);
        }
        return new KeyMaterial(pk, sk);
    }

    /** Checks a raw public key's length (and any header); override to add type-specific checks. */
    protected void checkPublicKey(byte[] raw) throws MalformedMessageException {
        if (raw.length != type.publicKeySize()) {
            throw new MalformedMessageException(type.sshName() + " public key must be " + type.publicKeySize()
                    + " bytes, got " + raw.length);
        }
    }

    /** Checks a raw signature's length (and any header); override to add type-specific checks. */
    protected void checkSignature(byte[] raw) throws MalformedMessageException {
        if (type.fixedSignatureSize() ? raw.length != type.signatureSize() : raw.length > type.signatureSize()) {
            throw new MalformedMessageException(type.sshName() + " signature must be "
                    + (type.fixedSignatureSize() ? "" : "at most ") + type.signatureSize() + " bytes, got "
                    + raw.length);
        }
    }

    // ---- shared ----

    public SshSigningKey generateKey(SecureRandom random) {
        KeyMaterial km = generate(random);
        return new SshSigningKey(type, type.sshName(), km.publicKey(), km.secret());
    }

    /** Builds a key from its secret (e.g. a stored seed), deriving the public key. */
    public SshSigningKey fromSecret(byte[] secret) throws MalformedMessageException {
        byte[] pk = derivePublicKeyChecked(secret);
        if (pk == null) {
            throw new MalformedMessageException(type.sshName() + ": the public key cannot be derived from the secret");
        }
        return new SshSigningKey(type, type.sshName(), pk, secret.clone());
    }

    private byte[] derivePublicKeyChecked(byte[] secret) throws MalformedMessageException {
        try {
            return derivePublicKey(secret);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new MalformedMessageException(type.sshName() + " private key is invalid: " + e.getMessage());
        }
    }

    /** Reads the private fields for key type name {@code name} (canonical or alias) and checks pk/sk agree. */
    public SshSigningKey readPrivateKey(String name, SshReader in) throws MalformedMessageException {
        requireOwnName(name, "private key");
        KeyMaterial km = readPrivateFields(in);
        checkPublicKey(km.publicKey());
        byte[] derived = derivePublicKeyChecked(km.secret());
        if (derived != null) {
            if (!MessageDigest.isEqual(derived, km.publicKey())) {
                throw new MalformedMessageException(type.sshName()
                        + " private key does not match its public key");
            }
        } else {
            byte[] probe = "pqssh key consistency check".getBytes(StandardCharsets.US_ASCII);
            byte[] sig;
            try {
                sig = signRaw(km.secret(), km.publicKey(), probe, new SecureRandom());
            } catch (RuntimeException e) {
                throw new MalformedMessageException(type.sshName() + " private key is invalid: " + e.getMessage());
            }
            if (!verifyRaw(km.publicKey(), probe, sig)) {
                throw new MalformedMessageException(type.sshName()
                        + " private key does not match its public key");
            }
        }
        return new SshSigningKey(type, name, km.publicKey(), km.secret());
    }

    public byte[] encodePublicKey(String name, byte[] raw) {
        return new SshWriter(raw.length + name.length() + 8).putString(name).putString(raw).toByteArray();
    }

    /** Decodes {@code string name, string raw pk}; the name must be one of this type's names. */
    public SshPublicKey decodePublicKey(byte[] blob) throws MalformedMessageException {
        SshReader r = new SshReader(blob);
        String name = r.getUtf8();
        requireOwnName(name, "public key");
        byte[] raw = readField(r, "public key");
        r.expectEnd(type.sshName() + " public key blob");
        checkPublicKey(raw);
        return new SshPublicKey(type, name, raw);
    }

    public byte[] encodeSignature(String name, byte[] raw) {
        return new SshWriter(raw.length + name.length() + 8).putString(name).putString(raw).toByteArray();
    }

    /** Decodes {@code string name, string raw sig} and checks the raw signature's length. */
    public byte[] decodeSignature(byte[] blob) throws MalformedMessageException {
        SshReader r = new SshReader(blob);
        String name = r.getUtf8();
        requireOwnName(name, "signature");
        byte[] raw = readField(r, "signature");
        r.expectEnd(type.sshName() + " signature blob");
        checkSignature(raw);
        return raw;
    }

    /**
     * Verifies a signature blob over {@code data} with a raw public key. Malformed blobs (wrong name, lengths,
     * trailing bytes) are exceptions; a well-formed signature that does not verify is {@code false}.
     */
    public boolean verify(byte[] rawPublicKey, byte[] data, byte[] signatureBlob) throws MalformedMessageException {
        checkPublicKey(rawPublicKey);
        byte[] raw = decodeSignature(signatureBlob);
        try {
            return verifyRaw(rawPublicKey, data, raw);
        } catch (RuntimeException e) {
            return false; // a signature the library cannot parse is not a valid one
        }
    }

    /** A signature blob over {@code data} with the given name. */
    byte[] sign(String name, byte[] secret, byte[] publicKey, byte[] data, SecureRandom random) {
        return encodeSignature(name, signRaw(secret, publicKey, data, random));
    }

    private void requireOwnName(String name, String what) throws MalformedMessageException {
        if (!type.names().contains(name)) {
            SignatureKeyType other = SignatureKeyType.byName().get(name);
            throw new MalformedMessageException(other == null
                    ? "unknown " + what + " type \"" + SignatureKeyType.printable(name) + "\""
                    : what + " type " + name + " where " + type.sshName() + " was expected");
        }
    }

    private byte[] readField(SshReader r, String what) throws MalformedMessageException {
        if (r.remaining() == 0) {
            throw new MalformedMessageException("truncated " + type.sshName() + " " + what + " blob: no key data");
        }
        try {
            return r.getString();
        } catch (MalformedMessageException e) {
            throw new MalformedMessageException("truncated " + type.sshName() + " " + what + " blob: "
                    + e.getMessage());
        }
    }
}
