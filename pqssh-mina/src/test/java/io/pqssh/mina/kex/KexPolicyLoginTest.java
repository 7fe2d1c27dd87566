package io.pqssh.mina.kex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.kex.KexProposalOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.pqssh.mina.LoopbackClient;
import io.pqssh.mina.LoopbackServer;

/**
 * Key exchange policy of {@code Pqssh.install} between plain MINA peers: each PQ method negotiates and logs in, and
 * {@code requirePostQuantumKex} on either side refuses a classical exchange before anyone authenticates.
 */
class KexPolicyLoginTest {
    private static final List<String> PQ = List.of("mlkem768x25519-sha256", "sntrup761x25519-sha512",
            "sntrup761x25519-sha512@openssh.com", "mlkem1024nistp384-sha384", "mlkem768nistp256-sha256");

    private static LoopbackServer.Builder passwordServer() {
        return LoopbackServer.builder().password((u, p, s) -> "alice".equals(u) && "pw".equals(p));
    }

    @Test
    void defaultsNegotiateMlkem768x25519() throws Exception {
        try (LoopbackServer srv = passwordServer().start();
                LoopbackClient cli = LoopbackClient.builder().password("pw").start();
                ClientSession s = cli.login("alice", srv.port())) {
            assertEquals("mlkem768x25519-sha256", s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mlkem768x25519-sha256", "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
            "mlkem1024nistp384-sha384", "mlkem768nistp256-sha256"})
    void everyPostQuantumMethodLogsIn(String kex) throws Exception {
        assertTrue(PQ.contains(kex) && PqKex.isPostQuantum(kex), kex);
        try (LoopbackServer srv = passwordServer().options(o -> o.kex(List.of(kex)).requirePostQuantumKex(true))
                .start();
                LoopbackClient cli = LoopbackClient.builder().password("pw")
                        .options(o -> o.requirePostQuantumKex(true)).start();
                ClientSession s = cli.login("alice", srv.port())) {
            assertEquals(kex, s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS));
            assertEquals("x\n", cli.exec(s, "x"));
        }
    }

    @Test
    void clientRequiringPostQuantumRefusesAClassicalServer() throws Exception {
        try (LoopbackServer srv = passwordServer().options(o -> o.kex(List.of("curve25519-sha256"))).start();
                LoopbackClient cli = LoopbackClient.builder().password("pw")
                        .options(o -> o.requirePostQuantumKex(true)).start()) {
            assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
            assertFalse(srv.anyAuthenticated());
        }
    }

    @Test
    void serverRequiringPostQuantumRefusesAClassicalClientAndSaysWhy() throws Exception {
        try (LoopbackServer srv = passwordServer().options(o -> o.requirePostQuantumKex(true)).start();
                LoopbackClient cli = LoopbackClient.builder().password("pw")
                        .options(o -> o.kex(List.of("curve25519-sha256"))).start()) {
            Exception e = assertThrows(Exception.class, () -> cli.login("alice", srv.port()));
            assertTrue(causes(e).contains("post-quantum key exchange required"), causes(e));
            assertFalse(srv.anyAuthenticated());
        }
    }

    @Test
    void withoutTheRequirementAClassicalExchangeStillLogsIn() throws Exception {
        try (LoopbackServer srv = passwordServer().options(o -> o.kex(List.of("curve25519-sha256"))).start();
                LoopbackClient cli = LoopbackClient.builder().password("pw").start();
                ClientSession s = cli.login("alice", srv.port())) {
            assertEquals("curve25519-sha256", s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS));
        }
    }

    private static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append(" | ");
        }
        return b.toString();
    }
}
