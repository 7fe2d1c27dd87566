package io.pqssh.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.List;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.core.CoreModuleProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.auth.KemKeyAuthorizer;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;

/**
 * {@code publickey-kem} and {@code publickey-kem-and} logins between plain MINA peers with {@link Pqssh#install}
 * (the library alone; this class also runs in the Java 17 execution).
 */
class KemLoginTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    static KemKeyPair kem(KemAlgorithm a) {
        return MlKem.generate(a, RANDOM);
    }

    /** Authorizes exactly {@code key} for user "alice". */
    static KemKeyAuthorizer authorize(KemKeyPair key) {
        return (user, c, addr) -> "alice".equals(user) && c.samePublicKey(key.publicKey());
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void publickeyKemLogsInWithEveryMlKemSize(KemAlgorithm alg) throws Exception {
        KemKeyPair key = kem(alg);
        KemServerSettings kem = KemServerSettings.builder().allowedAlgorithms(EnumSet.allOf(KemAlgorithm.class))
                .authorizer(authorize(key)).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).start();
                LoopbackClient cli = LoopbackClient.builder().kemIdentity(KemClientIdentity.of(key)).start();
                ClientSession s = cli.login("alice", srv.port())) {
            assertTrue(s.isAuthenticated());
            assertEquals("mlkem768x25519-sha256", s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS));
            assertEquals("hello\n", cli.exec(s, "hello"));
        }
    }

    @Test
    void researchSpellingOfAlgIsAccepted() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(key)).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).start();
                LoopbackClient cli = LoopbackClient.builder()
                        .kemIdentity(new KemClientIdentity(key, "ML-KEM-768", null)).start();
                ClientSession s = cli.login("alice", srv.port())) {
            assertTrue(s.isAuthenticated());
        }
    }

    @Test
    void unauthorizedKemKeyIsRefused() throws Exception {
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(kem(KemAlgorithm.MLKEM768))).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).start();
                LoopbackClient cli = LoopbackClient.builder()
                        .kemIdentity(KemClientIdentity.of(kem(KemAlgorithm.MLKEM768))).start()) {
            assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
            assertFalse(srv.anyAuthenticated());
        }
    }

    /** A server that offers only {@code publickey-kem-and}, with the signature half checked by {@code publickey}. */
    private static LoopbackServer kemAndServer(KemKeyPair key, KeyPair allowedSig) throws Exception {
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(key)).build();
        LoopbackServer srv = LoopbackServer.builder().kem(kem)
                .publickey((u, k, sess) -> "alice".equals(u) && KeyUtils.compareKeys(k, allowedSig.getPublic()))
                .only("publickey-kem-and").start();
        assertEquals(List.of("publickey-kem-and"), srv.sshd().getUserAuthFactories().stream()
                .map(f -> f.getName()).toList());
        return srv;
    }

    @Test
    void publickeyKemAndNeedsTheKemKeyAndTheSignatureKey() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        KeyPair sig = TestKeys.ed25519();
        try (LoopbackServer srv = kemAndServer(key, sig);
                LoopbackClient cli = LoopbackClient.builder().kemIdentity(new KemClientIdentity(key, null, sig))
                        .start();
                ClientSession s = cli.login("alice", srv.port())) {
            assertTrue(s.isAuthenticated());
            assertEquals("ok\n", cli.exec(s, "ok"));
        }
    }

    @Test
    void publickeyKemAndWithAnUnauthorizedSignatureKeyFails() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        try (LoopbackServer srv = kemAndServer(key, TestKeys.ed25519());
                LoopbackClient cli = LoopbackClient.builder()
                        .kemIdentity(new KemClientIdentity(key, null, TestKeys.ed25519())).start()) {
            assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
            assertFalse(srv.anyAuthenticated());
        }
    }

    @Test
    void publickeyKemAndWithoutASignatureKeyFails() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        try (LoopbackServer srv = kemAndServer(key, TestKeys.ed25519());
                LoopbackClient cli = LoopbackClient.builder().kemIdentity(KemClientIdentity.of(key)).start()) {
            assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
            assertFalse(srv.anyAuthenticated());
        }
    }

    @Test
    void kemFailureFallsBackToTheApplicationsPassword() throws Exception {
        KemServerSettings kem = KemServerSettings.builder().authorizer((u, c, a) -> false).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).password((u, p, sess) -> "pw".equals(p)).start();
                LoopbackClient cli = LoopbackClient.builder()
                        .kemIdentity(KemClientIdentity.of(kem(KemAlgorithm.MLKEM768))).password("pw").start();
                ClientSession s = cli.login("alice", srv.port())) {
            assertTrue(s.isAuthenticated());
        }
    }

    @Test
    void clientPreferredAuthsCanAskForPublickeyKemAlone() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(key)).build();
        try (LoopbackServer srv = LoopbackServer.builder().kem(kem).password((u, p, sess) -> true).start();
                LoopbackClient cli = LoopbackClient.builder().kemIdentity(KemClientIdentity.of(key)).start()) {
            CoreModuleProperties.PREFERRED_AUTHS.set(cli.sshClient(), "publickey-kem");
            try (ClientSession s = cli.login("alice", srv.port())) {
                assertTrue(s.isAuthenticated());
            }
        }
        try (LoopbackServer srv = LoopbackServer.builder().password((u, p, sess) -> true).start();
                LoopbackClient cli = LoopbackClient.builder().kemIdentity(KemClientIdentity.of(key)).password("x")
                        .start()) {
            CoreModuleProperties.PREFERRED_AUTHS.set(cli.sshClient(), "publickey-kem");
            // the server has no publickey-kem: with only that method preferred, the password is never tried
            assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
            assertFalse(srv.anyAuthenticated());
        }
    }
}
