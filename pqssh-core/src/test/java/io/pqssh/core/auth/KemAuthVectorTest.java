package io.pqssh.core.auth;

import static io.pqssh.core.auth.TestVectors.HEX;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

import org.bouncycastle.crypto.SecretWithEncapsulation;
import org.bouncycastle.crypto.kems.MLKEMGenerator;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.params.MLKEMPublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.pqssh.core.auth.TestVectors.FixedRandom;
import io.pqssh.core.auth.TestVectors.Manual;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.wire.SshReader;

/** Recomputes every committed vector byte for byte through pqssh's code and through independent code. */
class KemAuthVectorTest {

    static String text(Map<String, byte[]> v, String k) {
        return new String(v.get(k), StandardCharsets.UTF_8);
    }

    static KemAuthRequest request(Map<String, byte[]> v) {
        KemCredential cred = new KemCredential(text(v, "alg"), v.get("pk"));
        if (text(v, "method").equals("publickey-kem-and")) {
            return KemAuthRequest.hybrid(text(v, "user"), text(v, "service"), new KemAuthRequest.SignaturePart(
                    text(v, "sig_alg"), v.get("sig_key_blob"), v.get("signature")), cred);
        }
        return KemAuthRequest.kem(text(v, "user"), text(v, "service"), cred);
    }

    @ParameterizedTest
    @ValueSource(strings = {"kemuauth-mlkem512.txt", "kemuauth-mlkem768.txt", "kemuauth-mlkem1024.txt",
            "kemuauth-ML-KEM-768.txt", "kemuauth-mlkem768-and.txt"})
    void vectorRecomputesByteForByte(String file) throws Exception {
        Map<String, byte[]> v = TestVectors.load(file);
        KemAlgorithm a = KemAlgorithm.require(text(v, "alg"));
        String alg = text(v, "alg");
        String method = text(v, "method");
        byte[] pk = v.get("pk");
        byte[] ct = v.get("ct");
        byte[] ss = v.get("ss");
        byte[] sid = v.get("sid");

        // sizes (FIPS 203 table 3)
        assertEquals(64, v.get("seed").length);
        assertEquals(a.publicKeyBytes(), pk.length);
        assertEquals(a.ciphertextBytes(), ct.length);
        assertEquals(32, ss.length);
        assertEquals(32, v.get("m").length);
        assertEquals(32, v.get("response").length);

        // key generation from the seed
        KemKeyPair kp = MlKem.fromSeed(a, v.get("seed"));
        assertArrayEquals(pk, kp.publicKey());

        // deterministic encapsulation with m, and decapsulation back to ss
        SecretWithEncapsulation enc = MLKEMGenerator.internalGenerateEncapsulated(
                new MLKEMPublicKeyParameters(TestVectors.bc(a), pk), v.get("m"));
        assertArrayEquals(ct, enc.getEncapsulation());
        assertArrayEquals(ss, enc.getSecret());
        assertArrayEquals(ss, kp.decapsulate(ct));

        // messages
        KemAuthRequest req = request(v);
        KemChallenge ch = new KemChallenge(alg, pk, ct);
        assertArrayEquals(v.get("request"), req.encode());
        assertArrayEquals(v.get("challenge"), ch.encode());
        assertArrayEquals(v.get("response_msg"), KemResponse.encode(v.get("response")));
        KemAuthRequest decoded = KemAuthRequest.decode(v.get("request"));
        assertEquals(method, decoded.method().wireName());
        assertEquals(alg, decoded.credential().alg());
        assertArrayEquals(v.get("request"), decoded.encode());
        KemChallenge decodedCh = KemChallenge.decode(v.get("challenge"));
        assertEquals(alg, decodedCh.alg());
        assertArrayEquals(ct, decodedCh.ciphertext());
        assertArrayEquals(v.get("response"), KemResponse.decode(v.get("response_msg")));

        // CTX: independent hand assembly == file == AuthContext
        byte[] manualCtx = TestVectors.manualCtx(text(v, "user"), text(v, "service"), method, alg, pk, alg, pk, ct);
        assertArrayEquals(manualCtx, v.get("ctx"), "hand-assembled CTX differs from the file");
        assertArrayEquals(v.get("ctx"), AuthContext.encode(req, ch));
        assertArrayEquals(v.get("ctx"), AuthContext.encode(decoded, decodedCh));
        // CTX is exactly the request payload (minus the hybrid signature fields) followed by the challenge payload
        if (method.equals("publickey-kem")) {
            assertArrayEquals(concat(v.get("request"), v.get("challenge")), v.get("ctx"));
        }

        // response: javax.crypto.Mac == file == ResponseDerivation == the whole client path
        assertArrayEquals(TestVectors.jdkResponse(ss, sid, v.get("ctx")), v.get("response"));
        assertArrayEquals(v.get("response"), ResponseDerivation.derive(ss, sid, v.get("ctx")));
        assertArrayEquals(v.get("response"), KemAuthClient.respond(sid, decoded, decodedCh, kp));
        assertArrayEquals(v.get("response"), KemAuthClient.respond(sid, decoded, decodedCh,
                MlKem.fromExpanded(a, kp.expandedSecretKey())));

        // the whole server path, with m fed as the server's randomness
        FixedRandom rnd = new FixedRandom(v.get("m"));
        KemAuthServer.IssuedChallenge issued = new KemAuthServer(rnd).issue(sid, decoded);
        assertTrue(rnd.exhausted(), "server encapsulation must draw exactly the 32-byte m");
        assertArrayEquals(v.get("challenge"), issued.challenge().encode());
        assertEquals(alg, issued.pending().alg());
        assertEquals(method, issued.pending().method().wireName());
        assertTrue(issued.pending().verify(v.get("response")));
    }

