package io.pqssh.core.cert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/** Certificates of every post-quantum key type, signed by CAs of every type pqssh signs with. */
class CertificatePqTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final long NOW = 1760000000L;
    private static final java.util.Map<SignatureKeyType, SshSigningKey> KEYS =
            new java.util.concurrent.ConcurrentHashMap<>();

    static SshSigningKey key(SignatureKeyType t) {
        return KEYS.computeIfAbsent(t, x -> SshSigningKey.generate(x, RANDOM));
    }

    /** Each type as the certified key (Ed25519 CA) and as the CA (certifying an ML-DSA-44 key). */
    @ParameterizedTest
    @EnumSource(SignatureKeyType.class)
    void everyTypeAsKeyAndAsCa(SignatureKeyType t) throws Exception {
        SshSigningKey key = key(t);
        SshSigningKey ed = key(SignatureKeyType.ED25519);
        SshCertificate c = CertificateSigner.forKey(key.publicKeyBlob()).keyId("k").principals(List.of("u"))
                .validity(NOW - 60, NOW + 60).sign(CaSigner.of(ed), RANDOM);
        assertEquals(CertificateKeyTypes.certName(t.sshName()), c.certType());
        // OpenSSH 10.6's IETF composite is the one certificate name outside the -cert-v01 rule
        assertTrue(t == SignatureKeyType.MLDSA44_ED25519_IETF ? c.certType().equals("ssh-mldsa44-ed25519-cert")
                : c.certType().endsWith("-cert-v01@openssh.com"), c.certType());
        assertEquals(t.sshName(), CertificateKeyTypes.plainName(c.certType()).orElseThrow());
        assertArrayEquals(key.publicKeyBlob(), c.certifiedKey());
        assertEquals(c, SshCertificate.parseLine(c.toLine("comment")));
        CertificateVerifier.check(c, CertificateType.USER, "u", NOW, null);

        SshSigningKey user = key(SignatureKeyType.MLDSA_44);
        SshCertificate byPq = CertificateSigner.forKey(user.publicKeyBlob()).keyId("pq").type(CertificateType.HOST)
                .principals(List.of("h.example")).sign(CaSigner.of(key), RANDOM);
        assertEquals(t.sshName(), byPq.signatureAlgorithm());
        CertificateVerifier.check(byPq, CertificateType.HOST, "h.example", NOW, List.of(t.sshName()));
        byte[] b = byPq.blob();
        b[b.length - 5] ^= 0x40;
        assertFalse(CertificateVerifier.signatureValid(SshCertificate.parse(b)));
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void kemKeysAreCertified(KemAlgorithm a) throws Exception {
        MlKemSshKey kem = new MlKemSshKey(MlKem.generate(a, RANDOM));
        SshSigningKey ca = key(SignatureKeyType.MLDSA_65);
        SshCertificate c = CertificateSigner.forKey(kem.publicKeyBlob()).keyId("kem").principals(List.of("u"))
                .sign(CaSigner.of(ca), RANDOM);
        assertEquals(a.sshName() + "-cert-v01@pqssh.io", c.certType());
        assertArrayEquals(kem.publicKeyBlob(), c.certifiedKey());
        CertificateVerifier.check(c, CertificateType.USER, "u", NOW, null);
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = "ED25519")
    void unknownCriticalOptionAndEmptyPrincipalsAreRefused(SignatureKeyType t) throws Exception {
        SshSigningKey ca = key(t);
        SshCertificate odd = CertificateSigner.forKey(ca.publicKeyBlob()).principals(List.of("u"))
                .criticalFlag("no-such-option@example.com").sign(CaSigner.of(ca), RANDOM);
        assertEquals("Certificate has unsupported critical option no-such-option@example.com",
                assertThrows(CertificateException.class,
                        () -> CertificateVerifier.check(odd, CertificateType.USER, "u", NOW, null)).getMessage());
        SshCertificate any = CertificateSigner.forKey(ca.publicKeyBlob()).sign(CaSigner.of(ca), RANDOM);
        assertEquals("Certificate lacks principal list", assertThrows(CertificateException.class,
                () -> CertificateVerifier.check(any, CertificateType.USER, "u", NOW, null)).getMessage());
        assertEquals("ssh-mldsa44-ed25519-cert-v01@openssh.com",
                CertificateKeyTypes.certName("ssh-mldsa44-ed25519@openssh.com"));
        assertEquals("ssh-mldsa44-ed25519-cert", CertificateKeyTypes.certName("ssh-mldsa44-ed25519"));
    }
}
