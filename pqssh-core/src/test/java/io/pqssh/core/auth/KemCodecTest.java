package io.pqssh.core.auth;

import static io.pqssh.core.auth.TestVectors.HEX;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.pqssh.core.auth.TestVectors.Manual;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/** Codecs of messages 50 (both methods), 60 and 61: round trip, strictness, and fuzzing. */
class KemCodecTest {
    static final SecureRandom RND = new SecureRandom();

    static byte[] pk(KemAlgorithm a) {
        return MlKem.generate(a, RND).publicKey();
    }

    static KemAuthRequest.SignaturePart sig() {
        return new KemAuthRequest.SignaturePart("ssh-ed25519", new Manual().s("ssh-ed25519").s(new byte[32]).bytes(),
                new Manual().s("ssh-ed25519").s(new byte[64]).bytes());
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void requestRoundTripBothMethods(KemAlgorithm a) throws Exception {
        byte[] pk = pk(a);
        for (String alg : new String[] {a.sshName(), a.fipsName(), "Kyber" + a.sshName().substring(5) + "-SHA256"}) {
            KemCredential cred = new KemCredential(alg, pk);
            KemAuthRequest plain = KemAuthRequest.kem("alice", "ssh-connection", cred);
            byte[] enc = plain.encode();
            assertArrayEquals(new Manual().b(50).s("alice").s("ssh-connection").s("publickey-kem").s(alg).s(pk)
                    .bytes(), enc);
            KemAuthRequest back = KemAuthRequest.decode(enc);
            assertEquals("alice", back.user());
            assertEquals("ssh-connection", back.service());
            assertEquals(KemAuthMethod.PUBLICKEY_KEM, back.method());
            assertEquals(cred, back.credential());
            assertEquals(alg, back.credential().alg());
            assertEquals(a, back.credential().algorithm());
            assertTrue(back.signature().isEmpty());
            assertArrayEquals(enc, back.encode());

            KemAuthRequest hybrid = KemAuthRequest.hybrid("bob", "ssh-connection", sig(), cred);
            byte[] henc = hybrid.encode();
            assertArrayEquals(new Manual().b(50).s("bob").s("ssh-connection").s("publickey-kem-and").b(1)
                    .s("ssh-ed25519").s(sig().keyBlob()).s(sig().signature()).s(alg).s(pk).bytes(), henc);
            KemAuthRequest hback = KemAuthRequest.decode(henc);
            assertEquals(KemAuthMethod.PUBLICKEY_KEM_AND, hback.method());
            assertEquals("ssh-ed25519", hback.signature().orElseThrow().algorithm());
            assertArrayEquals(sig().keyBlob(), hback.signature().orElseThrow().keyBlob());
            assertArrayEquals(sig().signature(), hback.signature().orElseThrow().signature());
            assertEquals(cred, hback.credential());
            assertArrayEquals(henc, hback.encode());
        }
    }

    @Test
    void decodeMethodFieldsAfterCommonHeader() throws Exception {
        byte[] pk = pk(KemAlgorithm.MLKEM768);
        byte[] tail = new Manual().s("mlkem768").s(pk).bytes();
        KemAuthRequest r = KemAuthRequest.decodeMethodFields("u", "s", KemAuthMethod.PUBLICKEY_KEM,
                new SshReader(tail));
        assertArrayEquals(pk, r.credential().publicKey());
        byte[] trailing = Arrays.copyOf(tail, tail.length + 1);
        assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decodeMethodFields("u", "s",
                KemAuthMethod.PUBLICKEY_KEM, new SshReader(trailing)));
    }

    @Test
    void challengeAndResponseRoundTrip() throws Exception {
        byte[] pk = pk(KemAlgorithm.MLKEM512);
        byte[] ct = new byte[768];
        RND.nextBytes(ct);
        KemChallenge c = new KemChallenge("ML-KEM-512", pk, ct);
        byte[] enc = c.encode();
        assertArrayEquals(new Manual().b(60).s("ML-KEM-512").s(pk).s(ct).bytes(), enc);
        assertArrayEquals(Arrays.copyOfRange(enc, 1, enc.length), c.encodeFields());
        KemChallenge back = KemChallenge.decode(enc);
        assertEquals("ML-KEM-512", back.alg());
        assertArrayEquals(pk, back.publicKey());
        assertArrayEquals(ct, back.ciphertext());
        // the challenge codec does no semantic checks: a wrong-length or unknown-alg challenge still parses, so
        // that the client can refuse it without answering
        KemChallenge odd = KemChallenge.decode(new Manual().b(60).s("mlkem769").s(new byte[3]).s(new byte[0])
                .bytes());
        assertEquals("mlkem769", odd.alg());

        byte[] resp = new byte[32];
        RND.nextBytes(resp);
        byte[] renc = KemResponse.encode(resp);
        assertArrayEquals(new Manual().b(61).s(resp).bytes(), renc);
        assertArrayEquals(Arrays.copyOfRange(renc, 1, renc.length), KemResponse.encodeFields(resp));
        assertArrayEquals(resp, KemResponse.decode(renc));
        // any length parses (the server counts a wrong length as a failed attempt)
        assertArrayEquals(new byte[33], KemResponse.decode(KemResponse.encode(new byte[33])));
        assertArrayEquals(new byte[0], KemResponse.decode(KemResponse.encode(new byte[0])));
    }

