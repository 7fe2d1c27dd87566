package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.keys.PrivateKeyCodec;
import io.pqssh.core.keys.PrivateKeyCodecs;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/** Every row of the table: keygen, sign, verify, blob sizes, private fields, destroy. One signature per type. */
class SignatureKeyTypeTest {
    static final byte[] DATA = "exchange hash H".getBytes(StandardCharsets.UTF_8);
    /** One key and one signature per type, made once for all test classes (class-init holder). */
    static final class Fixtures {
        static final Map<SignatureKeyType, SshSigningKey> KEYS = new EnumMap<>(SignatureKeyType.class);
        static final Map<SignatureKeyType, byte[]> SIGS = new EnumMap<>(SignatureKeyType.class);

        static {
            SecureRandom rnd = new SecureRandom();
            for (SignatureKeyType t : SignatureKeyType.values()) {
                SshSigningKey k = SshSigningKey.generate(t, rnd);
                KEYS.put(t, k);
                SIGS.put(t, k.sign(DATA));
            }
        }
    }

    static SshSigningKey key(SignatureKeyType t) {
        return Fixtures.KEYS.get(t);
    }

    static byte[] sig(SignatureKeyType t) {
        return Fixtures.SIGS.get(t);
    }

    @Test
    void tableRows() {
        assertEquals(13, SignatureKeyType.values().length);
        assertSame(SignatureKeyType.ED25519, SignatureKeyType.forName("ssh-ed25519").orElseThrow());
        assertSame(SignatureKeyType.SLHDSA_SHA2_128F,
                SignatureKeyType.forName("ssh-sphincssha2128fsimple").orElseThrow());
        assertEquals(2420 + 64, SignatureKeyType.MLDSA44_ED25519.signatureSize());
        assertEquals(1344, SignatureKeyType.MLDSA44_ED25519.publicKeySize());
        assertEquals(4627, SignatureKeyType.MLDSA_87.signatureSize());
        assertEquals(49856, SignatureKeyType.SLHDSA_SHA2_256F.signatureSize());
        assertFalse(SignatureKeyType.FALCON_1024.fixedSignatureSize());
        assertTrue(SignatureKeyType.forName("ssh-rsa").isEmpty());
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> SignatureKeyType.require("ssh-dilithium2"));
        assertTrue(e.getMessage().contains("unknown"), e.getMessage());
        for (SignatureKeyType t : SignatureKeyType.values()) {
            for (String n : t.names()) {
                assertTrue(PrivateKeyCodecs.forType(n).isPresent(), "codec registered for " + n);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SignatureKeyType.class)
    void signVerifyAndSizes(SignatureKeyType t) throws Exception {
        SshSigningKey k = key(t);
        byte[] blob = k.publicKeyBlob();
        assertEquals(4 + t.sshName().length() + 4 + t.publicKeySize(), blob.length);
        SshPublicKey pub = Signatures.decodePublicKey(blob);
        assertEquals(t, pub.type());
        assertArrayEquals(blob, pub.blob());
        assertEquals(pub, k.publicKey());

        byte[] s = sig(t);
        assertEquals(t.sshName(), Signatures.signatureName(s));
        int raw = s.length - 8 - t.sshName().length();
        if (t.fixedSignatureSize()) {
            assertEquals(t.signatureSize(), raw);
        } else {
            assertTrue(raw <= t.signatureSize() && raw > 41, "falcon length " + raw);
        }
        assertTrue(Signatures.verify(blob, DATA, s));
        assertFalse(pub.verify("other data".getBytes(StandardCharsets.UTF_8), s));
        // a flipped bit anywhere in the raw signature fails (or is rejected as malformed)
        for (int pos : new int[] {8 + t.sshName().length(), s.length / 2, s.length - 1}) {
            byte[] bad = s.clone();
            bad[pos] ^= 0x01;
            boolean ok;
            try {
                ok = pub.verify(DATA, bad);
            } catch (MalformedMessageException e) {
                ok = false;
            }
            assertFalse(ok, t + " accepted a signature with bit flipped at " + pos);
        }
        // another key of the same type does not verify it
        SshPublicKey other = otherKey(t).publicKey();
        assertFalse(other.verify(DATA, s));
    }

    private static final Map<SignatureKeyType, SshSigningKey> OTHER = new EnumMap<>(SignatureKeyType.class);

    static synchronized SshSigningKey otherKey(SignatureKeyType t) {
        return OTHER.computeIfAbsent(t, x -> SshSigningKey.generate(x, new SecureRandom()));
    }

    @ParameterizedTest
    @EnumSource(SignatureKeyType.class)
    void privateFieldsRoundTripThroughTheCodec(SignatureKeyType t) throws Exception {
        SshSigningKey k = key(t);
        SshWriter w = new SshWriter();
        k.writePrivateFields(w);
        byte[] fields = w.toByteArray();
        PrivateKeyCodec codec = PrivateKeyCodecs.forType(t.sshName()).orElseThrow();
        SshReader r = new SshReader(fields);
        SshPrivateKey back = codec.readPrivateFields(t.sshName(), r);
        assertEquals(0, r.remaining());
        assertArrayEquals(k.publicKeyBlob(), back.publicKeyBlob());
        SshWriter w2 = new SshWriter();
        back.writePrivateFields(w2);
        assertArrayEquals(fields, w2.toByteArray());
        // the restored key makes signatures the original's public key accepts
        if (t != SignatureKeyType.SLHDSA_SHA2_256F && t != SignatureKeyType.SLHDSA_SHA2_192F) {
            assertTrue(k.publicKey().verify(DATA, ((SshSigningKey) back).sign(DATA)));
        }
        // layout: string pk, string secret
        SshReader lr = new SshReader(fields);
        assertArrayEquals(k.publicKey().rawKey(), lr.getString());
        byte[] secret = lr.getString();
        int expected = switch (t) {
            case ED25519 -> 64;
            case MLDSA_44, MLDSA_65, MLDSA_87 -> 32;
            case MLDSA44_ED25519, MLDSA44_ED25519_IETF -> 64;
            case SLHDSA_SHA2_128F, SLHDSA_SHA2_192F, SLHDSA_SHA2_256F -> 2 * t.publicKeySize();
            case FALCON_512 -> 1281;
            case FALCON_1024 -> 2305;
            case ED25519_MLDSA_65 -> 32 + 32;
            case ED25519_SLHDSA_SHA2_192F -> 32 + 96;
        };
        assertEquals(expected, secret.length);
        back.destroy();
    }

    @ParameterizedTest
    @EnumSource(SignatureKeyType.class)
    void mismatchedPrivateHalvesAreRejected(SignatureKeyType t) throws Exception {
        SshWriter w = new SshWriter();
        key(t).writePrivateFields(w);
        SshReader r = new SshReader(w.toByteArray());
        byte[] pk = r.getString();
        byte[] sk = r.getString();
        byte[] otherPk = otherKey(t).publicKey().rawKey();
        byte[] swapped = new SshWriter().putString(otherPk).putString(sk).toByteArray();
        if (t == SignatureKeyType.ED25519) {
            // OpenSSH's layout repeats pk inside sk: make both copies the other key's
            System.arraycopy(otherPk, 0, sk, 32, 32);
            swapped = new SshWriter().putString(otherPk).putString(sk).toByteArray();
        }
        byte[] input = swapped;
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> t.scheme().readPrivateKey(t.sshName(), new SshReader(input)));
        assertTrue(e.getMessage().contains("does not match") || e.getMessage().contains("invalid"), e.getMessage());
        // wrong secret length
        byte[] shortSk = new SshWriter().putString(pk).putString(Arrays.copyOf(sk, sk.length - 1)).toByteArray();
        assertThrows(MalformedMessageException.class,
                () -> t.scheme().readPrivateKey(t.sshName(), new SshReader(shortSk)));
        // truncated fields
        byte[] truncated = new SshWriter().putString(pk).toByteArray();
        assertThrows(MalformedMessageException.class,
                () -> t.scheme().readPrivateKey(t.sshName(), new SshReader(truncated)));
        // a name of another type
        assertThrows(MalformedMessageException.class, () -> t.scheme().readPrivateKey(
                t == SignatureKeyType.ED25519 ? "ssh-mldsa-44" : "ssh-ed25519", new SshReader(w.toByteArray())));
    }

