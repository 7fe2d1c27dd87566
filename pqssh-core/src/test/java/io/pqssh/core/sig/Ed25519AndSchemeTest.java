package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/** The two Ed25519 "AND" composites: pqssh's layout (docs/lab-handshake.md), both halves required. */
class Ed25519AndSchemeTest {
    static final byte[] M = "the same message M for both halves".getBytes(StandardCharsets.UTF_8);
    static final byte[] M2 = "another message".getBytes(StandardCharsets.UTF_8);

    /** The standalone type of the second half. */
    static SignatureKeyType pqHalf(SignatureKeyType t) {
        return switch (t) {
            case ED25519_MLDSA_65 -> SignatureKeyType.MLDSA_65;
            case ED25519_SLHDSA_SHA2_192F -> SignatureKeyType.SLHDSA_SHA2_192F;
            default -> throw new IllegalArgumentException(t.name());
        };
    }

    static byte[] raw(byte[] sigBlob) throws MalformedMessageException {
        SshReader r = new SshReader(sigBlob);
        r.getUtf8();
        return r.getString();
    }

    static byte[] sigBlob(SignatureKeyType t, byte[] raw) {
        return new SshWriter().putString(t.sshName()).putString(raw).toByteArray();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"ED25519_MLDSA_65", "ED25519_SLHDSA_SHA2_192F"})
    void layoutIsTwoPlainSignaturesOverTheSameMessage(SignatureKeyType t) throws Exception {
        assertTrue(t.andComposite());
        assertEquals(t == SignatureKeyType.ED25519_MLDSA_65 ? 1984 : 80, t.publicKeySize());
        assertEquals(t == SignatureKeyType.ED25519_MLDSA_65 ? 3373 : 64 + 35664, t.signatureSize());
        SshSigningKey k = SignatureKeyTypeTest.key(t);
        byte[] pk = k.publicKey().rawKey();
        byte[] sig = k.sign(M);
        assertTrue(k.publicKey().verify(M, sig));
        byte[] s = raw(sig);
        assertEquals(t.signatureSize(), s.length);
        // each half on its own is an ordinary signature over M (no prefix, no context) under its own half of pk
        SshPublicKey ed = SshPublicKey.of(SignatureKeyType.ED25519, Arrays.copyOf(pk, 32));
        assertTrue(ed.verify(M, sigBlob(SignatureKeyType.ED25519, Arrays.copyOf(s, 64))));
        SignatureKeyType h = pqHalf(t);
        SshPublicKey pq = SshPublicKey.of(h, Arrays.copyOfRange(pk, 32, pk.length));
        assertTrue(pq.verify(M, sigBlob(h, Arrays.copyOfRange(s, 64, s.length))));
        assertFalse(k.publicKey().verify(M2, sig));
        // the other composite row and the plain types do not verify each other's blobs
        assertFalse(SignatureKeyType.ED25519.andComposite());
        assertFalse(SignatureKeyType.MLDSA44_ED25519.andComposite());
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"ED25519_MLDSA_65", "ED25519_SLHDSA_SHA2_192F"})
    void eitherHalfAloneIsNotEnough(SignatureKeyType t) throws Exception {
        SshSigningKey k = SignatureKeyTypeTest.key(t);
        SshPublicKey pub = k.publicKey();
        byte[] good = raw(k.sign(M));
        byte[] other = raw(k.sign(M2));
        // a flipped bit in the Ed25519 half, then in the PQ half (start, middle, end)
        for (int pos : new int[] {0, 31, 63, 64, 64 + (good.length - 64) / 2, good.length - 1}) {
            byte[] bad = good.clone();
            bad[pos] ^= 0x40;
            assertFalse(pub.verify(M, sigBlob(t, bad)), "bit flipped at " + pos);
        }
        // valid halves, but one of them over another message
        byte[] edWrong = concat(Arrays.copyOf(other, 64), Arrays.copyOfRange(good, 64, good.length));
        byte[] pqWrong = concat(Arrays.copyOf(good, 64), Arrays.copyOfRange(other, 64, other.length));
        assertFalse(pub.verify(M, sigBlob(t, edWrong)), "Ed25519 half over M2");
        assertFalse(pub.verify(M, sigBlob(t, pqWrong)), "PQ half over M2");
        // mixed halves verify under neither message
        assertFalse(pub.verify(M2, sigBlob(t, edWrong)));
        assertFalse(pub.verify(M2, sigBlob(t, pqWrong)));
        // a key whose Ed25519 half is another key's: the signature fails though its PQ half still matches
        byte[] pk = pub.rawKey();
        byte[] foreignEd = SignatureKeyTypeTest.otherKey(t).publicKey().rawKey();
        byte[] mixedPk = concat(Arrays.copyOf(foreignEd, 32), Arrays.copyOfRange(pk, 32, pk.length));
        assertFalse(SshPublicKey.of(t, mixedPk).verify(M, sigBlob(t, good)));
        byte[] mixedPk2 = concat(Arrays.copyOf(pk, 32), Arrays.copyOfRange(foreignEd, 32, foreignEd.length));
        assertFalse(SshPublicKey.of(t, mixedPk2).verify(M, sigBlob(t, good)));
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"ED25519_MLDSA_65", "ED25519_SLHDSA_SHA2_192F"})
    void wrongLengthsAreMalformed(SignatureKeyType t) throws Exception {
        SshSigningKey k = SignatureKeyTypeTest.key(t);
        byte[] pk = k.publicKey().rawKey();
        byte[] s = raw(k.sign(M));
        for (byte[] p : new byte[][] {Arrays.copyOf(pk, pk.length - 1), Arrays.copyOf(pk, pk.length + 1),
                Arrays.copyOf(pk, 32), new byte[0]}) {
            byte[] blob = new SshWriter().putString(t.sshName()).putString(p).toByteArray();
            MalformedMessageException e = assertThrows(MalformedMessageException.class,
                    () -> Signatures.decodePublicKey(blob));
            assertTrue(e.getMessage().contains("public key must be 32 + "), e.getMessage());
        }
        for (byte[] x : new byte[][] {Arrays.copyOf(s, s.length - 1), Arrays.copyOf(s, s.length + 1),
                Arrays.copyOf(s, 64), Arrays.copyOfRange(s, 64, s.length)}) {
            MalformedMessageException e = assertThrows(MalformedMessageException.class,
                    () -> k.publicKey().verify(M, sigBlob(t, x)));
            assertTrue(e.getMessage().contains("signature must be 64 + "), e.getMessage());
        }
        // private section: the secret must be the Ed25519 seed then the whole PQ secret
        SshWriter w = new SshWriter();
        k.writePrivateFields(w);
        SshReader r = new SshReader(w.toByteArray());
        byte[] fpk = r.getString();
        byte[] sk = r.getString();
        assertArrayEquals(pk, fpk);
        assertEquals(t == SignatureKeyType.ED25519_MLDSA_65 ? 64 : 128, sk.length);
        for (byte[] bad : new byte[][] {Arrays.copyOf(sk, sk.length - 1), Arrays.copyOf(sk, sk.length + 1),
                Arrays.copyOf(sk, 32)}) {
            byte[] f = new SshWriter().putString(fpk).putString(bad).toByteArray();
            MalformedMessageException e = assertThrows(MalformedMessageException.class,
                    () -> t.scheme().readPrivateKey(t.sshName(), new SshReader(f)));
            assertTrue(e.getMessage().contains("secret must be"), e.getMessage());
        }
        // the Ed25519 seed belongs to the pk's first half: a changed seed is a mismatch
        byte[] changed = sk.clone();
        changed[0] ^= 1;
        byte[] f = new SshWriter().putString(fpk).putString(changed).toByteArray();
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> t.scheme().readPrivateKey(t.sshName(), new SshReader(f)));
        assertTrue(e.getMessage().contains("does not match"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"ED25519_MLDSA_65", "ED25519_SLHDSA_SHA2_192F"})
    void opensshKeyV1AndPublicKeyLineRoundTrip(SignatureKeyType t) throws Exception {
        SshSigningKey k = SshSigningKey.generate(t, new SecureRandom());
        for (char[] pass : new char[][] {null, "composite pass".toCharArray()}) {
            String armored = OpenSshKeyV1.write(k, "user@lab", pass, 4, new SecureRandom());
            assertTrue(armored.startsWith(OpenSshKeyV1.BEGIN));
            assertArrayEquals(k.publicKeyBlob(), OpenSshKeyV1.publicKeyBlob(armored));
            OpenSshPrivateKey back = OpenSshKeyV1.read(armored, pass);
            assertEquals("user@lab", back.comment());
            SshSigningKey bk = (SshSigningKey) back.key();
            assertEquals(t, bk.type());
            assertArrayEquals(k.publicKeyBlob(), bk.publicKeyBlob());
            assertArrayEquals(k.exportSecret(), bk.exportSecret());
            assertTrue(k.publicKey().verify(M, bk.sign(M)));
        }
        PublicKeyLine line = PublicKeyLine.of(k.publicKeyBlob(), "c");
        assertTrue(line.format().startsWith(t.sshName() + " "), line.format());
        PublicKeyLine parsed = PublicKeyLine.parse(line.format());
        assertArrayEquals(k.publicKeyBlob(), parsed.blob());
        assertEquals(k.publicKey().fingerprintSha256(), parsed.fingerprint());
        assertEquals(k.publicKey(), SshPublicKey.parseOpenSsh(line.format()));
    }
}
