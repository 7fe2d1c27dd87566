package io.pqssh.core.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.core.cert.CaSigner;
import io.pqssh.core.cert.CertificateSigner;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.sig.SignatureKeyType;

/**
 * A certificate as the {@code publickey-kem} credential (docs/publickey-kem.md 9.5): alg is the certificate type,
 * the key field the certificate blob (echoed and bound into CTX), the server encapsulates to the certified key.
 */
class KemCertificateCredentialTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] SID = new byte[32];

    private static SshCertificate certify(KemAlgorithm alg, byte[] ek) throws Exception {
        return CertificateSigner.forKey(KemPublicKey.blob(alg, ek)).keyId("kem").principals(List.of("alice"))
                .sign(CaSigner.of(SignatureKeyType.ED25519.scheme().generateKey(RANDOM)), RANDOM);
    }

    @Test
    void certificateCredentialEncapsulatesToTheCertifiedKeyAndBindsTheBlob() throws Exception {
        KemKeyPair key = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
        SshCertificate cert = certify(KemAlgorithm.MLKEM768, key.publicKey());
        KemCredential c = KemCredential.of("mlkem768-cert-v01@pqssh.io", cert.blob());
        assertEquals(KemAlgorithm.MLKEM768, c.algorithm());
        assertArrayEquals(cert.blob(), c.publicKey());
        assertArrayEquals(key.publicKey(), c.encapsulationKey());
        assertTrue(c.certificate().isPresent());

        KemAuthRequest request = KemAuthRequest.kem("alice", "ssh-connection", c);
        KemAuthRequest decoded = KemAuthRequest.decode(request.encode());
        assertEquals(c, decoded.credential());
        KemAuthServer.IssuedChallenge issued = new KemAuthServer(RANDOM).issue(SID, decoded);
        assertEquals("mlkem768-cert-v01@pqssh.io", issued.challenge().alg());
        assertArrayEquals(cert.blob(), issued.challenge().publicKey(), "the challenge echoes the certificate");
        byte[] response = KemAuthClient.respond(SID, request, issued.challenge(), key);
        assertTrue(issued.pending().verify(response));
    }

    @Test
    void aChallengeEchoingTheBareKeyForACertificateRequestIsRejected() throws Exception {
        KemKeyPair key = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
        SshCertificate cert = certify(KemAlgorithm.MLKEM768, key.publicKey());
        KemAuthRequest request = KemAuthRequest.kem("alice", "ssh-connection", KemCredential.ofCertificate(cert));
        KemAuthServer.IssuedChallenge issued = new KemAuthServer(RANDOM).issue(SID, request);
        KemChallenge bare = new KemChallenge(issued.challenge().alg(), key.publicKey(),
                issued.challenge().ciphertext());
        assertThrows(ChallengeRejectedException.class,
                () -> KemAuthClient.respond(SID, request, bare, key));
    }

    @Test
    void certificateOfAnotherKeyDoesNotAnswer() throws Exception {
        KemKeyPair key = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
        KemKeyPair other = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
        KemAuthRequest request = KemAuthRequest.kem("alice", "ssh-connection",
                KemCredential.ofCertificate(certify(KemAlgorithm.MLKEM768, other.publicKey())));
        KemAuthServer.IssuedChallenge issued = new KemAuthServer(RANDOM).issue(SID, request);
        assertThrows(ChallengeRejectedException.class,
                () -> KemAuthClient.respond(SID, request, issued.challenge(), key));
    }

    @Test
    void certificateTypeMustMatchTheBlobAndTheBlobMustParse() throws Exception {
        KemKeyPair key = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
        byte[] blob = certify(KemAlgorithm.MLKEM768, key.publicKey()).blob();
        assertThrows(UnusableKemCredentialException.class,
                () -> KemCredential.of("mlkem1024-cert-v01@pqssh.io", blob));
        assertThrows(UnusableKemCredentialException.class,
                () -> KemCredential.of("MLKEM768-cert-v01@pqssh.io", blob), "certificate names are exact");
        assertThrows(UnusableKemCredentialException.class,
                () -> KemCredential.of("mlkem768-cert-v01@pqssh.io", Arrays.copyOf(blob, blob.length - 1)));
        assertThrows(UnusableKemCredentialException.class,
                () -> KemCredential.of("ssh-ed25519-cert-v01@openssh.com", blob), "not a KEM certificate type");
        assertThrows(UnusableKemCredentialException.class,
                () -> KemCredential.of("mlkem768", blob), "a certificate blob is not a raw key");
        assertFalse(KemCredential.of("mlkem768", key.publicKey()).certificate().isPresent());
    }
}
