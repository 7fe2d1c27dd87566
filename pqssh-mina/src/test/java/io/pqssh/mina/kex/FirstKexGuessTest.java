package io.pqssh.mina.kex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.pqssh.mina.TestKeys;
import io.pqssh.mina.client.PqsshClient;
import io.pqssh.mina.server.PqsshServer;

/**
 * Client {@code first_kex_packet_follows} against a pqssh server: a right guess is answered (the login would hang
 * if the server dropped the one init packet the client sends), a wrong one - other key exchange or other host key
 * algorithm first - is dropped by the server and the client sends the negotiated exchange's packet, and with the
 * option off the flag is not set.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FirstKexGuessTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();


    private static PqsshServer.Builder server() {
        return PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> k.equals(USER.getPublic()));
    }

    private static PqsshClient.Builder client() {
        return PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE).warningSink(w -> { })
                .identity(USER);
    }

    /** Logs in, runs nothing, returns the guess outcome and the negotiated key exchange. */
    private static String[] login(PqsshServer srv, PqsshClient.Builder b) throws Exception {
        try (PqsshClient cli = b.start(); ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
            FirstKexGuess.Outcome o = s.getAttribute(FirstKexGuess.OUTCOME);
            return new String[] {o == null ? "none" : o.name(), s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS),
                    s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS),
                    FirstKexGuess.first(s.getServerKexProposals().get(KexProposalOption.SERVERKEYS))};
        }
    }

    @Test
    void rightGuessIsAnsweredByTheServer() throws Exception {
        try (PqsshServer srv = server().start()) {
            String[] r = login(srv, client());
            assertEquals("RIGHT", r[0], "server lists " + r[3] + " first");
            assertEquals("mlkem768x25519-sha256", r[1]);
            // and for every default hybrid and the classical fallback, when both sides put it first
            for (String kex : List.of("sntrup761x25519-sha512", "mlkem1024nistp384-sha384", "curve25519-sha256")) {
                try (PqsshServer one = server().kex(List.of(kex)).start()) {
                    assertEquals(List.of("RIGHT", kex), List.of(login(one, client().kex(List.of(kex)))).subList(0, 2));
                }
            }
        }
    }

    @Test
    void wrongKexGuessIsDroppedAndTheNegotiatedExchangeRuns() throws Exception {
        try (PqsshServer srv = server().kex(List.of("sntrup761x25519-sha512", "mlkem768x25519-sha256")).start()) {
            String[] r = login(srv, client());
            assertEquals("WRONG", r[0]);
            // both offer both: the client's first choice wins the negotiation, yet the guess is wrong (RFC 4253 7.1)
            assertEquals("mlkem768x25519-sha256", r[1]);
        }
        try (PqsshServer srv = server().kex(List.of("curve25519-sha256")).start()) {
            String[] r = login(srv, client());
            assertEquals(List.of("WRONG", "curve25519-sha256"), List.of(r).subList(0, 2));
        }
    }

    @Test
    void aGroupExchangeNegotiatedInsteadDropsTheGuessToo() throws Exception {
        // group exchange is not guessable: the pending guess must still be dropped and recorded as wrong
        String gex = "diffie-hellman-group-exchange-sha256";
        try (PqsshServer srv = server().kex(List.of(gex)).start()) {
            String[] r = login(srv, client().kex(List.of("mlkem768x25519-sha256", gex)));
            assertEquals(List.of("WRONG", gex), List.of(r).subList(0, 2));
        }
    }

    @Test
    void wrongHostKeyGuessWithTheSameKexIsDroppedToo() throws Exception {
        KeyPair ecdsa = TestKeys.generate("ecdsa-sha2-nistp256", 256);
        // the server lists ecdsa first, the guessing client prefers ssh-ed25519: same KEX, other host key
        try (PqsshServer srv = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(ecdsa, HOST)).publickey((u, k, s) -> k.equals(USER.getPublic()))
                .start()) {
            String[] r = login(srv, client());
            assertEquals("mlkem768x25519-sha256", r[1]);
            if (r[3].equals("ssh-ed25519")) {
                throw new AssertionError("fixture: the server must list another host key type first, lists " + r[3]);
            }
            assertEquals("WRONG", r[0], "server lists " + r[3] + " first, negotiated " + r[2]);
            assertEquals("ssh-ed25519", r[2], "the client's order decides the negotiated host key");
        }
    }

    @Test
    void optionOffSendsNoGuess() throws Exception {
        try (PqsshServer srv = server().start()) {
            assertEquals("none", login(srv, client().guessKex(false))[0]);
        }
    }

    @Test
    void decisionComparesFirstEntriesOfKexAndHostKeyLists() {
        Map<KexProposalOption, String> c = new EnumMap<>(KexProposalOption.class);
        Map<KexProposalOption, String> s = new EnumMap<>(KexProposalOption.class);
        c.put(KexProposalOption.ALGORITHMS, "mlkem768x25519-sha256,curve25519-sha256,ext-info-c");
        c.put(KexProposalOption.SERVERKEYS, "ssh-ed25519,ssh-mldsa-65");
        s.put(KexProposalOption.ALGORITHMS, "mlkem768x25519-sha256,kex-strict-s-v00@openssh.com");
        s.put(KexProposalOption.SERVERKEYS, "ssh-ed25519");
        assertTrue(FirstKexGuess.isRight(c, s));
        s.put(KexProposalOption.SERVERKEYS, "ssh-mldsa-65,ssh-ed25519");
        assertFalse(FirstKexGuess.isRight(c, s));
        s.put(KexProposalOption.SERVERKEYS, "ssh-ed25519");
        s.put(KexProposalOption.ALGORITHMS, "curve25519-sha256,mlkem768x25519-sha256");
        assertFalse(FirstKexGuess.isRight(c, s));
        s.remove(KexProposalOption.ALGORITHMS);
        assertFalse(FirstKexGuess.isRight(c, s));
        assertEquals("", FirstKexGuess.first(null));
    }

}
