package io.pqssh.client.kex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pqssh.mina.TestKeys;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;
import java.security.KeyPair;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PreparedKemShare}: the KEM key pair made ahead is the one the first matching exchange uses (a login
 * completes only if its public key and its secret belong together, so a taken share plus a login is the check),
 * at most once, and never by an exchange with another KEM.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PreparedKemShareTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();

    private static PqsshServer.Builder server(String kex) {
        return PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .kex(List.of(kex)).publickey((u, k, s) -> k.equals(USER.getPublic()));
    }

    private static PqsshClient.Builder client(PreparedKemShare share) {
        return PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE).warningSink(w -> { })
                .identity(USER).preparedKemShare(share);
    }

    private static String login(PqsshClient cli, PqsshServer srv) throws Exception {
        try (ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
            return s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS);
        }
    }

    @Test
    void eachHybridUsesTheKeyPairMadeAheadOnce() throws Exception {
        for (String kex : List.of("mlkem768x25519-sha256", "sntrup761x25519-sha512",
                "sntrup761x25519-sha512@openssh.com")) {
            PreparedKemShare share = PreparedKemShare.start(() -> Optional.of(kex));
            try (PqsshServer srv = server(kex).start(); PqsshClient cli = client(share).start()) {
                assertEquals(kex, login(cli, srv));
                assertTrue(share.isTaken(), kex + ": the first exchange took the prepared key pair");
                // a second session of the same client makes its own key pair (the share is gone) and still works
                assertEquals(kex, login(cli, srv));
                assertNull(share.take(kex), kex + ": a share is used once");
            }
        }
    }

    @Test
    void anExchangeWithAnotherKemLeavesTheShareAlone() throws Exception {
        PreparedKemShare share = PreparedKemShare.start(() -> Optional.of("sntrup761x25519-sha512"));
        assertEquals(Optional.of("sntrup761"), share.kemName());
        try (PqsshServer srv = server("mlkem768x25519-sha256").start(); PqsshClient cli = client(share).start()) {
            assertEquals("mlkem768x25519-sha256", login(cli, srv));
            assertFalse(share.isTaken(), "an ML-KEM exchange must not take an sntrup761 key pair");
        }
        // the same KEM under another exchange name shares the key pair type, so it may take it
        assertNotNull(share.take("sntrup761x25519-sha512@openssh.com"));
    }

    @Test
    void unknownOrClassicalExchangesPrepareNothing() {
        assertEquals(Optional.empty(), PreparedKemShare.start(() -> Optional.of("curve25519-sha256")).kemName());
        // the NIST-curve hybrids are left to MINA
        assertEquals(Optional.empty(), PreparedKemShare.start(() -> Optional.of("mlkem768nistp256-sha256"))
                .kemName());
        assertEquals(Optional.empty(), PreparedKemShare.start(Optional::empty).kemName());
        PreparedKemShare failing = PreparedKemShare.start(() -> {
            throw new IllegalStateException("cache unreadable");
        });
        assertEquals(Optional.empty(), failing.kemName());
        assertNull(failing.take("mlkem768x25519-sha256"));
    }
}
