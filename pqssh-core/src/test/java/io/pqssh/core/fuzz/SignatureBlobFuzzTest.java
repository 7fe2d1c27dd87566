package io.pqssh.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.sig.Signatures;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * Public-key and signature blob decoders of every type (ssh-ed25519, ML-DSA, composite, SLH-DSA, Falcon; ML-KEM
 * public key blobs). Contract: {@link MalformedMessageException} (signature types) or {@link KeyFileException}
 * (ML-KEM blobs) for bad input, never another exception; a blob that decodes re-encodes to the same bytes.
 */
class SignatureBlobFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void publicKey(byte[] blob) {
        SshPublicKey k;
        try {
            k = Signatures.decodePublicKey(blob);
        } catch (MalformedMessageException e) {
            assertNotNull(e.getMessage());
            return;
        }
        assertArrayEquals(blob, k.blob(), "decode/encode must round-trip");
        assertEquals(k.type().publicKeySize(), k.rawKey().length);
    }

    @FuzzTest(maxDuration = "30s")
    void kemPublicKey(byte[] blob) {
        KemPublicKey k;
        try {
            k = KemPublicKey.fromBlob(blob);
        } catch (KeyFileException e) {
            assertNotNull(e.getMessage());
            return;
        }
        assertEquals(k.algorithm().publicKeyBytes(), k.raw().length);
    }

    /**
     * Input framing (test-only): {@code string public_key_blob, string signature_blob, byte[] data}. Seeds are
     * valid signatures of each type, so mutations reach the signature decoders and the verifiers.
     */
    @FuzzTest(maxDuration = "30s")
    void verify(byte[] input) {
        byte[] pk;
        byte[] sig;
        byte[] data;
        try {
            SshReader r = new SshReader(input);
            pk = r.getString();
            sig = r.getString();
            data = r.getRaw(r.remaining());
        } catch (MalformedMessageException e) {
            return; // not in the harness's framing: nothing to test
        }
        try {
            Signatures.verify(pk, data, sig);
        } catch (MalformedMessageException e) {
            assertNotNull(e.getMessage());
        }
    }
}