    @Test
    void destroyWipesTheSecret() throws Exception {
        SshSigningKey k = SshSigningKey.generate(SignatureKeyType.MLDSA44_ED25519, new SecureRandom());
        Field f = SshSigningKey.class.getDeclaredField("secret");
        f.setAccessible(true);
        byte[] secret = (byte[]) f.get(k);
        assertFalse(allZero(secret));
        k.destroy();
        assertTrue(k.isDestroyed());
        assertTrue(allZero(secret));
        assertThrows(IllegalStateException.class, () -> k.sign(DATA));
        assertThrows(IllegalStateException.class, () -> k.writePrivateFields(new SshWriter()));
        assertNotNull(k.publicKeyBlob(), "the public half stays usable");
    }

    @Test
    void mlDsaIsHedged() {
        SshSigningKey k = key(SignatureKeyType.MLDSA_44);
        assertFalse(Arrays.equals(k.sign(DATA), k.sign(DATA)));
    }

    @Test
    void mlDsaFromSeedIsDeterministic() throws Exception {
        byte[] seed = new byte[32];
        Arrays.fill(seed, (byte) 7);
        SshSigningKey a = SignatureKeyType.MLDSA_65.scheme().fromSecret(seed);
        SshSigningKey b = SignatureKeyType.MLDSA_65.scheme().fromSecret(seed);
        assertArrayEquals(a.publicKeyBlob(), b.publicKeyBlob());
        assertThrows(MalformedMessageException.class,
                () -> SignatureKeyType.MLDSA_65.scheme().fromSecret(new byte[31]));
    }

    @Test
    void aliasNameIsKeptSoBlobsStayIdentical() throws Exception {
        SshSigningKey k = key(SignatureKeyType.SLHDSA_SHA2_128F);
        byte[] aliasBlob = new SshWriter().putString("ssh-sphincssha2128fsimple")
                .putString(k.publicKey().rawKey()).toByteArray();
        SshPublicKey p = Signatures.decodePublicKey(aliasBlob);
        assertEquals(SignatureKeyType.SLHDSA_SHA2_128F, p.type());
        assertEquals("ssh-sphincssha2128fsimple", p.name());
        assertArrayEquals(aliasBlob, p.blob());
        assertTrue(p.verify(DATA, sig(SignatureKeyType.SLHDSA_SHA2_128F)));
    }

    static boolean allZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }
}
