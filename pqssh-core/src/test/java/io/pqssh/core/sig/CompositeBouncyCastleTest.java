package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Security;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;

import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.jcajce.spec.ContextParameterSpec;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.keys.PrivateKeyCodecs;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * The ML-DSA-44 + Ed25519 composite, under both SSH names, checked against an independent implementation: Bouncy
 * Castle's {@code MLDSA44-Ed25519-SHA512} (draft-ietf-lamps-pq-composite-sigs, X.509 OID 1.3.6.1.5.5.7.6.39). Bouncy
 * Castle's keys are the same 64 secret bytes (ML-DSA-44 seed || Ed25519 seed) and 1,344 public bytes as OpenSSH's, so
 * a key moves between the two unchanged: each derives the other's public key from the seeds, each verifies the other's
 * signatures. That pins the message representative (prefix, label as the ML-DSA context, the context length byte,
 * SHA-512 of the message), the order of the halves and the seed layout; the SSH names themselves (OpenSSH 10.6's
 * {@code ssh-mldsa44-ed25519}, draft-ietf-sshm-composite-sigs-00) could not be checked against a 10.6 binary.
 */
class CompositeBouncyCastleTest {
    private static final String BC_ALG = "MLDSA44-Ed25519-SHA512";
    private static final byte[] MSG = "exchange hash and session data".getBytes(StandardCharsets.US_ASCII);
    private static boolean added;
    private static Provider bc;

    @BeforeAll
    static void registerBc() {
        // BC's composite generator finds its component generators by provider name, so BC must be registered
        added = Security.getProvider("BC") == null && Security.addProvider(new BouncyCastleProvider()) > 0;
        bc = Security.getProvider("BC");
    }