    @Test
    void trailingBytesRejected() {
        byte[] pk = pk(KemAlgorithm.MLKEM768);
        KemCredential cred = new KemCredential("mlkem768", pk);
        for (byte[] good : new byte[][] {KemAuthRequest.kem("a", "ssh-connection", cred).encode(),
            KemAuthRequest.hybrid("a", "ssh-connection", sig(), cred).encode()}) {
            for (byte[] extra : new byte[][] {{0}, {1, 2, 3}, new byte[4]}) {
                byte[] bad = concat(good, extra);
                assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(bad));
            }
        }
        byte[] ch = new KemChallenge("mlkem768", pk, new byte[1088]).encode();
        assertThrows(MalformedMessageException.class, () -> KemChallenge.decode(concat(ch, new byte[1])));
        byte[] r = KemResponse.encode(new byte[32]);
        assertThrows(MalformedMessageException.class, () -> KemResponse.decode(concat(r, new byte[1])));
    }

    @Test
    void wrongMessageNumbersRejected() {
        byte[] pk = pk(KemAlgorithm.MLKEM768);
        byte[] req = KemAuthRequest.kem("a", "ssh-connection", new KemCredential("mlkem768", pk)).encode();
        req[0] = 51;
        assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(req));
        byte[] ch = new KemChallenge("mlkem768", pk, new byte[1088]).encode();
        ch[0] = 61;
        assertThrows(MalformedMessageException.class, () -> KemChallenge.decode(ch));
        byte[] r = KemResponse.encode(new byte[32]);
        r[0] = 60;
        assertThrows(MalformedMessageException.class, () -> KemResponse.decode(r));
        assertThrows(MalformedMessageException.class, () -> KemResponse.decode(new byte[0]));
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void wrongKeyLengthsRejected(KemAlgorithm a) {
        byte[] pk = pk(a);
        for (int len : new int[] {0, 32, pk.length - 1, pk.length + 1, 800, 1184, 1568}) {
            if (len == pk.length) {
                continue;
            }
            byte[] k = Arrays.copyOf(pk, len);
            byte[] plain = new Manual().b(50).s("a").s("ssh-connection").s("publickey-kem").s(a.sshName()).s(k)
                    .bytes();
            assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(plain), "len " + len);
            byte[] hybrid = new Manual().b(50).s("a").s("ssh-connection").s("publickey-kem-and").b(1)
                    .s("ssh-ed25519").s(new byte[51]).s(new byte[83]).s(a.sshName()).s(k).bytes();
            assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(hybrid), "len " + len);
            assertThrows(IllegalArgumentException.class, () -> new KemCredential(a.sshName(), k));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mlkem769", "", "mlkem", "ssh-ed25519", "ml\u212Aem768", "sntrup761"})
    void unknownAlgRejected(String alg) {
        byte[] pk = pk(KemAlgorithm.MLKEM768);
        byte[] plain = new Manual().b(50).s("a").s("ssh-connection").s("publickey-kem").s(alg).s(pk).bytes();
        assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(plain));
        assertThrows(IllegalArgumentException.class, () -> new KemCredential(alg, pk));
    }

    @Test
    void nonUtf8NamesRejected() {
        byte[] pk = pk(KemAlgorithm.MLKEM768);
        byte[] bad = HEX.parseHex("c0af");
        byte[] good = TestVectors.utf8("x");
        byte[][] fields = {good, TestVectors.utf8("ssh-connection"), TestVectors.utf8("publickey-kem"),
            TestVectors.utf8("mlkem768")};
        for (int i = 0; i < fields.length; i++) {
            Manual m = new Manual().b(50);
            for (int j = 0; j < fields.length; j++) {
                m.s(i == j ? bad : fields[j]);
            }
            byte[] msg = m.s(pk).bytes();
            assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(msg), "field " + i);
        }
        // hybrid sig_alg is a name too
        byte[] h = new Manual().b(50).s("a").s("ssh-connection").s("publickey-kem-and").b(1).s(bad)
                .s(new byte[1]).s(new byte[1]).s("mlkem768").s(pk).bytes();
        assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(h));
        byte[] ch = new Manual().b(60).s(bad).s(pk).s(new byte[1088]).bytes();
        assertThrows(MalformedMessageException.class, () -> KemChallenge.decode(ch));
        // valid non-ASCII UTF-8 user names are fine
        byte[] ok = new Manual().b(50).s("ålice").s("ssh-connection").s("publickey-kem").s("mlkem768").s(pk)
                .bytes();
        try {
            assertEquals("ålice", KemAuthRequest.decode(ok).user());
        } catch (MalformedMessageException e) {
            fail(e);
        }
    }

    @Test
    void otherMethodsAndFalseFlagRejected() {
        byte[] pk = pk(KemAlgorithm.MLKEM768);
        for (String m : new String[] {"publickey", "password", "Publickey-kem", "publickey-kem ", "publickey-kem-or"}) {
            byte[] msg = new Manual().b(50).s("a").s("ssh-connection").s(m).s("mlkem768").s(pk).bytes();
            assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(msg), m);
        }
        byte[] falseFlag = new Manual().b(50).s("a").s("ssh-connection").s("publickey-kem-and").b(0)
                .s("ssh-ed25519").s(new byte[1]).s(new byte[1]).s("mlkem768").s(pk).bytes();
        assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(falseFlag));
        // publickey-kem-and without the signature part
        byte[] noSig = new Manual().b(50).s("a").s("ssh-connection").s("publickey-kem-and").s("mlkem768").s(pk)
                .bytes();
        assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(noSig));
        // publickey-kem with a boolean in front (a publickey-style request)
        byte[] withBool = new Manual().b(50).s("a").s("ssh-connection").s("publickey-kem").b(1).s("mlkem768").s(pk)
                .bytes();
        assertThrows(MalformedMessageException.class, () -> KemAuthRequest.decode(withBool));
    }

    @Test
    void constructorsEnforceMethodShape() {
        KemCredential cred = new KemCredential("mlkem768", pk(KemAlgorithm.MLKEM768));
        assertThrows(IllegalArgumentException.class, () -> KemAuthRequest.hybrid("a", "s", null, cred));
        assertThrows(IllegalStateException.class, () -> KemAuthRequest.kem("a", "s", cred)
                .hybridSignedData(new byte[32]));
    }

    /** Property: truncations, bit flips and random splices of valid messages only ever raise Malformed. */
    @Test
    void mutatedMessagesOnlyThrowMalformed() {
        byte[] pk = pk(KemAlgorithm.MLKEM512);
        KemCredential cred = new KemCredential("mlkem512", pk);
        byte[][] seeds = {KemAuthRequest.kem("alice", "ssh-connection", cred).encode(),
            KemAuthRequest.hybrid("alice", "ssh-connection", sig(), cred).encode(),
            new KemChallenge("mlkem512", pk, new byte[768]).encode(), KemResponse.encode(new byte[32])};
        for (long seed = 0; seed < 4_000; seed++) {
            Random rnd = new Random(seed);
            byte[] msg = seeds[rnd.nextInt(seeds.length)].clone();
            switch (rnd.nextInt(4)) {
                case 0 -> msg = Arrays.copyOf(msg, rnd.nextInt(msg.length));
                case 1 -> {
                    for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                        msg[rnd.nextInt(msg.length)] ^= (byte) (1 << rnd.nextInt(8));
                    }
                }
                case 2 -> {
                    // corrupt a length prefix near the front
                    int at = 1 + rnd.nextInt(Math.min(40, msg.length - 1));
                    msg[at] = (byte) rnd.nextInt(256);
                }
                default -> {
                    byte[] junk = new byte[rnd.nextInt(64)];
                    rnd.nextBytes(junk);
                    msg = concat(Arrays.copyOf(msg, rnd.nextInt(msg.length)), junk);
                }
            }
            decodeAll(msg, seed);
        }
        for (long seed = 0; seed < 4_000; seed++) {
            Random rnd = new Random(seed);
            byte[] msg = new byte[rnd.nextInt(200)];
            rnd.nextBytes(msg);
            if (msg.length > 0) {
                msg[0] = (byte) (50 + rnd.nextInt(12));
            }
            decodeAll(msg, seed);
        }
    }

    private static void decodeAll(byte[] msg, long seed) {
        try {
            KemAuthRequest.decode(msg);
        } catch (MalformedMessageException ok) {
            // expected
        } catch (RuntimeException e) {
            fail("request, seed " + seed + ": " + e, e);
        }
        try {
            KemChallenge.decode(msg);
        } catch (MalformedMessageException ok) {
            // expected
        } catch (RuntimeException e) {
            fail("challenge, seed " + seed + ": " + e, e);
        }
        try {
            KemResponse.decode(msg);
        } catch (MalformedMessageException ok) {
            // expected
        } catch (RuntimeException e) {
            fail("response, seed " + seed + ": " + e, e);
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
