package io.pqssh.mina.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.util.List;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.signature.Signature;
import org.junit.jupiter.api.Test;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.mina.LoopbackClient;
import io.pqssh.mina.LoopbackServer;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;

/** In-memory key generation of {@link PqKeyPairs}: every signature type signs for MINA, and the keys log in. */
class PqKeyPairsTest {
    @Test
    void everySignatureTypeGeneratesAKeyMinaSignsWith() throws Exception {
        MinaPqKeys.ensureInstalled();
        byte[] data = "pqssh".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (SignatureKeyType t : SignatureKeyType.values()) {
            KeyPair kp = PqKeyPairs.generate(t);
            assertEquals(t.sshName(), KeyUtils.getKeyType(kp.getPublic()), t.name());
            KeyPair other = PqKeyPairs.generate(t);
            assertFalse(KeyUtils.compareKeys(kp.getPublic(), other.getPublic()), t + ": two calls, one key");
            Signature s = t == SignatureKeyType.ED25519
                    ? org.apache.sshd.common.signature.BuiltinSignatures.ed25519.create()
                    : PqSignatureFactories.byName().get(t.sshName()).create();
            s.initSigner(null, kp.getPrivate());
            s.update(null, data);
            // on the wire as SSH sends it: string name, string raw signature
            org.apache.sshd.common.util.buffer.ByteArrayBuffer sig = new org.apache.sshd.common.util.buffer
                    .ByteArrayBuffer();
            sig.putString(t.sshName());
            sig.putBytes(s.sign(null));
            s.initVerifier(null, kp.getPublic());
            s.update(null, data);
            assertTrue(s.verify(null, sig.getCompactData()), t.name());
            s.initVerifier(null, other.getPublic());
            s.update(null, data);
            assertFalse(s.verify(null, sig.getCompactData()), t + ": verified with another key");
        }
    }

    @Test
    void everyMlKemSizeAndClearErrors() {
        for (KemAlgorithm a : KemAlgorithm.values()) {
            KemKeyPair k = PqKeyPairs.generateKem(a);
            assertEquals(a, k.algorithm());
            assertEquals(a.publicKeyBytes(), k.publicKey().length);
        }
        assertEquals("type", assertThrows(NullPointerException.class, () -> PqKeyPairs.generate(null)).getMessage());
        assertEquals("algorithm",
                assertThrows(NullPointerException.class, () -> PqKeyPairs.generateKem(null)).getMessage());
    }

    /** The three keys of docs/embedding.md's snippet: a PQ host key, a PQ user key and an ML-KEM identity. */
    @Test
    void generatedHostUserAndKemKeysLogIn() throws Exception {
        KeyPair host = PqKeyPairs.generate(SignatureKeyType.MLDSA_65);
        KeyPair user = PqKeyPairs.generate(SignatureKeyType.MLDSA_44);
        KemKeyPair kem = PqKeyPairs.generateKem(KemAlgorithm.MLKEM768);
        KemServerSettings settings = KemServerSettings.builder()
                .authorizer((u, c, a) -> c.samePublicKey(kem.publicKey())).build();
        try (LoopbackServer srv = LoopbackServer.builder().hostKeys(PqKeyPairProvider.of(List.of(host)))
                .publickey((u, k, s) -> KeyUtils.compareKeys(k, user.getPublic())).kem(settings).start()) {
            try (LoopbackClient cli = LoopbackClient.builder().identity(user).start();
                    ClientSession s = cli.login("dave", srv.port())) {
                assertEquals("ssh-mldsa-65", s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
                assertTrue(KeyUtils.compareKeys(host.getPublic(), s.getServerKey()));
            }
            try (LoopbackClient cli = LoopbackClient.builder().kemIdentity(KemClientIdentity.of(kem)).start();
                    ClientSession s = cli.login("dave", srv.port())) {
                assertTrue(s.isAuthenticated());
            }
        }
    }
}