    @Test
    void hybridSignedDataAndSignature() throws Exception {
        Map<String, byte[]> v = TestVectors.load("kemuauth-mlkem768-and.txt");
        byte[] sid = v.get("sid");
        byte[] pk = v.get("pk");
        Ed25519PrivateKeyParameters sk = new Ed25519PrivateKeyParameters(v.get("sig_seed"));
        byte[] edPk = sk.generatePublicKey().getEncoded();
        byte[] keyBlob = new Manual().s("ssh-ed25519").s(edPk).bytes();
        assertArrayEquals(keyBlob, v.get("sig_key_blob"));

        byte[] manual = new Manual().s(sid).b(50).s("alice").s("ssh-connection").s("publickey-kem-and").b(1)
                .s("ssh-ed25519").s(keyBlob).s("mlkem768").s(pk).bytes();
        assertArrayEquals(manual, v.get("signed_data"));
        KemCredential cred = new KemCredential("mlkem768", pk);
        assertArrayEquals(manual, KemAuthRequest.hybridSignedData(sid, "alice", "ssh-connection", "ssh-ed25519",
                keyBlob, cred));
        KemAuthRequest req = KemAuthRequest.decode(v.get("request"));
        assertArrayEquals(manual, req.hybridSignedData(sid));
        assertEquals("ssh-ed25519", req.signature().orElseThrow().algorithm());
        assertArrayEquals(v.get("signature"), req.signature().orElseThrow().signature());

        // the signature blob is string "ssh-ed25519", string sig(64), and it verifies over signed_data
        SshReader r = new SshReader(v.get("signature"));
        assertEquals("ssh-ed25519", r.getUtf8());
        byte[] sig = r.getString();
        r.expectEnd("sig");
        assertEquals(64, sig.length);
        Ed25519Signer verifier = new Ed25519Signer();
        verifier.init(false, new Ed25519PublicKeyParameters(edPk));
        verifier.update(manual, 0, manual.length);
        assertTrue(verifier.verifySignature(sig));

        // request field order: signature fields come before the KEM fields
        byte[] expectedRequest = new Manual().b(50).s("alice").s("ssh-connection").s("publickey-kem-and").b(1)
                .s("ssh-ed25519").s(keyBlob).s(v.get("signature")).s("mlkem768").s(pk).bytes();
        assertArrayEquals(expectedRequest, v.get("request"));
    }

    @Test
    void methodAndAlgSpellingEnterCtx() {
        Map<String, byte[]> plain = TestVectors.load("kemuauth-mlkem768.txt");
        Map<String, byte[]> fips = TestVectors.load("kemuauth-ML-KEM-768.txt");
        Map<String, byte[]> and = TestVectors.load("kemuauth-mlkem768-and.txt");
        // same key, ciphertext and secret ...
        for (String k : new String[] {"pk", "ct", "ss", "sid"}) {
            assertArrayEquals(plain.get(k), fips.get(k), k);
            assertArrayEquals(plain.get(k), and.get(k), k);
        }
        // ... but the exact alg string and the method name make different transcripts and responses
        byte[] fipsCtx = fips.get("ctx");
        assertEquals(plain.get("ctx").length + 2 * ("ML-KEM-768".length() - "mlkem768".length()), fipsCtx.length);
        assertTrue(indexOf(fipsCtx, new Manual().s("ML-KEM-768").bytes()) > 0);
        assertEquals(-1, indexOf(fipsCtx, "mlkem768".getBytes(StandardCharsets.US_ASCII)));
        assertTrue(indexOf(and.get("ctx"), new Manual().s("publickey-kem-and").bytes()) > 0);
        assertFalse(Arrays.equals(plain.get("response"), fips.get("response")));
        assertFalse(Arrays.equals(plain.get("response"), and.get("response")));
        // the hybrid CTX carries no signature field
        assertEquals(-1, indexOf(and.get("ctx"), and.get("sig_key_blob")));
        assertEquals(plain.get("ctx").length + 4, and.get("ctx").length);
    }

    @Test
    void ctxLayoutOffsets() {
        Map<String, byte[]> v = TestVectors.load("kemuauth-mlkem768.txt");
        byte[] ctx = v.get("ctx");
        // 1 + (4+5) + (4+14) + (4+13) + (4+8) + (4+1184) + 1 + (4+8) + (4+1184) + (4+1088)
        assertEquals(3538, ctx.length);
        assertEquals(50, ctx[0]);
        int secondHalf = 1 + 9 + 18 + 17 + 12 + 1188;
        assertEquals(60, ctx[secondHalf]);
        assertEquals("3c000000086d6c6b656d373638000004a0", HEX.formatHex(ctx, secondHalf, secondHalf + 17));
        assertEquals("00000440", HEX.formatHex(ctx, ctx.length - 1092, ctx.length - 1088));
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
