package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import org.bouncycastle.crypto.params.MLDSAParameters;
import org.junit.jupiter.api.Test;

import io.pqssh.core.keys.PrivateKeyCodecs;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.sig.sshsig.SshSig;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/** Vectors made with OpenSSH 10.5p1 (copied from shared/vectors/openssh-10.5 into test resources). */
class OpenSshVectorsTest {
    private static final String DIR = "openssh-10.5/";
    private static final String COMPOSITE_FP = "SHA256:XKiBPIEcInULeoUBOG+Hx5IDPgsNx6b5TPRZNzx9YMM";
    private static final String ED25519_FP = "SHA256:Um0p5G4loNYqtlhYTlm7MWAOpPGvWzySqw5ZXbDkn8E";

    private static byte[] message() {
        return TestFiles.bytes(DIR + "message.txt");
    }

    private static SshPublicKey pub(String file) throws Exception {
        return SshPublicKey.parseOpenSsh(TestFiles.text(DIR + file));
    }

    @Test
    void fingerprintsMatchSshKeygen() throws Exception {
        SshPublicKey composite = pub("id_mldsa44_ed25519.pub");
        SshPublicKey ed = pub("id_ed25519.pub");
        assertEquals(SignatureKeyType.MLDSA44_ED25519, composite.type());
        assertEquals(SignatureKeyType.ED25519, ed.type());
        assertEquals(1383, composite.blob().length);
        assertEquals(COMPOSITE_FP, composite.fingerprintSha256());
        assertEquals(ED25519_FP, ed.fingerprintSha256());
        String line = TestFiles.text(DIR + "id_mldsa44_ed25519.pub").strip();
        assertEquals(line, composite.toOpenSsh(line.substring(line.lastIndexOf(' ') + 1)));
    }

    @Test
    void compositePrivateSectionDecodedByHand() throws Exception {
        TestFiles.PrivateSection ps = TestFiles.unencryptedPrivateSection(TestFiles.text(DIR + "id_mldsa44_ed25519"));
        assertEquals(ps.check1(), ps.check2());
        assertEquals("ssh-mldsa44-ed25519@openssh.com", ps.keyType());
        SshReader f = ps.fields();
        int start = f.position();
        byte[] pk = f.getString();
        byte[] sk = f.getString();
        int endOfKey = f.position();
        String comment = f.getUtf8();
        byte[] pad = f.getRaw(f.remaining());
        assertEquals("vector-mldsa44-ed25519", comment);
        for (int i = 0; i < pad.length; i++) {
            assertEquals(i + 1, pad[i]);
        }
        assertEquals(1344, pk.length);
        assertEquals(64, sk.length);
        // sk = ML-DSA-44 seed || Ed25519 seed: each half re-derives its half of the public key
        assertArrayEquals(Arrays.copyOf(pk, 1312),
                MlDsaScheme.publicFromSecret(MLDSAParameters.ml_dsa_44, Arrays.copyOf(sk, 32)));
        assertArrayEquals(Arrays.copyOfRange(pk, 1312, 1344),
                Ed25519Scheme.publicFromSeed(Arrays.copyOfRange(sk, 32, 64)));
        SshPublicKey filePub = pub("id_mldsa44_ed25519.pub");
        assertArrayEquals(filePub.rawKey(), pk);
        assertArrayEquals(filePub.blob(), ps.publicBlob());

        // the codec (through the ServiceLoader registry) reads the same fields and writes them back identically
        SshPrivateKey key = PrivateKeyCodecs.forType(ps.keyType()).orElseThrow()
                .readPrivateFields(ps.keyType(), new SshReader(ps.section(), start, endOfKey - start));
        assertArrayEquals(ps.publicBlob(), key.publicKeyBlob());
        SshWriter w = new SshWriter();
        key.writePrivateFields(w);
        assertArrayEquals(Arrays.copyOfRange(ps.section(), start, endOfKey), w.toByteArray());
    }

    @Test
    void ed25519PrivateSectionRoundTrips() throws Exception {
        TestFiles.PrivateSection ps = TestFiles.unencryptedPrivateSection(TestFiles.text(DIR + "id_ed25519"));
        assertEquals("ssh-ed25519", ps.keyType());
        int start = ps.fields().position();
        SshSigningKey key = (SshSigningKey) PrivateKeyCodecs.forType("ssh-ed25519").orElseThrow()
                .readPrivateFields("ssh-ed25519", ps.fields());
        int end = ps.fields().position();
        assertEquals("vector-ed25519", ps.fields().getUtf8());
        assertArrayEquals(ps.publicBlob(), key.publicKeyBlob());
        assertEquals(ED25519_FP, key.publicKey().fingerprintSha256());
        SshWriter w = new SshWriter();
        key.writePrivateFields(w);
        assertArrayEquals(Arrays.copyOfRange(ps.section(), start, end), w.toByteArray());
    }

