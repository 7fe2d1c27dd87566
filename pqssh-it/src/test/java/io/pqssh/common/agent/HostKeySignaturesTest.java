package io.pqssh.common.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;

import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.Test;

import io.pqssh.core.agent.SessionBindings;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/**
 * The session-bind signature check {@code pqssh agent} uses: host keys of every type an sshd may present (ECDSA and
 * RSA through MINA, Ed25519 and pqssh's types through pqssh-core) verify; another key's or another session's
 * signature does not.
 */
class HostKeySignaturesTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final SessionBindings.HostKeyVerifier verifier = new HostKeySignatures();
    private final byte[] sid = "session identifier H".getBytes(StandardCharsets.US_ASCII);

    private static byte[] blob(KeyPair kp) {
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putRawPublicKey(kp.getPublic());
        return b.getCompactData();
    }

    /** The signature blob an sshd puts in its KEX reply: string alg, string signature. */
    private static byte[] sign(BuiltinSignatures alg, KeyPair kp, byte[] data) throws Exception {
        Signature s = alg.create();
        s.initSigner(null, kp.getPrivate());
        s.update(null, data);
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putString(alg.getName());
        b.putBytes(s.sign(null));
        return b.getCompactData();
    }

    private static KeyPair ec() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return g.generateKeyPair();
    }

    private static KeyPair rsa() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048, RANDOM);
        return g.generateKeyPair();
    }

    @Test
    void ecdsaAndRsaHostKeysVerifyThroughMina() throws Exception {
        KeyPair ec = ec();
        assertTrue(verifier.verify(blob(ec), sid, sign(BuiltinSignatures.nistp256, ec, sid)));
        assertFalse(verifier.verify(blob(ec()), sid, sign(BuiltinSignatures.nistp256, ec, sid)), "another key");
        assertFalse(verifier.verify(blob(ec), "other".getBytes(StandardCharsets.US_ASCII),
                sign(BuiltinSignatures.nistp256, ec, sid)), "another session");
        KeyPair rsa = rsa();
        assertTrue(verifier.verify(blob(rsa), sid, sign(BuiltinSignatures.rsaSHA512, rsa, sid)));
        assertTrue(verifier.verify(blob(rsa), sid, sign(BuiltinSignatures.rsaSHA256, rsa, sid)));
        assertFalse(verifier.verify(blob(rsa), sid, sign(BuiltinSignatures.rsaSHA256, rsa(), sid)));
        assertFalse(verifier.verify(blob(rsa), sid, new byte[] {0, 0, 0, 1, 'x'}), "garbage signature");
    }

    @Test
    void pqsshTypesVerifyThroughPqsshCore() {
        SshSigningKey host = SshSigningKey.generate(SignatureKeyType.MLDSA_65, RANDOM);
        assertTrue(verifier.verify(host.publicKeyBlob(), sid, host.sign(sid)));
        SshSigningKey other = SshSigningKey.generate(SignatureKeyType.ED25519, RANDOM);
        assertFalse(verifier.verify(host.publicKeyBlob(), sid, other.sign(sid)));
    }
}
