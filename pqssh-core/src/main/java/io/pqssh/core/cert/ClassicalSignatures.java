package io.pqssh.core.cert;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPrivateKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.Arrays;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * RSA (RFC 8332) and ECDSA (RFC 5656) SSH signatures with the JDK's providers, for CA keys of those types: pqssh
 * keeps such keys as opaque OpenSSH fields, and certificates are the one place core must sign or verify with them.
 */
public final class ClassicalSignatures {
    private ClassicalSignatures() {
    }

    public static boolean handles(String keyType) {
        return keyType.equals("ssh-rsa") || keyType.startsWith("ecdsa-sha2-nistp");
    }

    /**
     * Verifies a signature blob with an RSA or ECDSA public key blob. {@code ssh-rsa} (SHA-1) signatures are refused
     * as OpenSSH 8.8+ refuses them by default for certificates' CAs.
     */
    public static boolean verify(byte[] keyBlob, byte[] data, byte[] signatureBlob) throws MalformedMessageException {
        SshReader k = new SshReader(keyBlob);
        String keyType = k.getUtf8();
        SshReader s = new SshReader(signatureBlob);
        String alg = s.getUtf8();
        byte[] sig = s.getString();
        s.expectEnd("signature blob");
        try {
            if (keyType.equals("ssh-rsa")) {
                BigInteger e = new BigInteger(1, k.getString());
                BigInteger n = new BigInteger(1, k.getString());
                k.expectEnd("ssh-rsa public key");
                String jdk = rsaAlgorithm(alg);
                PublicKey pub = KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(n, e));
                Signature v = Signature.getInstance(jdk);
                v.initVerify(pub);
                v.update(data);
                return v.verify(sig);
            }
            if (keyType.startsWith("ecdsa-sha2-nistp")) {
                if (!alg.equals(keyType)) {
                    throw new MalformedMessageException("signature " + alg + " made with a " + keyType + " key");
                }
                String curve = k.getUtf8();
                byte[] q = k.getString();
                k.expectEnd(keyType + " public key");
                int bits = curveBits(keyType, curve);
                ECParameterSpec params = params(bits);
                int n = (bits + 7) / 8;
                if (q.length != 1 + 2 * n || q[0] != 4) {
                    throw new MalformedMessageException(keyType + " point is not an uncompressed " + bits + "-bit point");
                }
                ECPoint w = new ECPoint(new BigInteger(1, Arrays.copyOfRange(q, 1, 1 + n)),
                        new BigInteger(1, Arrays.copyOfRange(q, 1 + n, q.length)));
                PublicKey pub = KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(w, params));
                SshReader rs = new SshReader(sig);
                BigInteger r = new BigInteger(rs.getString());
                BigInteger ss = new BigInteger(rs.getString());
                rs.expectEnd("ecdsa signature");
                if (r.signum() <= 0 || ss.signum() <= 0 || r.bitLength() > bits || ss.bitLength() > bits) {
                    return false;
                }
                byte[] p1363 = new byte[2 * n];
                fixed(r, p1363, 0, n);
                fixed(ss, p1363, n, n);
                Signature v = Signature.getInstance(ecdsaHash(bits) + "withECDSAinP1363Format");
                v.initVerify(pub);
                v.update(data);
                return v.verify(p1363);
            }
        } catch (GeneralSecurityException e) {
            return false;
        }
        throw new MalformedMessageException("not an RSA or ECDSA key: " + SshCertificate.printable(keyType));
    }

    /**
     * Signs with an RSA or ECDSA private key given as its OpenSSH private fields (PROTOCOL.key: rsa {@code n e d
     * iqmp p q}, ecdsa {@code curve Q d}); RSA signs {@code rsa-sha2-512} as ssh-keygen does by default.
     */
    public static CaSigner signer(String keyType, byte[] publicKeyBlob, byte[] privateFields)
            throws MalformedMessageException {
        SshReader r = new SshReader(privateFields);
        try {
            if (keyType.equals("ssh-rsa")) {
                BigInteger n = new BigInteger(1, r.getString());
                r.getString();
                BigInteger d = new BigInteger(1, r.getString());
                PrivateKey pk = KeyFactory.getInstance("RSA").generatePrivate(new RSAPrivateKeySpec(n, d));
                return signer(publicKeyBlob, pk, "SHA512withRSA", "rsa-sha2-512", 0);
            }
            if (keyType.startsWith("ecdsa-sha2-nistp")) {
                int bits = curveBits(keyType, r.getUtf8());
                r.getString();
                BigInteger d = new BigInteger(1, r.getString());
                PrivateKey pk = KeyFactory.getInstance("EC").generatePrivate(new ECPrivateKeySpec(d, params(bits)));
                return signer(publicKeyBlob, pk, ecdsaHash(bits) + "withECDSAinP1363Format", keyType, (bits + 7) / 8);
            }
        } catch (GeneralSecurityException e) {
            throw new MalformedMessageException(keyType + " private key is invalid: " + e.getMessage());
        }
        throw new MalformedMessageException("not an RSA or ECDSA key: " + SshCertificate.printable(keyType));
    }

    private static CaSigner signer(byte[] publicKeyBlob, PrivateKey key, String jdk, String sshName, int ecBytes) {
        byte[] pub = publicKeyBlob.clone();
        return new CaSigner() {
            @Override
            public byte[] publicKeyBlob() {
                return pub.clone();
            }

            @Override
            public byte[] sign(byte[] data) {
                try {
                    Signature s = Signature.getInstance(jdk);
                    s.initSign(key);
                    s.update(data);
                    byte[] raw = s.sign();
                    if (ecBytes > 0) {
                        raw = new SshWriter().putString(new BigInteger(1, Arrays.copyOfRange(raw, 0, ecBytes))
                                .toByteArray()).putString(new BigInteger(1, Arrays.copyOfRange(raw, ecBytes,
                                        raw.length)).toByteArray()).toByteArray();
                    }
                    return new SshWriter().putString(sshName).putString(raw).toByteArray();
                } catch (GeneralSecurityException e) {
                    throw new IllegalStateException(sshName + " signing failed: " + e, e);
                }
            }
        };
    }

    private static String rsaAlgorithm(String alg) throws MalformedMessageException {
        switch (alg) {
            case "rsa-sha2-256":
                return "SHA256withRSA";
            case "rsa-sha2-512":
                return "SHA512withRSA";
            case "ssh-rsa":
                throw new MalformedMessageException("ssh-rsa (SHA-1) CA signatures are refused, as OpenSSH 8.8+ does");
            default:
                throw new MalformedMessageException("signature " + SshCertificate.printable(alg)
                        + " made with an ssh-rsa key");
        }
    }

    private static int curveBits(String keyType, String curve) throws MalformedMessageException {
        if (!keyType.equals("ecdsa-sha2-" + curve)) {
            throw new MalformedMessageException(keyType + " key names curve " + SshCertificate.printable(curve));
        }
        switch (curve) {
            case "nistp256":
                return 256;
            case "nistp384":
                return 384;
            case "nistp521":
                return 521;
            default:
                throw new MalformedMessageException("unknown ECDSA curve " + SshCertificate.printable(curve));
        }
    }

    private static String ecdsaHash(int bits) {
        return bits == 256 ? "SHA256" : bits == 384 ? "SHA384" : "SHA512";
    }

    private static ECParameterSpec params(int bits) throws GeneralSecurityException {
        AlgorithmParameters p = AlgorithmParameters.getInstance("EC");
        p.init(new ECGenParameterSpec("secp" + bits + "r1"));
        return p.getParameterSpec(ECParameterSpec.class);
    }

    private static void fixed(BigInteger v, byte[] out, int off, int len) {
        byte[] b = v.toByteArray();
        int skip = b.length > len ? b.length - len : 0;
        System.arraycopy(b, skip, out, off + len - (b.length - skip), b.length - skip);
    }
}