    @Test
    void openSshSignaturesVerify() throws Exception {
        SshPublicKey composite = pub("id_mldsa44_ed25519.pub");
        SshPublicKey ed = pub("id_ed25519.pub");
        String edSig = TestFiles.text(DIR + "message.txt.ed25519.sig");
        String compSig = TestFiles.text(DIR + "message.txt.mldsa44-ed25519.sig");
        assertTrue(SshSig.verify(edSig, message(), "file", ed));
        assertTrue(SshSig.verify(compSig, message(), "file", composite));
        SshSig.Parsed p = SshSig.parse(compSig);
        assertEquals("sha512", p.hashAlgorithm());
        assertEquals(composite, p.publicKey());
        assertEquals(2523, p.signature().length);
        // wrong namespace, wrong message, wrong key
        assertFalse(SshSig.verify(compSig, message(), "git", composite));
        assertFalse(SshSig.verify(compSig, "other".getBytes(StandardCharsets.UTF_8), "file", composite));
        assertFalse(SshSig.verify(compSig, message(), "file", ed));
    }

    @Test
    void tamperedSignatureFails() throws Exception {
        SshPublicKey composite = pub("id_mldsa44_ed25519.pub");
        String bad = TestFiles.text(DIR + "message.txt.mldsa44-ed25519.tampered.sig");
        assertFalse(SshSig.verify(bad, message(), "file", composite));
    }

    @Test
    void compositeHalvesAreBoundToTheRepresentative() throws Exception {
        // Take OpenSSH's signature apart and check each half by itself against M' (as the formats file says).
        SshPublicKey composite = pub("id_mldsa44_ed25519.pub");
        SshSig.Parsed p = SshSig.parse(TestFiles.text(DIR + "message.txt.mldsa44-ed25519.sig"));
        byte[] raw = composite.type().scheme().decodeSignature(p.signature());
        byte[] digest = java.security.MessageDigest.getInstance("SHA-512").digest(message());
        byte[] signed = new SshWriter().putRaw("SSHSIG".getBytes(StandardCharsets.US_ASCII)).putString("file")
                .putString(new byte[0]).putString("sha512").putString(digest).toByteArray();
        byte[] m = CompositeMlDsa44Ed25519Scheme.representative(signed);
        byte[] pk = composite.rawKey();
        assertTrue(MlDsaScheme.verify(MLDSAParameters.ml_dsa_44, Arrays.copyOf(pk, 1312),
                CompositeMlDsa44Ed25519Scheme.LABEL, m, Arrays.copyOf(raw, 2420)));
        assertFalse(MlDsaScheme.verify(MLDSAParameters.ml_dsa_44, Arrays.copyOf(pk, 1312), null, m,
                Arrays.copyOf(raw, 2420)), "the ML-DSA half uses the label as context");
        assertTrue(Ed25519Scheme.verifyWith(Arrays.copyOfRange(pk, 1312, 1344), m,
                Arrays.copyOfRange(raw, 2420, 2484)));
    }

    @Test
    void vectorKeysSignAgainAndVerify() throws Exception {
        for (String file : new String[] {"id_ed25519", "id_mldsa44_ed25519"}) {
            TestFiles.PrivateSection ps = TestFiles.unencryptedPrivateSection(TestFiles.text(DIR + file));
            SshSigningKey key = (SshSigningKey) PrivateKeyCodecs.forType(ps.keyType()).orElseThrow()
                    .readPrivateFields(ps.keyType(), ps.fields());
            String sig = SshSig.sign(key, "file", message());
            assertTrue(SshSig.verify(sig, message(), "file", pub(file + ".pub")), file);
            byte[] data = "host key exchange hash".getBytes(StandardCharsets.UTF_8);
            byte[] blob = key.sign(data, new SecureRandom());
            assertTrue(Signatures.verify(key.publicKeyBlob(), data, blob));
            key.destroy();
        }
    }

    @Test
    void base64OfPubFileIsTheBlob() throws Exception {
        String line = TestFiles.text(DIR + "id_ed25519.pub");
        byte[] blob = Base64.getDecoder().decode(line.split(" ")[1]);
        assertArrayEquals(blob, Signatures.decodePublicKey(blob).blob());
    }
}
