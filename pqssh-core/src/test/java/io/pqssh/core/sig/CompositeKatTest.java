package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.Security;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.jcajce.spec.ContextParameterSpec;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.keys.PrivateKeyCodecs;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * The MLDSA44-Ed25519-SHA512 known-answer vector OpenSSH's regression tests use (resources sig/composite-kat, see its
 * README): a signature made elsewhere, with a fixed key, that pqssh must verify under both SSH names of the composite;
 * key expansion from the two seeds; and the context-bearing signature refused, as SSH signs with the empty context.
 */
class CompositeKatTest {
    private static byte[] field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"([A-Za-z0-9+/=]+)\"").matcher(json);
        assertTrue(m.find(), "vector field " + name);
        return Base64.getDecoder().decode(m.group(1));
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"MLDSA44_ED25519", "MLDSA44_ED25519_IETF"})
    void knownAnswerUnderBothNames(SignatureKeyType t) throws Exception {
        String json = TestFiles.text("composite-kat/mldsa44-ed25519-sha512.json");
        byte[] m = field(json, "m");
        byte[] pk = field(json, "pk");
        byte[] sk = field(json, "sk");
        byte[] s = field(json, "s");
        byte[] sCtx = field(json, "sWithContext");
        assertEquals(t.publicKeySize(), pk.length);
        assertEquals(64, sk.length);
        assertEquals(t.signatureSize(), s.length);

        // reading the private fields derives the public key from the seeds and refuses a mismatch
        SshSigningKey k = (SshSigningKey) PrivateKeyCodecs.forType(t.sshName()).orElseThrow().readPrivateFields(
                t.sshName(), new SshReader(new SshWriter().putString(pk).putString(sk).toByteArray()));
        assertArrayEquals(pk, k.publicKey().rawKey());

        SshPublicKey pub = SshPublicKey.of(t, pk);
        assertTrue(pub.verify(m, t.scheme().encodeSignature(t.sshName(), s)), "the vector's signature");
        assertFalse(pub.verify(m, t.scheme().encodeSignature(t.sshName(), sCtx)),
                "a signature over a non-empty composite context is not an SSH signature");
        byte[] flipped = s.clone();
        flipped[s.length - 1] ^= 1; // in the Ed25519 half: the ML-DSA half alone must not carry the signature
        assertFalse(pub.verify(m, t.scheme().encodeSignature(t.sshName(), flipped)));
        assertTrue(pub.verify(m, k.sign(m)));
    }

    /** Bouncy Castle agrees with the vector too, with and without the context: the vector means what we assume. */
    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = "MLDSA44_ED25519_IETF")
    void bouncyCastleAgreesWithTheVector(SignatureKeyType t) throws Exception {
        boolean added = Security.getProvider("BC") == null && Security.addProvider(new BouncyCastleProvider()) > 0;
        try {
            String json = TestFiles.text("composite-kat/mldsa44-ed25519-sha512.json");
            String alg = "MLDSA44-Ed25519-SHA512";
            SubjectPublicKeyInfo like = SubjectPublicKeyInfo.getInstance(KeyPairGenerator.getInstance(alg, "BC")
                    .generateKeyPair().getPublic().getEncoded());
            PublicKey pub = KeyFactory.getInstance(alg, "BC").generatePublic(new X509EncodedKeySpec(
                    new SubjectPublicKeyInfo(like.getAlgorithm(), field(json, "pk")).getEncoded()));
            Signature v = Signature.getInstance(alg, "BC");
            v.initVerify(pub);
            v.update(field(json, "m"));
            assertTrue(v.verify(field(json, "s")));
            v = Signature.getInstance(alg, "BC");
            v.initVerify(pub);
            v.setParameter(new ContextParameterSpec(field(json, "ctx")));
            v.update(field(json, "m"));
            assertTrue(v.verify(field(json, "sWithContext")));
        } finally {
            if (added) {
                Security.removeProvider("BC");
            }
        }
    }
}
