package io.pqssh.inventory.audit;

import java.io.IOException;
import java.io.StringReader;
import java.math.BigInteger;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;

/**
 * Family and size of a PEM private key without decrypting anything: unencrypted PKCS#1 RSA, SEC1 EC, DSA and PKCS#8
 * keys give their size or curve from the key itself; encrypted PKCS#1/SEC1/DSA keys only their family (from the PEM
 * label); encrypted PKCS#8 nothing (null).
 */
final class PemKeys {
    private PemKeys() {
    }

    static KeyInfo info(String pem) {
        try {
            return parse(pem);
        } catch (RuntimeException e) {
            // hostile or broken PEM: not classified, never a crash
            return null;
        }
    }

    private static KeyInfo parse(String pem) {
        String label = pem.stripLeading();
        Object o;
        try (PEMParser p = new PEMParser(new StringReader(pem))) {
            o = p.readObject();
        } catch (IOException | RuntimeException e) {
            o = null;
        }
        if (o instanceof PEMKeyPair kp) {
            // a SEC1 key may leave out its public key: the private key info has the curve too
            return kp.getPublicKeyInfo() != null ? ofPublic(kp.getPublicKeyInfo())
                    : kp.getPrivateKeyInfo() != null ? ofPrivate(kp.getPrivateKeyInfo()) : null;
        }
        if (o instanceof PrivateKeyInfo pk) {
            return ofPrivate(pk);
        }
        // encrypted (Proc-Type: 4,ENCRYPTED) or unparsable: the label still names the family
        if (o instanceof PEMEncryptedKeyPair || o == null) {
            if (label.startsWith("-----BEGIN RSA")) {
                return new KeyInfo("ssh-rsa", KeyInfo.Family.RSA, 0, null, false, null);
            }
            if (label.startsWith("-----BEGIN DSA")) {
                return new KeyInfo("ssh-dss", KeyInfo.Family.DSA, 0, null, false, null);
            }
            if (label.startsWith("-----BEGIN EC")) {
                return new KeyInfo("ecdsa-sha2", KeyInfo.Family.ECDSA, 0, null, false, null);
            }
        }
        return null;
    }

    private static KeyInfo ofPublic(SubjectPublicKeyInfo spki) {
        ASN1ObjectIdentifier alg = spki.getAlgorithm().getAlgorithm();
        try {
            if (alg.equals(PKCSObjectIdentifiers.rsaEncryption)) {
                org.bouncycastle.asn1.pkcs.RSAPublicKey k = org.bouncycastle.asn1.pkcs.RSAPublicKey.getInstance(
                        spki.parsePublicKey());
                return new KeyInfo("ssh-rsa", KeyInfo.Family.RSA, k.getModulus().bitLength(), null, false, null);
            }
            if (alg.equals(X9ObjectIdentifiers.id_dsa)) {
                org.bouncycastle.asn1.x509.DSAParameter p = org.bouncycastle.asn1.x509.DSAParameter.getInstance(
                        spki.getAlgorithm().getParameters());
                return new KeyInfo("ssh-dss", KeyInfo.Family.DSA, p.getP().bitLength(), null, false, null);
            }
            if (alg.equals(X9ObjectIdentifiers.id_ecPublicKey)) {
                return ec(spki.getAlgorithm().getParameters());
            }
            if (alg.equals(EdECObjectIdentifiers.id_Ed25519)) {
                return new KeyInfo("ssh-ed25519", KeyInfo.Family.ED25519, 256, "ed25519", false, null);
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return new KeyInfo(alg.getId(), KeyInfo.Family.UNKNOWN, 0, null, false, null);
    }

    private static KeyInfo ofPrivate(PrivateKeyInfo pk) {
        ASN1ObjectIdentifier alg = pk.getPrivateKeyAlgorithm().getAlgorithm();
        try {
            if (alg.equals(PKCSObjectIdentifiers.rsaEncryption)) {
                BigInteger n = org.bouncycastle.asn1.pkcs.RSAPrivateKey.getInstance(pk.parsePrivateKey()).getModulus();
                return new KeyInfo("ssh-rsa", KeyInfo.Family.RSA, n.bitLength(), null, false, null);
            }
            if (alg.equals(X9ObjectIdentifiers.id_dsa)) {
                org.bouncycastle.asn1.x509.DSAParameter p = org.bouncycastle.asn1.x509.DSAParameter.getInstance(
                        pk.getPrivateKeyAlgorithm().getParameters());
                return new KeyInfo("ssh-dss", KeyInfo.Family.DSA, p.getP().bitLength(), null, false, null);
            }
            if (alg.equals(X9ObjectIdentifiers.id_ecPublicKey)) {
                return ec(pk.getPrivateKeyAlgorithm().getParameters());
            }
            if (alg.equals(EdECObjectIdentifiers.id_Ed25519)) {
                return new KeyInfo("ssh-ed25519", KeyInfo.Family.ED25519, 256, "ed25519", false, null);
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return new KeyInfo(alg.getId(), KeyInfo.Family.UNKNOWN, 0, null, false, null);
    }

    private static KeyInfo ec(org.bouncycastle.asn1.ASN1Encodable params) {
        String curve = null;
        int bits = 0;
        org.bouncycastle.asn1.x9.X962Parameters x962 = params == null ? null
                : org.bouncycastle.asn1.x9.X962Parameters.getInstance(params);
        if (x962 != null && x962.isNamedCurve()
                && x962.getParameters() instanceof ASN1ObjectIdentifier oid) {
            if (oid.equals(SECObjectIdentifiers.secp256r1)) {
                curve = "nistp256";
                bits = 256;
            } else if (oid.equals(SECObjectIdentifiers.secp384r1)) {
                curve = "nistp384";
                bits = 384;
            } else if (oid.equals(SECObjectIdentifiers.secp521r1)) {
                curve = "nistp521";
                bits = 521;
            } else {
                curve = oid.getId();
            }
        }
        return new KeyInfo(curve != null && curve.startsWith("nistp") ? "ecdsa-sha2-" + curve : "ecdsa-sha2",
                KeyInfo.Family.ECDSA, bits, curve, false, null);
    }
}
