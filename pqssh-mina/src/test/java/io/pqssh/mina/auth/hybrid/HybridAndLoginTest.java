package io.pqssh.mina.auth.hybrid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.sshd.client.auth.UserAuth;
import org.apache.sshd.client.auth.UserAuthFactory;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.KexProposalOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.mina.LoopbackClient;
import io.pqssh.mina.LoopbackServer;
import io.pqssh.mina.keys.PqKeyPairProvider;
import io.pqssh.mina.keys.PqKeyPairs;

/**
 * publickey-hybrid-and between plain MINA peers with {@code Pqssh.install}: AND composite user and host keys log in,
 * other key types are refused.
 */
class HybridAndLoginTest {
    private static final Duration T = Duration.ofSeconds(30);
    private static final SecureRandom RND = new SecureRandom();

    static KeyPair key(SignatureKeyType t) {
        return PqKeyPairs.keyPair(SshSigningKey.generate(t, RND));
    }

    static KeyPair ed25519() throws Exception {
        return KeyUtils.generateKeyPair("ssh-ed25519", 256);
    }

    /** A server for user alice accepting exactly {@code user}; every key it was asked about is recorded. */
    static LoopbackServer server(KeyPair host, KeyPair user, String methods, List<PublicKey> asked) throws Exception {
        return LoopbackServer.builder().hostKeys(PqKeyPairProvider.of(List.of(host)))
                .publickey((u, k, s) -> {
                    asked.add(k);
                    return "alice".equals(u) && KeyUtils.compareKeys(k, user.getPublic());
                }).auth(ServerHybridAndUserAuthFactory.INSTANCE).only(methods).start();
    }

    /** A client with {@code publickey-hybrid-and} (or a replacement factory) added in front. */
    static LoopbackClient client(UserAuthFactory hybrid, List<String> preferred) {
        LoopbackClient c = LoopbackClient.builder().start();
        List<UserAuthFactory> f = new ArrayList<>(c.sshClient().getUserAuthFactories());
        f.add(0, hybrid);
        c.sshClient().setUserAuthFactories(f);
        org.apache.sshd.core.CoreModuleProperties.PREFERRED_AUTHS.set(c.sshClient(), String.join(",", preferred));
        return c;
    }