    @AfterAll
    static void unregisterBc() {
        if (added) {
            Security.removeProvider("BC");
        }
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"MLDSA44_ED25519", "MLDSA44_ED25519_IETF"})
    void bouncyCastleKeySignsAndPqsshVerifiesAndSigns(SignatureKeyType t) throws Exception {
        KeyPair kp = KeyPairGenerator.getInstance(BC_ALG, bc).generateKeyPair();
        byte[] bcSecret = PrivateKeyInfo.getInstance(kp.getPrivate().getEncoded()).getPrivateKey().getOctets();
        byte[] bcPublic = SubjectPublicKeyInfo.getInstance(kp.getPublic().getEncoded()).getPublicKeyData().getBytes();
        assertEquals(64, bcSecret.length);
        // pqssh reads BC's seeds as an OpenSSH private key; reading re-derives the public key and refuses a mismatch
        SshSigningKey k = readPrivate(t, bcPublic, bcSecret);
        assertEquals(t.sshName(), k.keyType());
        assertArrayEquals(bcPublic, k.publicKey().rawKey());

        byte[] bcSig = bcSign(kp.getPrivate(), MSG);
        assertEquals(t.signatureSize(), bcSig.length);
        byte[] blob = t.scheme().encodeSignature(t.sshName(), bcSig);
        assertTrue(k.publicKey().verify(MSG, blob), "pqssh rejects Bouncy Castle's composite signature");
        assertFalse(k.publicKey().verify(Arrays.copyOf(MSG, MSG.length - 1), blob));

        byte[] ours = rawSignature(t, k.sign(MSG));
        assertTrue(bcVerify(kp.getPublic(), MSG, ours), "Bouncy Castle rejects pqssh's composite signature");
        assertFalse(bcVerify(kp.getPublic(), "another message".getBytes(StandardCharsets.US_ASCII), ours));
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"MLDSA44_ED25519", "MLDSA44_ED25519_IETF"})
    void pqsshKeyMovesToBouncyCastle(SignatureKeyType t) throws Exception {
        SshSigningKey k = SshSigningKey.generate(t, new SecureRandom());
        AlgorithmIdentifier alg = algorithm();
        KeyFactory f = KeyFactory.getInstance(BC_ALG, bc);
        byte[] secret = k.exportSecret();
        PrivateKey priv = f.generatePrivate(new PKCS8EncodedKeySpec(
                new PrivateKeyInfo(alg, new DEROctetString(secret)).getEncoded()));
        Arrays.fill(secret, (byte) 0);
        PublicKey pub = f.generatePublic(new X509EncodedKeySpec(
                new SubjectPublicKeyInfo(alg, k.publicKey().rawKey()).getEncoded()));

        assertTrue(bcVerify(pub, MSG, rawSignature(t, k.sign(MSG))), "Bouncy Castle rejects pqssh's signature");
        byte[] blob = t.scheme().encodeSignature(t.sshName(), bcSign(priv, MSG));
        assertTrue(k.publicKey().verify(MSG, blob), "pqssh rejects a signature BC made with pqssh's seeds");
    }

    /** The composite context is part of M' (its length byte is 0 in SSH): a signature over another context fails. */
    @Test
    void signatureWithANonEmptyCompositeContextIsRejected() throws Exception {
        KeyPair kp = KeyPairGenerator.getInstance(BC_ALG, bc).generateKeyPair();
        SshPublicKey k = SshPublicKey.of(SignatureKeyType.MLDSA44_ED25519_IETF,
                SubjectPublicKeyInfo.getInstance(kp.getPublic().getEncoded()).getPublicKeyData().getBytes());
        Signature s = Signature.getInstance(BC_ALG, bc);
        s.initSign(kp.getPrivate());
        s.setParameter(new ContextParameterSpec("ssh".getBytes(StandardCharsets.US_ASCII)));
        s.update(MSG);
        byte[] blob = SignatureKeyType.MLDSA44_ED25519_IETF.scheme().encodeSignature("ssh-mldsa44-ed25519", s.sign());
        assertFalse(k.verify(MSG, blob));
        assertTrue(k.verify(MSG, SignatureKeyType.MLDSA44_ED25519_IETF.scheme().encodeSignature("ssh-mldsa44-ed25519",
                bcSign(kp.getPrivate(), MSG))), "control: the same key without a context verifies");
    }

    /** The two names share the construction but not their blobs: a signature blob names its algorithm. */
    @Test
    void namesDoNotStandInForEachOther() throws Exception {
        SshSigningKey old = SshSigningKey.generate(SignatureKeyType.MLDSA44_ED25519, new SecureRandom());
        SshSigningKey ietf = old.withCompositeName(SignatureKeyType.MLDSA44_ED25519_IETF);
        assertEquals("ssh-mldsa44-ed25519", ietf.keyType());
        assertArrayEquals(old.publicKey().rawKey(), ietf.publicKey().rawKey());
        assertFalse(old.publicKey().fingerprintSha256().equals(ietf.publicKey().fingerprintSha256()));
        assertTrue(ietf.publicKey().verify(MSG, ietf.sign(MSG)));
        assertThrows(MalformedMessageException.class, () -> ietf.publicKey().verify(MSG, old.sign(MSG)));
        assertThrows(MalformedMessageException.class, () -> old.publicKey().verify(MSG, ietf.sign(MSG)));
        // the raw signatures are interchangeable, which is why the blob's name is checked
        assertTrue(old.publicKey().verify(MSG, SignatureKeyType.MLDSA44_ED25519.scheme()
                .encodeSignature("ssh-mldsa44-ed25519@openssh.com", rawSignature(SignatureKeyType.MLDSA44_ED25519_IETF,
                        ietf.sign(MSG)))));
        assertEquals("ssh-mldsa44-ed25519@openssh.com",
                ietf.withCompositeName(SignatureKeyType.MLDSA44_ED25519).keyType());
        assertThrows(IllegalArgumentException.class, () -> old.withCompositeName(SignatureKeyType.MLDSA_44));
        SshSigningKey ml = SshSigningKey.generate(SignatureKeyType.MLDSA_44, new SecureRandom());
        assertThrows(IllegalArgumentException.class, () -> ml.withCompositeName(SignatureKeyType.MLDSA44_ED25519_IETF));
    }

    private static SshSigningKey readPrivate(SignatureKeyType t, byte[] pk, byte[] secret) throws Exception {
        byte[] fields = new SshWriter().putString(pk).putString(secret).toByteArray();
        return (SshSigningKey) PrivateKeyCodecs.forType(t.sshName()).orElseThrow()
                .readPrivateFields(t.sshName(), new SshReader(fields));
    }

    private static AlgorithmIdentifier algorithm() throws Exception {
        KeyPair kp = KeyPairGenerator.getInstance(BC_ALG, bc).generateKeyPair();
        return SubjectPublicKeyInfo.getInstance(kp.getPublic().getEncoded()).getAlgorithm();
    }

    private static byte[] rawSignature(SignatureKeyType t, byte[] blob) throws MalformedMessageException {
        SshReader r = new SshReader(blob);
        assertEquals(t.sshName(), new String(r.getString(), StandardCharsets.US_ASCII));
        byte[] raw = r.getString();
        assertEquals(0, r.remaining());
        return raw;
    }

    private static byte[] bcSign(PrivateKey k, byte[] msg) throws Exception {
        Signature s = Signature.getInstance(BC_ALG, bc);
        s.initSign(k);
        s.update(msg);
        return s.sign();
    }

    private static boolean bcVerify(PublicKey k, byte[] msg, byte[] sig) throws Exception {
        Signature s = Signature.getInstance(BC_ALG, bc);
        s.initVerify(k);
        s.update(msg);
        return s.verify(sig);
    }
}
