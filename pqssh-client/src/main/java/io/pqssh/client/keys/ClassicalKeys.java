package io.pqssh.client.keys;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.RSAKeyGenParameterSpec;
import java.util.Arrays;
import java.util.Optional;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * RSA and ECDSA keys in OpenSSH's private-section layout (PROTOCOL.key): generated with the JDK's providers and
 * carried as {@link OpaqueSshKey}, so that pqssh's own openssh-key-v1 writer (bcrypt-pbkdf + aes256-ctr) encrypts
 * them exactly as it does its own key types.
 */
final class ClassicalKeys {
    static final int RSA_DEFAULT_BITS = 3072; // ssh-keygen's DEFAULT_BITS
    static final int RSA_MIN_BITS = 1024;     // SSH_RSA_MINIMUM_MODULUS_SIZE
    static final int RSA_MAX_BITS = 16384;    // OPENSSL_RSA_MAX_MODULUS_BITS

    private ClassicalKeys() {
    }

    static boolean isClassical(String keyType) {
        return keyType.equals("ssh-rsa") || keyType.startsWith("ecdsa-sha2-nistp");
    }

    static OpaqueSshKey generateRsa(int bits, SecureRandom random) {
        if (bits < RSA_MIN_BITS || bits > RSA_MAX_BITS) {
            throw new IllegalArgumentException("Invalid RSA key length " + bits + ": valid lengths are "
                    + RSA_MIN_BITS + ".." + RSA_MAX_BITS + " bits");
        }
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(new RSAKeyGenParameterSpec(bits, RSAKeyGenParameterSpec.F4), random);
            KeyPair kp = g.generateKeyPair();
            RSAPublicKey pub = (RSAPublicKey) kp.getPublic();
            RSAPrivateCrtKey priv = (RSAPrivateCrtKey) kp.getPrivate();
            byte[] blob = new SshWriter().putString("ssh-rsa").putString(pub.getPublicExponent().toByteArray())
                    .putString(pub.getModulus().toByteArray()).toByteArray();
            byte[] fields = new SshWriter().putString(priv.getModulus().toByteArray())
                    .putString(priv.getPublicExponent().toByteArray())
                    .putString(priv.getPrivateExponent().toByteArray())
                    .putString(priv.getCrtCoefficient().toByteArray())
                    .putString(priv.getPrimeP().toByteArray())
                    .putString(priv.getPrimeQ().toByteArray()).toByteArray();
            try {
                return new OpaqueSshKey("ssh-rsa", blob, fields);
            } finally {
                Arrays.fill(fields, (byte) 0);
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("RSA key generation failed: " + e, e);
        }
    }

    static OpaqueSshKey generateEcdsa(int bits, SecureRandom random) {
        String curve = switch (bits) {
            case 256 -> "nistp256";
            case 384 -> "nistp384";
            case 521 -> "nistp521";
            default -> throw new IllegalArgumentException("Invalid ECDSA key length " + bits
                    + ": valid lengths are 256, 384 or 521 bits");
        };
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp" + bits + "r1"), random);
            KeyPair kp = g.generateKeyPair();
            ECPoint w = ((ECPublicKey) kp.getPublic()).getW();
            int n = (bits + 7) / 8;
            byte[] q = new byte[1 + 2 * n];
            q[0] = 4;
            fixed(w.getAffineX(), q, 1, n);
            fixed(w.getAffineY(), q, 1 + n, n);
            String type = "ecdsa-sha2-" + curve;
            byte[] blob = new SshWriter().putString(type).putString(curve).putString(q).toByteArray();
            byte[] fields = new SshWriter().putString(curve).putString(q)
                    .putString(((ECPrivateKey) kp.getPrivate()).getS().toByteArray()).toByteArray();
            try {
                return new OpaqueSshKey(type, blob, fields);
            } finally {
                Arrays.fill(fields, (byte) 0);
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("ECDSA key generation failed: " + e, e);
        }
    }

    private static void fixed(BigInteger v, byte[] out, int off, int len) {
        byte[] b = v.toByteArray();
        int skip = b.length > len ? b.length - len : 0;
        System.arraycopy(b, skip, out, off + len - (b.length - skip), b.length - skip);
    }

    /** Number of length-prefixed private fields after {@code string keytype}, per PROTOCOL.key / sshkey.c. */
    static int privateFieldCount(String keyType) {
        return keyType.equals("ssh-rsa") ? 6 : 3; // rsa: n e d iqmp p q; ecdsa: curve Q d
    }

    /** Reads the raw private fields of a classical key from a decrypted private section. */
    static byte[] readFields(String keyType, SshReader r) throws KeyFileException {
        SshWriter copy = new SshWriter(4096);
        try {
            for (int i = 0; i < privateFieldCount(keyType); i++) {
                byte[] f = r.getString();
                copy.putString(f);
                Arrays.fill(f, (byte) 0);
            }
        } catch (MalformedMessageException e) {
            throw new KeyFileException("malformed " + keyType + " private key: " + e.getMessage());
        }
        return copy.toByteArray();
    }

    /** RSA modulus, DSA p and ECDSA curve bits; 256 for the FIDO keys an OpenSSH agent may hold. */
    static Optional<Integer> bits(byte[] blob) {
        try {
            SshReader r = new SshReader(blob);
            String type = r.getUtf8();
            if (type.equals("ssh-rsa")) {
                r.getString();
                return Optional.of(new BigInteger(1, r.getString()).bitLength());
            }
            if (type.startsWith("ecdsa-sha2-nistp")) {
                return Optional.of(Integer.parseInt(type.substring("ecdsa-sha2-nistp".length())));
            }
            if (type.equals("ssh-dss")) {
                return Optional.of(new BigInteger(1, r.getString()).bitLength()); // p, as OpenSSH's sshkey_size
            }
            if (type.equals("sk-ssh-ed25519@openssh.com") || type.equals("sk-ecdsa-sha2-nistp256@openssh.com")) {
                return Optional.of(256);
            }
            return Optional.empty();
        } catch (MalformedMessageException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