    static ClientSession login(LoopbackClient c, int port, KeyPair... keys) throws Exception {
        ClientSession s = c.sshClient().connect("alice", "127.0.0.1", port).verify(T).getSession();
        for (KeyPair k : keys) {
            s.addPublicKeyIdentity(k);
        }
        try {
            s.auth().verify(T);
        } catch (Exception e) {
            s.close(true);
            throw e;
        }
        return s;
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"ED25519_MLDSA_65", "ED25519_SLHDSA_SHA2_192F"})
    void compositeUserAndHostKeyLogIn(SignatureKeyType t) throws Exception {
        KeyPair host = key(t);
        KeyPair user = key(t);
        List<PublicKey> asked = new CopyOnWriteArrayList<>();
        for (boolean direct : new boolean[] {false, true}) {
            asked.clear();
            try (LoopbackServer srv = server(host, user, HybridAnd.NAME, asked);
                    LoopbackClient cli = client(new ClientHybridAndUserAuthFactory(direct),
                            List.of(HybridAnd.NAME, "publickey"));
                    ClientSession s = login(cli, srv.port(), ed25519(), user)) {
                assertTrue(s.isAuthenticated());
                assertEquals(t.sshName(), s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
                assertEquals(t.sshName(), KeyUtils.getKeyType(s.getServerKey()));
                assertEquals("ok\n", s.executeRemoteCommand("ok"));
                // the Ed25519 identity was registered first but never offered under this method
                assertFalse(asked.isEmpty(), "the authenticator was not consulted");
                assertTrue(asked.stream().allMatch(k -> KeyUtils.compareKeys(k, user.getPublic())),
                        "only the composite key may be offered: " + asked);
                // query + signed request, or the signed request alone
                assertEquals(direct ? 1 : 2, asked.size(), "authenticator consultations");
            }
        }
    }

    @Test
    void compositeKeyAlsoWorksUnderPlainPublickey() throws Exception {
        KeyPair host = key(SignatureKeyType.ED25519_MLDSA_65);
        KeyPair user = key(SignatureKeyType.ED25519_MLDSA_65);
        List<PublicKey> asked = new CopyOnWriteArrayList<>();
        try (LoopbackServer srv = server(host, user, "publickey", asked);
                LoopbackClient cli = client(new ClientHybridAndUserAuthFactory(), List.of("publickey"));
                ClientSession s = login(cli, srv.port(), user)) {
            assertTrue(s.isAuthenticated());
        }
    }

    /** Offers every registered key under publickey-hybrid-and, whatever its type (what a confused peer might do). */
    static final class OfferAnything implements UserAuthFactory {
        @Override
        public String getName() {
            return HybridAnd.NAME;
        }

        @Override
        public UserAuth createUserAuth(ClientSession session) {
            return new ClientHybridAndUserAuth(false) {
                @Override
                protected boolean offers(KeyPair kp) {
                    return true;
                }
            };
        }
    }

    @Test
    void plainEd25519KeyIsRefusedUnderHybridAnd() throws Exception {
        KeyPair host = key(SignatureKeyType.ED25519_MLDSA_65);
        KeyPair plain = ed25519();
        List<PublicKey> asked = new CopyOnWriteArrayList<>();
        try (LoopbackServer srv = server(host, plain, HybridAnd.NAME, asked);
                LoopbackClient cli = client(new OfferAnything(), List.of(HybridAnd.NAME))) {
            Exception e = assertThrows(Exception.class, () -> login(cli, srv.port(), plain).close());
            assertTrue(String.valueOf(e.getMessage()).contains("No more authentication methods"), e.toString());
            assertFalse(srv.anyAuthenticated());
            // refused on its type, before the (accepting) authenticator was asked
            assertTrue(asked.isEmpty(), "authenticator consulted for " + asked);
        }
        // control: the same confused client gets in with a composite key, so the refusal above is the type check
        KeyPair comp = key(SignatureKeyType.ED25519_MLDSA_65);
        try (LoopbackServer srv = server(host, comp, HybridAnd.NAME, asked);
                LoopbackClient cli = client(new OfferAnything(), List.of(HybridAnd.NAME));
                ClientSession s = login(cli, srv.port(), comp)) {
            assertTrue(s.isAuthenticated());
        }
    }

    @Test
    void otherPqKeyTypesAreRefusedToo() throws Exception {
        KeyPair host = key(SignatureKeyType.ED25519_MLDSA_65);
        for (SignatureKeyType t : List.of(SignatureKeyType.MLDSA_65, SignatureKeyType.MLDSA44_ED25519)) {
            KeyPair k = key(t);
            List<PublicKey> asked = new CopyOnWriteArrayList<>();
            try (LoopbackServer srv = server(host, k, HybridAnd.NAME, asked);
                    LoopbackClient cli = client(new OfferAnything(), List.of(HybridAnd.NAME))) {
                assertThrows(Exception.class, () -> login(cli, srv.port(), k).close(), t.sshName());
                assertTrue(asked.isEmpty(), t + ": authenticator consulted");
            }
        }
    }

    @Test
    void signatureMadeForPublickeyDoesNotPassAsHybridAnd() throws Exception {
        // the signed data differs only in the method name; verify both ways through the MINA signature objects
        KeyPair user = key(SignatureKeyType.ED25519_MLDSA_65);
        byte[] id = new byte[32];
        RND.nextBytes(id);
        org.apache.sshd.common.util.buffer.ByteArrayBuffer b = new org.apache.sshd.common.util.buffer.ByteArrayBuffer();
        b.putRawPublicKey(user.getPublic());
        byte[] blob = b.getCompactData();
        String alg = SignatureKeyType.ED25519_MLDSA_65.sshName();
        byte[] hybrid = HybridAnd.signedData(id, "alice", "ssh-connection", alg, blob);
        assertTrue(java.util.Arrays.equals(hybrid, replaceMethod(hybrid, HybridAnd.NAME)), "layout as parsed");
        org.apache.sshd.common.signature.Signature signer = io.pqssh.mina.keys.PqSignatureFactories.byName().get(alg)
                .create();
        signer.initSigner(null, user.getPrivate());
        // the same request data as plain publickey would sign it
        byte[] plainData = replaceMethod(hybrid, "publickey");
        signer.update(null, plainData);
        byte[] raw = signer.sign(null);
        org.apache.sshd.common.util.buffer.ByteArrayBuffer sig = new org.apache.sshd.common.util.buffer.ByteArrayBuffer();
        sig.putString(alg);
        sig.putBytes(raw);
        org.apache.sshd.common.signature.Signature v = io.pqssh.mina.keys.PqSignatureFactories.byName().get(alg)
                .create();
        v.initVerifier(null, user.getPublic());
        v.update(null, hybrid);
        assertFalse(v.verify(null, sig.getCompactData()));
        v.initVerifier(null, user.getPublic());
        v.update(null, plainData);
        assertTrue(v.verify(null, sig.getCompactData()));
    }

    static byte[] replaceMethod(byte[] data, String method) {
        org.apache.sshd.common.util.buffer.ByteArrayBuffer in = new org.apache.sshd.common.util.buffer.ByteArrayBuffer(
                data);
        org.apache.sshd.common.util.buffer.ByteArrayBuffer out = new org.apache.sshd.common.util.buffer.ByteArrayBuffer();
        out.putBytes(in.getBytes());
        out.putByte(in.getByte());
        out.putString(in.getString());
        out.putString(in.getString());
        in.getString();
        out.putString(method);
        out.putBoolean(in.getBoolean());
        out.putString(in.getString());
        out.putBytes(in.getBytes());
        return out.getCompactData();
    }
}
