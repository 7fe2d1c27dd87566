package io.pqssh.client.kex;

import io.pqssh.mina.kex.PqKex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
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
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.mina.TestKeys;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/**
 * Client {@code first_kex_packet_follows} against a pqssh server: the client guesses only when the server's last
 * KEXINIT (ServerProposalCache) shows the guess will be right, so the first connection does not guess and later
 * ones guess right (the login would hang if the server dropped the one init packet the client sends); a guess made
 * on stale knowledge is dropped by the server and the client sends the negotiated exchange's packet; with the
 * option off the flag is never set.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FirstKexGuessTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();


    private static PqsshServer.Builder server() {
        return PqsshServer.builder().systemShell().sftp(true)
                .host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
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
    void firstConnectionDoesNotGuessLaterOnesGuessRightAndTheServerAnswers() throws Exception {
        try (PqsshServer srv = server().start()) {
            PqsshClient.Builder b = client();
            String[] first = login(srv, b);
            assertEquals("none", first[0], "no knowledge of the server yet: no guess");
            String[] second = login(srv, b);
            assertEquals("RIGHT", second[0], "server lists " + second[3] + " first");
            assertEquals("mlkem768x25519-sha256", second[1]);
            // and for every default hybrid, when the server puts it first
            for (String kex : List.of("sntrup761x25519-sha512", "mlkem1024nistp384-sha384")) {
                try (PqsshServer one = server().kex(List.of(kex)).start()) {
                    PqsshClient.Builder c = client();
                    assertEquals(List.of("none", kex), List.of(login(one, c)).subList(0, 2));
                    // the default client list does not start with it: the guess moves the negotiated pick first
                    assertEquals(List.of("RIGHT", kex), List.of(login(one, c)).subList(0, 2));
                }
            }
            // a classical exchange is never moved ahead of the post-quantum ones: no guess, same negotiation
            try (PqsshServer one = server().kex(List.of("curve25519-sha256")).start()) {
                PqsshClient.Builder c = client();
                assertEquals(List.of("none", "curve25519-sha256"), List.of(login(one, c)).subList(0, 2));
                assertEquals(List.of("none", "curve25519-sha256"), List.of(login(one, c)).subList(0, 2));
                // unless the client itself puts it first
                PqsshClient.Builder classical = client().kex(List.of("curve25519-sha256", "mlkem768x25519-sha256"));
                assertEquals("none", login(one, classical)[0]);
                assertEquals("RIGHT", login(one, classical)[0]);
            }
        }
    }

    @Test
    void staleKnowledgeGuessesWrongOnceThenNotAgain() throws Exception {
        ServerProposalCache cache = ServerProposalCache.inMemory();
        try (PqsshServer srv = server().kex(List.of("sntrup761x25519-sha512", "mlkem768x25519-sha256")).start()) {
            // what the server offered "last time": mlkem768x25519 first
            cache.record("127.0.0.1", srv.port(), new ServerProposalCache.Proposal(
                    List.of("mlkem768x25519-sha256", "sntrup761x25519-sha512"), List.of("ssh-ed25519")));
            String[] r = login(srv, client().kexGuessCache(cache));
            assertEquals("WRONG", r[0]);
            // both offer both: the client's first choice wins the negotiation, yet the guess is wrong (RFC 4253 7.1)
            assertEquals("mlkem768x25519-sha256", r[1]);
            // now the cache holds the real list: our pick (mlkem768x25519) is not the server's first, no guess
            assertEquals(List.of("sntrup761x25519-sha512", "mlkem768x25519-sha256"),
                    cache.lookup("127.0.0.1", srv.port()).orElseThrow().kex().subList(0, 2));
            assertEquals(List.of("none", "mlkem768x25519-sha256"), List.of(login(srv, client().kexGuessCache(cache)))
                    .subList(0, 2));
        }
    }

    @Test
    void aGroupExchangeIsNeverGuessed() throws Exception {
        String gex = "diffie-hellman-group-exchange-sha256";
        try (PqsshServer srv = server().kex(List.of(gex)).start()) {
            PqsshClient.Builder b = client().kex(List.of("mlkem768x25519-sha256", gex));
            assertEquals(List.of("none", gex), List.of(login(srv, b)).subList(0, 2));
            assertEquals(List.of("none", gex), List.of(login(srv, b)).subList(0, 2));
        }
        // a stale cache that promised a guessable exchange: the pending guess is dropped and recorded as wrong
        ServerProposalCache cache = ServerProposalCache.inMemory();
        try (PqsshServer srv = server().kex(List.of(gex)).start()) {
            cache.record("127.0.0.1", srv.port(), new ServerProposalCache.Proposal(
                    List.of("mlkem768x25519-sha256"), List.of("ssh-ed25519")));
            String[] r = login(srv, client().kex(List.of("mlkem768x25519-sha256", gex)).kexGuessCache(cache));
            assertEquals(List.of("WRONG", gex), List.of(r).subList(0, 2));
        }
    }

    @Test
    void otherHostKeyFirstOnTheServerIsGuessedOnlyWhenKnownHostsHoldsThatKey(@TempDir Path dir) throws Exception {
        KeyPair ecdsa = TestKeys.generate("ecdsa-sha2-nistp256", 256);
        // the server lists ecdsa first; OpenSSH's client order (and pqssh's) prefers ssh-ed25519
        try (PqsshServer srv = PqsshServer.builder().systemShell().sftp(true).host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(ecdsa, HOST)).publickey((u, k, s) -> k.equals(USER.getPublic()))
                .start()) {
            PqsshClient.Builder b = client();
            String[] r = login(srv, b);
            if (r[3].equals("ssh-ed25519")) {
                throw new AssertionError("fixture: the server must list another host key type first, lists " + r[3]);
            }
            assertEquals(List.of("none", "mlkem768x25519-sha256", "ssh-ed25519"), List.of(r).subList(0, 3));
            // known_hosts unknown: choosing ecdsa to make the guess right could make the key unverifiable
            assertEquals(List.of("none", "mlkem768x25519-sha256", "ssh-ed25519"), List.of(login(srv, b)).subList(0, 3));

            Path knownHosts = dir.resolve("known_hosts");
            java.nio.file.Files.writeString(knownHosts, "[127.0.0.1]:" + srv.port() + " "
                    + org.apache.sshd.common.config.keys.PublicKeyEntry.toString(ecdsa.getPublic()) + "\n"
                    + "[127.0.0.1]:" + srv.port() + " "
                    + org.apache.sshd.common.config.keys.PublicKeyEntry.toString(HOST.getPublic()) + "\n");
            PqsshClient.Builder k = client().hostKeyOrderFrom(knownHosts);
            assertEquals("none", login(srv, k)[0]);
            String[] right = login(srv, k);
            assertEquals(List.of("RIGHT", "mlkem768x25519-sha256", r[3]), List.of(right).subList(0, 3));
        }
    }

    @Test
    void aServerWhoseHostKeyIsRefusedIsNotRemembered() throws Exception {
        ServerProposalCache cache = ServerProposalCache.inMemory();
        try (PqsshServer srv = server().start(); PqsshClient cli = PqsshClient.builder()
                .serverKeyVerifier((session, address, key) -> false).warningSink(w -> { }).identity(USER)
                .kexGuessCache(cache).timeout(java.time.Duration.ofSeconds(10)).start()) {
            org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                    () -> cli.login("alice", "127.0.0.1", srv.port()).close());
            // its KEXINIT was never authenticated: the cache must not learn from it
            assertTrue(cache.lookup("127.0.0.1", srv.port()).isEmpty());
            login(srv, client().kexGuessCache(cache));
            assertTrue(cache.lookup("127.0.0.1", srv.port()).isPresent(), "a verified server is remembered");
        }
    }

    @Test
    void optionOffSendsNoGuess() throws Exception {
        try (PqsshServer srv = server().start()) {
            PqsshClient.Builder b = client().guessKex(false);
            assertEquals("none", login(srv, b)[0]);
            assertEquals("none", login(srv, b)[0]);
        }
    }

    @Test
    void planGuessesOnlyWhenTheFirstEntriesWillAgree() {
        List<String> kex = List.of("mlkem768x25519-sha256", "sntrup761x25519-sha512", "curve25519-sha256");
        List<String> hk = List.of("ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512", "ssh-mldsa-65");
        java.util.function.Predicate<String> none = a -> false;
        java.util.function.Predicate<String> pq = a -> a.startsWith("ssh-mldsa");
        java.util.function.Predicate<String> pqKex = PqKex::isPostQuantum;
        assertFalse(FirstKexGuess.plan(kex, hk, null, none, pqKex, pq).guess());
        FirstKexGuess.Plan p = FirstKexGuess.plan(kex, hk, new ServerProposalCache.Proposal(
                List.of("sntrup761x25519-sha512@openssh.com", "curve25519-sha256", "kex-strict-s-v00@openssh.com"),
                List.of("ssh-ed25519")), none, pqKex, pq);
        // the server's first KEX is not one we offer: no guess, lists untouched
        assertFalse(p.guess());
        assertEquals(kex, p.kex());
        p = FirstKexGuess.plan(kex, hk, new ServerProposalCache.Proposal(
                List.of("sntrup761x25519-sha512", "curve25519-sha256"), List.of("ssh-ed25519", "rsa-sha2-512")),
                none, pqKex, pq);
        assertTrue(p.guess());
        assertEquals(List.of("sntrup761x25519-sha512", "mlkem768x25519-sha256", "curve25519-sha256"), p.kex());
        assertEquals(hk, p.hostKeys());
        // sshd with RSA, ECDSA and Ed25519 keys lists rsa-sha2-512 first
        ServerProposalCache.Proposal rsaFirst = new ServerProposalCache.Proposal(List.of("sntrup761x25519-sha512"),
                List.of("rsa-sha2-512", "rsa-sha2-256", "ecdsa-sha2-nistp256", "ssh-ed25519"));
        assertFalse(FirstKexGuess.plan(kex, hk, rsaFirst, none, pqKex, pq).guess());
        p = FirstKexGuess.plan(kex, hk, rsaFirst, "rsa-sha2-512"::equals, pqKex, pq);
        assertTrue(p.guess());
        assertEquals("rsa-sha2-512", p.hostKeys().get(0));
        // a stale or forged cache saying the server offers only a classical exchange must not move it ahead of
        // the post-quantum ones (the real server may offer them): no guess, lists untouched
        p = FirstKexGuess.plan(kex, hk, new ServerProposalCache.Proposal(List.of("curve25519-sha256"),
                List.of("ssh-ed25519")), none, pqKex, pq);
        assertFalse(p.guess());
        assertEquals(kex, p.kex());
        // likewise a classical host key ahead of a post-quantum one known_hosts holds
        assertFalse(FirstKexGuess.plan(kex, List.of("ssh-mldsa-65", "ssh-ed25519"), new ServerProposalCache
                .Proposal(List.of("mlkem768x25519-sha256"), List.of("ssh-ed25519")), a -> true, pqKex, pq).guess());
        // never trade a post-quantum host key for a classical one to make a guess right
        List<String> pqFirst = List.of("ssh-mldsa-65", "ssh-ed25519");
        assertFalse(FirstKexGuess.plan(kex, pqFirst, new ServerProposalCache.Proposal(
                List.of("mlkem768x25519-sha256"), List.of("ssh-ed25519", "ssh-mldsa-65")), a -> true, pqKex, pq)
                .guess());
    }

    @Test
    void fileCacheRoundTripsAndIsPrivate(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("sub").resolve("pqssh_kex_cache");
        ServerProposalCache c = ServerProposalCache.file(f);
        assertTrue(c.lookup("Example.org", 22).isEmpty());
        ServerProposalCache.Proposal p = new ServerProposalCache.Proposal(List.of("a", "b"), List.of("c"));
        c.record("Example.org", 22, p);
        c.record("example.org", 2222, new ServerProposalCache.Proposal(List.of("x"), List.of("y")));
        assertEquals(p, ServerProposalCache.file(f).lookup("example.org", 22).orElseThrow());
        assertEquals("x", ServerProposalCache.file(f).lookup("EXAMPLE.org", 2222).orElseThrow().kex().get(0));
        String text = java.nio.file.Files.readString(f);
        assertTrue(text.contains("\nexample.org a,b c\n") && text.contains("\n[example.org]:2222 x y\n"), text);
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                java.nio.file.Files.getPosixFilePermissions(f)));
        // garbage lines are skipped, not fatal: it is only a cache
        java.nio.file.Files.writeString(f, text + "garbage\n\n[h]:1 only-two\n");
        assertEquals(p, ServerProposalCache.file(f).lookup("example.org", 22).orElseThrow());
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
