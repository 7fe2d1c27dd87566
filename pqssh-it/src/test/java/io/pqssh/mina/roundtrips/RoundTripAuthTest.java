package io.pqssh.mina.roundtrips;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.auth.AbstractUserAuth;
import org.apache.sshd.server.auth.UserAuth;
import org.apache.sshd.server.auth.UserAuthFactory;
import org.apache.sshd.server.session.ServerSession;
import org.junit.jupiter.api.Test;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.mina.TestKeys;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/** Which USERAUTH_REQUESTs reach a pqssh server with and without the round-trip options. */
class RoundTripAuthTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final KeyPair HOST = TestKeys.ed25519();


    /** Records the method of every USERAUTH_REQUEST the server handles, {@code none} included. */
    static List<String> record(PqsshServer srv) {
        List<String> seen = new CopyOnWriteArrayList<>();
        List<UserAuthFactory> wrapped = new ArrayList<>();
        wrapped.add(new UserAuthFactory() {
            @Override
            public String getName() {
                return "none";
            }

            @Override
            public UserAuth createUserAuth(ServerSession s) {
                seen.add("none");
                return new AbstractUserAuth("none") {
                    @Override
                    protected Boolean doAuth(Buffer buffer, boolean init) {
                        return Boolean.FALSE;
                    }
                };
            }
        });
        for (UserAuthFactory f : srv.sshd().getUserAuthFactories()) {
            wrapped.add(new UserAuthFactory() {
                @Override
                public String getName() {
                    return f.getName();
                }

                @Override
                public UserAuth createUserAuth(ServerSession s) throws java.io.IOException {
                    seen.add(f.getName());
                    return f.createUserAuth(s);
                }
            });
        }
        srv.sshd().setUserAuthFactories(wrapped);
        return seen;
    }

    static PqsshServer.Builder server() {
        return PqsshServer.builder().systemShell().sftp(true)
                .host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST));
    }

    static PqsshClient.Builder client() {
        return PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE).warningSink(w -> { });
    }

    static KemServerSettings kemFor(KemKeyPair key) {
        return KemServerSettings.builder()
                .authorizer((u, c, a) -> "alice".equals(u) && c.samePublicKey(key.publicKey())).build();
    }

    static List<String> login(PqsshServer srv, PqsshClient.Builder b) throws Exception {
        List<String> seen = record(srv);
        try (PqsshClient cli = b.start(); ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
        }
        return List.copyOf(seen);
    }

    @Test
    void kemLoginSendsNoNoneProbeUnlessAsked() throws Exception {
        KemKeyPair key = io.pqssh.core.kem.MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
        try (PqsshServer srv = server().kem(kemFor(key)).start()) {
            assertEquals(List.of("publickey-kem"), login(srv, client().kemIdentity(KemClientIdentity.of(key))));
            // MINA's server answers "none" without a factory lookup, so the probe itself is not recorded here; the
            // round trip it costs is measured by the lab (docs/round-trips.md)
            assertEquals(List.of("publickey-kem"),
                    login(srv, client().kemIdentity(KemClientIdentity.of(key)).noneProbe(true)));
        }
    }

    @Test
    void publickeySignsDirectlyByDefaultAndQueriesFirstWhenAsked() throws Exception {
        KeyPair user = TestKeys.ed25519();
        try (PqsshServer srv = server().publickey((u, k, s) -> k.equals(user.getPublic())).start()) {
            // MINA's server counts the PK_OK query and the signed request separately
            assertEquals(List.of("publickey"), login(srv, client().identity(user)));
            assertEquals(List.of("publickey", "publickey"),
                    login(srv, client().identity(user).pubkeySignDirectly(false)));
            assertEquals(List.of("publickey"), login(srv, client().identity(user).noneProbe(true)));
            assertEquals(List.of("publickey", "publickey"),
                    login(srv, client().identity(user).noneProbe(true).pubkeySignDirectly(false)));
        }
    }

    @Test
    void anAgentsKeyIsQueriedFirstEvenWhenSigningDirectly() throws Exception {
        KeyPair user = TestKeys.ed25519();
        org.apache.sshd.agent.local.LocalAgentFactory agent = new org.apache.sshd.agent.local.LocalAgentFactory();
        agent.getAgent().addIdentity(user, "in the agent");
        try (PqsshServer srv = server().publickey((u, k, s) -> k.equals(user.getPublic())).start()) {
            // a signature from an agent may need a confirmation (ssh-add -c): the PK_OK query comes first
            assertEquals(List.of("publickey", "publickey"),
                    login(srv, client().customize(c -> c.setAgentFactory(agent))));
        }
    }

    @Test
    void directSignMovesToTheNextKeyAfterARefusal() throws Exception {
        KeyPair wrong = TestKeys.ed25519();
        KeyPair user = TestKeys.ed25519();
        try (PqsshServer srv = server().publickey((u, k, s) -> k.equals(user.getPublic())).start()) {
            assertEquals(List.of("publickey", "publickey"),
                    login(srv, client().identity(wrong).identity(user).pubkeySignDirectly(true)));
        }
    }

    @Test
    void fallsBackWhenTheServerDoesNotOfferTheGuessedMethod() throws Exception {
        KemKeyPair key = io.pqssh.core.kem.MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
        KeyPair user = TestKeys.ed25519();
        // no publickey-kem on this server: the guessed request is refused with the server's list, then publickey
        try (PqsshServer srv = server().publickey((u, k, s) -> k.equals(user.getPublic())).start()) {
            assertEquals(List.of("publickey"), login(srv, client().kemIdentity(KemClientIdentity.of(key))
                    .identity(user).pubkeySignDirectly(true)));
        }
    }

    @Test
    void withoutCredentialsTheNoneProbeIsStillSent() throws Exception {
        try (PqsshServer srv = server().password((u, p, s) -> "pw".equals(p)).start()) {
            assertEquals(List.of("password"), login(srv, client().password("pw")));
            List<String> seen = record(srv);
            try (PqsshClient cli = client().start()) {
                org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                        () -> cli.login("alice", "127.0.0.1", srv.port()));
            }
            assertEquals(List.of(), seen); // only the none probe went out
        }
    }

    @Test
    void andCompositeKeyGoesStraightToPublickeyHybridAnd() throws Exception {
        KeyPair user = io.pqssh.mina.keys.PqKeyPairs.keyPair(io.pqssh.core.sig.SshSigningKey.generate(
                io.pqssh.core.sig.SignatureKeyType.ED25519_MLDSA_65, RANDOM));
        try (PqsshServer srv = server().publickey((u, k, s) -> k.equals(user.getPublic()))
                .authenticationMethods("publickey-hybrid-and").start()) {
            // no none probe: with the query first, the query and the signed request, both under publickey-hybrid-and
            assertEquals(List.of("publickey-hybrid-and", "publickey-hybrid-and"),
                    login(srv, client().identity(user).pubkeySignDirectly(false)));
            assertEquals(List.of("publickey-hybrid-and"), login(srv, client().identity(user)));
            assertEquals(List.of("publickey-hybrid-and"),
                    login(srv, client().identity(user).pubkeySignDirectly(true)));
        }
        // a server without the method: the client falls back to publickey with the same key
        try (PqsshServer srv = server().publickey((u, k, s) -> k.equals(user.getPublic())).start()) {
            List<String> seen = login(srv, client().identity(user).pubkeySignDirectly(true));
            assertEquals("publickey", seen.get(seen.size() - 1), seen.toString());
        }
    }
}
