package io.pqssh.mina.keys;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.List;

import org.apache.sshd.common.config.keys.AuthorizedKeyEntry;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.config.keys.PublicKeyEntryResolver;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.Test;

import io.pqssh.core.cert.CaSigner;
import io.pqssh.core.cert.CertificateKeyTypes;
import io.pqssh.core.cert.CertificateSigner;
import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/**
 * Certificates of post-quantum keys through MINA's certificate paths: the wire parser and the line decoder give a
 * {@link PqCertificate} with the right certified key type (both composite names), MINA writes the blob back byte for
 * byte, the certificate algorithm signs with a plain-named signature blob ({@code KeyUtils.getSignatureAlgorithm}, as
 * MINA's publickey client wraps it) that verifies with the certified key, and the CA signature verifies through
 * MINA's factories as {@code UserAuthPublicKey.verifyCertificateSignature} checks it.
 */
class PqCertificateMinaTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    private static SshCertificate certify(SshSigningKey key, SshSigningKey ca, CertificateType type)
            throws Exception {
        return CertificateSigner.forKey(key.publicKeyBlob()).type(type).keyId("id-" + key.keyType())
                .principals(List.of("alice", "ops")).criticalOption("force-command", "echo hi")
                .sign(CaSigner.of(ca), RANDOM);
    }

    @Test
    void everyPqCertificateTypeDecodesSignsAndVerifiesThroughMina() throws Exception {
        MinaPqKeys.ensureInstalled();
        SshSigningKey edCa = SshSigningKey.generate(SignatureKeyType.ED25519, RANDOM);
        SshSigningKey pqCa = SshSigningKey.generate(SignatureKeyType.MLDSA_65, RANDOM);
        for (SignatureKeyType t : PqPublicKey.TYPES) {
            SshSigningKey key = SshSigningKey.generate(t, RANDOM);
            SshSigningKey ca = t.ordinal() % 2 == 0 ? edCa : pqCa;
            SshCertificate cert = certify(key, ca, CertificateType.USER);
            String certType = CertificateKeyTypes.certName(t.sshName());
            assertEquals(certType, cert.certType());

            PublicKey wire = new ByteArrayBuffer(cert.blob()).getRawPublicKey();
            PqCertificate mina = assertInstanceOf(PqCertificate.class, wire, certType);
            assertEquals(certType, KeyUtils.getKeyType(mina));
            assertEquals(t.sshName(), mina.getRawKeyType(), "certified key type of " + certType);
            assertEquals(PqPublicKey.of(key.publicKey()), mina.getCertPubKey());
            assertEquals(OpenSshCertificate.Type.USER, mina.getType());
            assertEquals(List.of("alice", "ops"), List.copyOf(mina.getPrincipals()));
            assertEquals("echo hi", mina.getCriticalOptionsMap().get("force-command"));
            ByteArrayBuffer back = new ByteArrayBuffer();
            back.putRawPublicKey(mina);
            assertArrayEquals(cert.blob(), back.getCompactData(), "MINA writes " + certType + " back unchanged");

            PublicKey fromLine = AuthorizedKeyEntry.parseAuthorizedKeyEntry(cert.toLine("c"))
                    .resolvePublicKey(null, PublicKeyEntryResolver.FAILING);
            assertInstanceOf(PqCertificate.class, fromLine, certType + " line");

            // the CA's signature, as MINA's server checks it
            Signature caCheck = BuiltinSignatures.resolveFactory(mina.getSignatureAlgorithm()).create();
            caCheck.initVerifier(null, mina.getCaPubKey());
            caCheck.update(null, mina.getMessage());
            assertTrue(caCheck.verify(null, mina.getSignature()), certType + " CA signature");

            // publickey with the certificate: signed with the certificate algorithm, blob named as the plain key
            assertTrue(KeyUtils.isCertificateAlgorithm(certType));
            String sigName = KeyUtils.getSignatureAlgorithm(certType, mina);
            assertEquals(t.sshName(), sigName);
            byte[] data = ("pq certificate " + certType).getBytes(StandardCharsets.UTF_8);
            Signature signer = BuiltinSignatures.resolveFactory(certType).create();
            signer.initSigner(null, PqKeyPairs.keyPair(key).getPrivate());
            signer.update(null, data);
            ByteArrayBuffer sig = new ByteArrayBuffer();
            sig.putString(sigName);
            sig.putBytes(signer.sign(null));
            assertTrue(key.publicKey().verify(data, sig.getCompactData()), certType + " signature (pqssh-core)");
            Signature verifier = BuiltinSignatures.resolveFactory(certType).create();
            verifier.initVerifier(null, mina.getCertPubKey());
            verifier.update(null, data);
            assertTrue(verifier.verify(null, sig.getCompactData()), certType + " signature (MINA)");
            assertEquals(t.sshName(), verifier.getSshAlgorithmName(certType), "KEX signature name for " + certType);
        }
    }

    @Test
    void theTwoCompositeCertificatesKeepTheirOwnKeyNames() throws Exception {
        MinaPqKeys.ensureInstalled();
        SshSigningKey ca = SshSigningKey.generate(SignatureKeyType.ED25519, RANDOM);
        SshSigningKey ietf = SshSigningKey.generate(SignatureKeyType.MLDSA44_ED25519_IETF, RANDOM);
        SshSigningKey openssh105 = ietf.withCompositeName(SignatureKeyType.MLDSA44_ED25519);
        PqCertificate a = (PqCertificate) new ByteArrayBuffer(certify(ietf, ca, CertificateType.HOST).blob())
                .getRawPublicKey();
        PqCertificate b = (PqCertificate) new ByteArrayBuffer(certify(openssh105, ca, CertificateType.HOST).blob())
                .getRawPublicKey();
        assertEquals("ssh-mldsa44-ed25519-cert", a.getKeyType());
        assertEquals("ssh-mldsa44-ed25519", a.getRawKeyType());
        assertEquals("ssh-mldsa44-ed25519-cert-v01@openssh.com", b.getKeyType());
        // MINA's own rule (cut at "-cert") would give the 10.6 name here, and the server would look up the wrong key
        assertEquals("ssh-mldsa44-ed25519@openssh.com", b.getRawKeyType());
        assertEquals("ssh-mldsa44-ed25519@openssh.com", KeyUtils.getKeyType(b.getCertPubKey()));
    }

    @Test
    void malformedCertificatesAreRefused() throws Exception {
        MinaPqKeys.ensureInstalled();
        SshSigningKey ca = SshSigningKey.generate(SignatureKeyType.ED25519, RANDOM);
        byte[] blob = certify(SshSigningKey.generate(SignatureKeyType.MLDSA_44, RANDOM), ca, CertificateType.USER)
                .blob();
        byte[] trailing = java.util.Arrays.copyOf(blob, blob.length + 1);
        assertThrows(Exception.class, () -> new ByteArrayBuffer(trailing).getRawPublicKey());
        byte[] truncated = java.util.Arrays.copyOf(blob, blob.length - 5);
        assertThrows(Exception.class, () -> new ByteArrayBuffer(truncated).getRawPublicKey());
        // a certificate naming one type but holding another key: refused by the strict parse
        ByteArrayBuffer renamed = new ByteArrayBuffer();
        renamed.putString("ssh-mldsa-65-cert-v01@openssh.com");
        int nameEnd = 4 + "ssh-mldsa-44-cert-v01@openssh.com".length();
        renamed.putRawBytes(java.util.Arrays.copyOfRange(blob, nameEnd, blob.length));
        assertThrows(Exception.class, () -> new ByteArrayBuffer(renamed.getCompactData()).getRawPublicKey());
        assertFalse(KeyUtils.isCertificateAlgorithm("ssh-mldsa-65"));
    }
}
