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
import java.util.List;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.kex.KexProposalOption;
import org.junit.jupiter.api.Test;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/**
 * Logins between the pqssh server and client products over loopback: the system shell's exit status,
 * AuthenticationMethods chains, the products' own password/publickey settings, and the client's PQ-KEX exception and
 * warning. The library's login cases (each ML-KEM size, publickey-kem-and, refusals, KEX policy) are pqssh-mina's
 * KemLoginTest, KemRejectionTest and KexPolicyLoginTest on plain MINA peers.
 */
class ProductLoginTest {
    private static final Duration T = Duration.ofSeconds(20);

    @Test
    void publickeyKemLogsInAndRunsCommand() throws Exception {
        KemKeyPair key = kem(KemAlgorithm.MLKEM768);
        KemServerSettings kem = KemServerSettings.builder().authorizer(authorize(key)).build();
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
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
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
                ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
                assertThrows(Exception.class, () -> cli.login("alice", "127.0.0.1", srv.port()));
                assertFalse(w.anyAuthenticated());
            }
        }
    }

    @Test
    void requirePostQuantumKexRefusesClassicalServer() throws Exception {
        KeyPair sig = LoginFixture.ed25519();
        try (PqsshServer srv = server().kex(List.of("curve25519-sha256"))
                .publickey((u, k, sess) -> true).start();
                PqsshClient cli = client().identity(sig).requirePostQuantumKex(true).start()) {
            ServerSessionWatch w = ServerSessionWatch.on(srv.sshd());
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
