package io.pqssh.mina.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.PublicKey;

import org.apache.sshd.common.config.keys.AuthorizedKeyEntry;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.PublicKeyEntryResolver;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.common.util.buffer.keys.BufferPublicKeyParser;
import org.junit.jupiter.api.Test;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/** The installation and its self-test, and every PQ type through MINA's public key paths. */
class MinaPqKeysTest {
    @Test
    void installsAndSelfTests() {
        MinaPqKeys.ensureInstalled();
        MinaPqKeys.ensureInstalled(); // idempotent
        MinaPqKeys.install(); // a second install must not stack a second parser
        MinaPqKeys.selfTest();
        assertTrue(BufferPublicKeyParser.DEFAULT.isKeyTypeSupported("ssh-ed25519"), "MINA's own types still parse");
        assertTrue(BufferPublicKeyParser.DEFAULT.isKeyTypeSupported("ssh-rsa"));
    }

    @Test
    void everyPqTypeRoundTripsThroughMinaEncodingsAndLines() throws Exception {
        MinaPqKeys.ensureInstalled();
        for (SignatureKeyType t : PqPublicKey.TYPES) {
            SshSigningKey k = SshSigningKey.generate(t, new java.security.SecureRandom());
            PqPublicKey pub = PqPublicKey.of(k.publicKey());
            ByteArrayBuffer b = new ByteArrayBuffer();
            b.putRawPublicKey(pub);
            assertEquals(java.util.HexFormat.of().formatHex(k.publicKeyBlob()),
                    java.util.HexFormat.of().formatHex(b.getCompactData()), t.sshName());
            PublicKey wire = new ByteArrayBuffer(k.publicKeyBlob()).getRawPublicKey();
            assertInstanceOf(PqPublicKey.class, wire);
            assertTrue(KeyUtils.compareKeys(pub, wire));
            assertEquals(k.publicKey().fingerprintSha256(), KeyUtils.getFingerPrint(pub), t.sshName());
            String line = PublicKeyEntry.toString(pub);
            assertEquals(k.publicKey().toOpenSsh(null), line, t.sshName());
            PublicKey fromLine = AuthorizedKeyEntry.parseAuthorizedKeyEntry(line + " c")
                    .resolvePublicKey(null, PublicKeyEntryResolver.FAILING);
            assertEquals(pub, fromLine);
            assertEquals(t.sshName(), BuiltinSignatures.resolveFactory(t.sshName()).getName());
            // signing through MINA's factory (the start-up self-test only verifies a known signature)
            byte[] data = ("signed through MINA by " + t.sshName()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            org.apache.sshd.common.signature.Signature signer = BuiltinSignatures.resolveFactory(t.sshName()).create();
            signer.initSigner(null, PqKeyPairs.keyPair(k).getPrivate());
            signer.update(null, data);
            byte[] raw = signer.sign(null);
            ByteArrayBuffer sig = new ByteArrayBuffer();
            sig.putString(t.sshName());
            sig.putBytes(raw);
            assertTrue(k.publicKey().verify(data, sig.getCompactData()), t.sshName() + ": MINA's signature verifies");
            org.apache.sshd.common.signature.Signature verifier = BuiltinSignatures.resolveFactory(t.sshName())
                    .create();
            verifier.initVerifier(null, fromLine);
            verifier.update(null, data);
            assertTrue(verifier.verify(null, sig.getCompactData()), t.sshName());
            k.destroy();
        }
    }
}
