package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.NamedParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.wire.SshWriter;

/** Differential tests: pqssh (Bouncy Castle) ML-DSA against the JDK 25 SUN provider's ML-DSA. */
class MlDsaJdkInteropTest {
    private static final byte[] MSG = "differential ML-DSA message".getBytes(StandardCharsets.UTF_8);

    /** Feeds a fixed seed to a key generator (the JDK draws the 32-byte ξ with one nextBytes call). */
    static final class SeedRandom extends SecureRandom {
        private static final long serialVersionUID = 1L;
        private final byte[] seed;
        int calls;

        SeedRandom(byte[] seed) {
            this.seed = seed.clone();
        }

        @Override
        public void nextBytes(byte[] bytes) {
            if (bytes.length != seed.length || calls++ > 0) {
                throw new IllegalStateException("unexpected draw of " + bytes.length + " bytes");
            }
            System.arraycopy(seed, 0, bytes, 0, bytes.length);
        }
    }

    static String jdkName(SignatureKeyType t) {
        return switch (t) {
            case MLDSA_44 -> "ML-DSA-44";
            case MLDSA_65 -> "ML-DSA-65";
            case MLDSA_87 -> "ML-DSA-87";
            default -> throw new IllegalArgumentException();
        };
    }

    /** SPKI DER for a raw ML-DSA key: SEQUENCE { SEQUENCE { OID 2.16.840.1.101.3.4.3.17/18/19 }, BIT STRING }. */
    static byte[] spki(SignatureKeyType t, byte[] raw) {
        int oidLast = switch (t) {
            case MLDSA_44 -> 0x11;
            case MLDSA_65 -> 0x12;
            default -> 0x13;
        };
        byte[] alg = {0x30, 0x0b, 0x06, 0x09, 0x60, (byte) 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, (byte) oidLast};
        byte[] bitString = concat(new byte[] {0x03}, derLength(raw.length + 1), new byte[] {0}, raw);
        byte[] body = concat(alg, bitString);
        return concat(new byte[] {0x30}, derLength(body.length), body);
    }

    static byte[] derLength(int n) {
        return n < 0x80 ? new byte[] {(byte) n} : new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n};
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int o = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, o, p.length);
            o += p.length;
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"MLDSA_44", "MLDSA_65", "MLDSA_87"})
    void seedKeygenMatchesAndSignaturesCrossVerify(SignatureKeyType t) throws Exception {
        byte[] seed = new byte[32];
        new SecureRandom().nextBytes(seed);

        // deterministic key generation from the same seed: pqssh (BC) vs the JDK
        SshSigningKey ours = t.scheme().fromSecret(seed);
        KeyPairGenerator g = KeyPairGenerator.getInstance("ML-DSA");
        SeedRandom sr = new SeedRandom(seed);
        g.initialize(new NamedParameterSpec(jdkName(t)), sr);
        KeyPair jdk = g.generateKeyPair();
        assertEquals(1, sr.calls);
        byte[] jdkSpki = jdk.getPublic().getEncoded();
        byte[] ourRaw = ours.publicKey().rawKey();
        assertArrayEquals(spki(t, ourRaw), jdkSpki, "same seed, same public key (and our SPKI header is right)");

        // pqssh signs (hedged, pure, empty context), the JDK verifies with a key built from the raw SSH key
        PublicKey jdkPub = KeyFactory.getInstance("ML-DSA").generatePublic(new X509EncodedKeySpec(spki(t, ourRaw)));
        byte[] blob = ours.sign(MSG);
        byte[] raw = t.scheme().decodeSignature(blob);
        Signature v = Signature.getInstance("ML-DSA");
        v.initVerify(jdkPub);
        v.update(MSG);
        assertTrue(v.verify(raw));
        v.initVerify(jdkPub);
        v.update("other".getBytes(StandardCharsets.UTF_8));
        assertFalse(v.verify(raw));

        // the JDK signs, pqssh verifies the SSH signature blob built around it
        Signature s = Signature.getInstance("ML-DSA");
        s.initSign(jdk.getPrivate());
        s.update(MSG);
        byte[] jdkSig = s.sign();
        assertEquals(t.signatureSize(), jdkSig.length);
        byte[] jdkBlob = new SshWriter().putString(t.sshName()).putString(jdkSig).toByteArray();
        assertTrue(ours.publicKey().verify(MSG, jdkBlob));
        assertTrue(Signatures.verify(ours.publicKeyBlob(), MSG, jdkBlob));
        byte[] flipped = jdkSig.clone();
        flipped[100] ^= 0x40;
        assertFalse(ours.publicKey().verify(MSG,
                new SshWriter().putString(t.sshName()).putString(flipped).toByteArray()));
        assertFalse(Arrays.equals(raw, jdkSig));
    }
}
