package io.pqssh.core.cert;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/** The ML-KEM certificate test vector of docs/publickey-kem.md section 9.5 (Ed25519 CA: deterministic bytes). */
class KemCertificateVectorTest {
    @Test
    void mlkem768CertificateVector() throws Exception {
        byte[] kemSeed = new byte[64];
        byte[] caSeed = new byte[32];
        byte[] nonce = new byte[32];
        for (int i = 0; i < 64; i++) {
            kemSeed[i] = (byte) i;
        }
        for (int i = 0; i < 32; i++) {
            caSeed[i] = (byte) (0xc0 + i);
            nonce[i] = (byte) (0xa0 + i);
        }
        MlKemSshKey kem = new MlKemSshKey(MlKem.fromSeed(KemAlgorithm.MLKEM768, kemSeed));
        SshSigningKey ca = SignatureKeyType.ED25519.scheme().fromSecret(caSeed);
        SshCertificate c = CertificateSigner.forKey(kem.publicKeyBlob()).keyId("alice@kem").serial(1)
                .principals(List.of("alice")).validity(1767225600L, 1798761600L)
                .criticalOption("source-address", "192.0.2.0/24").sign(CaSigner.of(ca), nonce);
        byte[] blob = c.blob();
        String hex = HexFormat.of().formatHex(blob);
        // string "mlkem768-cert-v01@pqssh.io", string nonce, then the key's one field: string ek (1184 bytes)
        assertEquals("0000001a6d6c6b656d3736382d636572742d7630314070717373682e696f00000020a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf000004a0", hex.substring(0, 140));
        assertEquals(1630, blob.length);
        assertEquals("54f4228c04c6031b398931f118f1573cedb247dac06d3fc80a0971b4d99813e0",
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(blob)));
        CertificateVerifier.check(SshCertificate.parse(blob), CertificateType.USER, "alice", 1780000000L, null);
    }
}
