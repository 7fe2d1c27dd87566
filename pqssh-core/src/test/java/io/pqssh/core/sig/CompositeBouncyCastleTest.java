package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.util.Arrays;

import org.bouncycastle.jcajce.CompositePublicKey;
import org.bouncycastle.jcajce.interfaces.MLDSAPublicKey;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.Test;

/**
 * The ML-DSA-44 + Ed25519 composite checked against an independent implementation: Bouncy Castle's
 * {@code MLDSA44-Ed25519-SHA512} (draft-ietf-lamps-pq-composite-sigs) signs, pqssh's composite verifies. Passing
 * means both build the same message representative (prefix, label as the ML-DSA context, empty context byte,
 * SHA-512 of the message) and concatenate the halves in the same order, which is what OpenSSH 10.6's
 * {@code ssh-mldsa44-ed25519} (draft-ietf-sshm-composite-sigs-00) is said to use; no 10.6 binary was available.
 */
class CompositeBouncyCastleTest {
    @Test
    void bouncyCastleCompositeSignaturesVerifyAsOpenSshComposite() throws Exception {
        // BC's composite generator finds its component generators by provider name, so BC must be registered
        boolean added = java.security.Security.getProvider("BC") == null
                && java.security.Security.addProvider(new BouncyCastleProvider()) > 0;
        try {
            check(java.security.Security.getProvider("BC"));
        } finally {
            if (added) {
                java.security.Security.removeProvider("BC");
            }
        }
    }

    private static void check(java.security.Provider bc) throws Exception {
        KeyPair kp = KeyPairGenerator.getInstance("MLDSA44-Ed25519-SHA512", bc).generateKeyPair();
        CompositePublicKey pub = (CompositePublicKey) kp.getPublic();
        byte[] ml = ((MLDSAPublicKey) pub.getPublicKeys().get(0)).getPublicData();
        byte[] edX509 = pub.getPublicKeys().get(1).getEncoded();
        byte[] raw = new byte[ml.length + 32];
        System.arraycopy(ml, 0, raw, 0, ml.length);
        System.arraycopy(edX509, edX509.length - 32, raw, ml.length, 32);
        byte[] msg = "exchange hash and session data".getBytes(StandardCharsets.US_ASCII);
        Signature s = Signature.getInstance("MLDSA44-Ed25519-SHA512", bc);
        s.initSign(kp.getPrivate());
        s.update(msg);
        byte[] sig = s.sign();
        assertEquals(SignatureKeyType.MLDSA44_ED25519.signatureSize(), sig.length);
        SshPublicKey k = SshPublicKey.of(SignatureKeyType.MLDSA44_ED25519, raw);
        byte[] blob = SignatureKeyType.MLDSA44_ED25519.scheme().encodeSignature(k.name(), sig);
        assertTrue(k.verify(msg, blob), "pqssh rejects Bouncy Castle's composite signature");
        assertFalse(k.verify(Arrays.copyOf(msg, msg.length - 1), blob));
    }
}
