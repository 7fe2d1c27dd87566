package io.pqssh.mina;

import static io.pqssh.mina.LoginFixture.authorize;
import static io.pqssh.mina.LoginFixture.client;
import static io.pqssh.mina.LoginFixture.kem;
import static io.pqssh.mina.LoginFixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.kex.KexProposalOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/** Successful logins over loopback with KEX mlkem768x25519-sha256. */
class KemLoginTest {
    private static final Duration T = Duration.ofSeconds(20);

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void publickeyKemLogsInAndRunsCommand(KemAlgorithm alg) throws Exception {
        KemKeyPair key = kem(alg);
        KemServerSettings kem = KemServerSettings.builder().allowedAlgorithms(EnumSet.allOf(KemAlgorithm.class))
                .authorizer(authorize(key)).build();
        try (PqsshServer srv = server().kem(kem).start();
                PqsshClient cli = client().kemIdentity(KemClientIdentity.of(key)).start();
                ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
            assertEquals("mlkem768x25519-sha256", s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS));
            assertEquals("hello\n", PqsshClient.execToString(s, "echo hello", T));
            assertEquals(3, PqsshClient.exec(s, "exit 3", System.out, System.err, T));
        }
    }

    @Test
    void researchSpellingOfAlgIsAccepted() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(key)).build();
        try (PqsshServer srv = server().kem(kem).start();
                PqsshClient cli = client().kemIdentity(new KemClientIdentity(key, "ML-KEM-768", null)).start();
                ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
        }
    }

    @Test
    void hybridSignatureAndKem() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        KeyPair sig = LoginFixture.ed25519();
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(key)).build();
        try (PqsshServer srv = server().kem(kem)
                .publickey((u, k, sess) -> "alice".equals(u) && k.equals(sig.getPublic()))
                .authenticationMethods("publickey-kem-and").start();
                PqsshClient cli = client().kemIdentity(new KemClientIdentity(key, null, sig)).start();
                ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
            assertEquals("ok\n", PqsshClient.execToString(s, "echo ok", T));
        }
    }

    @Test
    void hybridWithUnauthorizedSignatureKeyFails() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        KeyPair sig = LoginFixture.ed25519();
        KeyPair other = LoginFixture.ed25519();
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(key)).build();
        try (PqsshServer srv = server().kem(kem)
                .publickey((u, k, sess) -> k.equals(other.getPublic()))
                .authenticationMethods("publickey-kem-and").start();
                PqsshClient cli = client().kemIdentity(new KemClientIdentity(key, null, sig)).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(srv);
            assertThrows(Exception.class, () -> cli.login("alice", "127.0.0.1", srv.port()));
            assertFalse(w.anyAuthenticated());
        }
    }

    @Test
    void multiStepPublickeyThenKem() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        KeyPair sig = LoginFixture.ed25519();
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(key)).build();
        try (PqsshServer srv = server().kem(kem)
                .publickey((u, k, sess) -> "alice".equals(u) && k.equals(sig.getPublic()))
                .authenticationMethods("publickey,publickey-kem").start();
                PqsshClient cli = client().kemIdentity(KemClientIdentity.of(key)).identity(sig).start();
                ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
        }
    }

    @Test
    void multiStepFailsWhenSecondStepKeyUnknown() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        KeyPair sig = LoginFixture.ed25519();
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(kem(KemAlgorithm.MLKEM768)))
                .build();
        try (PqsshServer srv = server().kem(kem)
                .publickey((u, k, sess) -> k.equals(sig.getPublic()))
                .authenticationMethods("publickey,publickey-kem").start();
                PqsshClient cli = client().kemIdentity(KemClientIdentity.of(key)).identity(sig).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(srv);
            assertThrows(Exception.class, () -> cli.login("alice", "127.0.0.1", srv.port()));
            assertFalse(w.anyAuthenticated());
        }
    }

    @Test
    void plainPublickeyAndPassword() throws Exception {
        KeyPair sig = LoginFixture.ed25519();
        try (PqsshServer srv = server()
                .publickey((u, k, sess) -> k.equals(sig.getPublic()))
                .password((u, p, sess) -> "alice".equals(u) && "s3cret".equals(p)).start()) {
            try (PqsshClient cli = client().identity(sig).start();
                    ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
                assertTrue(s.isAuthenticated());
            }
            try (PqsshClient cli = client().password("s3cret").start();
                    ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
                assertTrue(s.isAuthenticated());
            }
            try (PqsshClient cli = client().password("wrong").start()) {
                ServerSessionWatch w = ServerSessionWatch.on(srv);
                assertThrows(Exception.class, () -> cli.login("alice", "127.0.0.1", srv.port()));
                assertFalse(w.anyAuthenticated());
            }
        }
    }

    @Test
    void kemFailureFallsBackToPassword() throws Exception {
        KemKeyPair unauthorized = kem(KemAlgorithm.MLKEM768);
        KemServerSettings kem = KemServerSettings.builder().authorizer((u, c, a) -> false).build();
        try (PqsshServer srv = server().kem(kem).password((u, p, sess) -> "pw".equals(p)).start();
                PqsshClient cli = client().kemIdentity(KemClientIdentity.of(unauthorized)).password("pw").start();
                ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
        }
    }

    @Test
    void requirePostQuantumKexRefusesClassicalServer() throws Exception {
        KeyPair sig = LoginFixture.ed25519();
        try (PqsshServer srv = server().kex(List.of("curve25519-sha256"))
                .publickey((u, k, sess) -> true).start();
                PqsshClient cli = client().identity(sig).requirePostQuantumKex(true).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(srv);
            PqsshClient.PostQuantumRequiredException e = assertThrows(
                    PqsshClient.PostQuantumRequiredException.class,
                    () -> cli.login("alice", "127.0.0.1", srv.port()));
            assertTrue(e.getMessage().contains("curve25519-sha256"), e.getMessage());
            assertFalse(w.anyAuthenticated());
        }
    }

    @Test
    void classicalKexWarnsUnlessRequired() throws Exception {
        KeyPair sig = LoginFixture.ed25519();
        List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (PqsshServer srv = server().kex(List.of("curve25519-sha256"))
                .publickey((u, k, sess) -> true).start();
                PqsshClient cli = client().identity(sig).warningSink(warnings::add).start();
                ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("post-quantum"));
        }
    }
}
