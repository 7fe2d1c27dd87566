package io.pqssh.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.core.CoreModuleProperties;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.server.command.CommandFactory;
import org.apache.sshd.server.shell.ShellFactory;
import org.junit.jupiter.api.Test;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.mina.kex.PqKex;

/**
 * {@link Pqssh#install}: on an application's own, plainly configured MINA {@code SshServer}/{@code SshClient} it
 * adds the post-quantum key exchange, key types and {@code publickey-kem} and leaves everything else as it was, and
 * the result logs in end to end with {@code publickey-kem} (plain MINA client and server, both with
 * {@code Pqssh.install}) and still with the application's own password method.
 */
class PqsshInstallTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final List<String> OPENSSH10_PQ_ORDER = List.of("mlkem768x25519-sha256",
            "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com", "mlkem1024nistp384-sha384",
            "mlkem768nistp256-sha256");

    private static final CommandFactory APP_COMMANDS = (channel, command) -> new EchoCommand("app:", command);
    private static final ShellFactory APP_SHELL = channel -> new EchoCommand("app:", "shell");

    /** A plain MINA server as an application sets one up: its command and shell, password login, one property. */
    private static SshServer appServer() {
        SshServer sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(0);
        sshd.setKeyPairProvider(KeyPairProvider.wrap(HOST));
        sshd.setCommandFactory(APP_COMMANDS);
        sshd.setShellFactory(APP_SHELL);
        sshd.setPasswordAuthenticator((u, p, s) -> "bob".equals(u) && "secret".equals(p));
        sshd.setUserAuthFactories(List.of(UserAuthPasswordFactory.INSTANCE));
        CoreModuleProperties.IDLE_TIMEOUT.set(sshd, Duration.ofMinutes(7));
        return sshd;
    }

    private static KemServerSettings kemFor(KemKeyPair key) {
        return KemServerSettings.builder().authorizer((user, c, addr) -> "alice".equals(user)
                && c.samePublicKey(key.publicKey())).build();
    }

    private static List<String> names(List<? extends NamedResource> l) {
        List<String> n = new ArrayList<>();
        l.forEach(f -> n.add(f.getName()));
        return n;
    }

    @Test
    void serverInstallAddsPqAndChangesNothingElse() {
        SshServer sshd = appServer();
        List<String> kexBefore = names(sshd.getKeyExchangeFactories());
        List<String> sigBefore = names(sshd.getSignatureFactories());
        List<?> authBefore = List.copyOf(sshd.getUserAuthFactories());
        Map<String, Object> propsBefore = new HashMap<>(sshd.getProperties());
        Object subsystemsBefore = sshd.getSubsystemFactories();
        Object forwardingBefore = sshd.getForwardingFilter();
        Object channelsBefore = sshd.getChannelFactories();

        Pqssh.install(sshd, kemFor(MlKemKeys.ML_KEM_768));

        List<String> kex = names(sshd.getKeyExchangeFactories());
        assertEquals(OPENSSH10_PQ_ORDER, kex.subList(0, OPENSSH10_PQ_ORDER.size()), kex.toString());
        List<String> rest = new ArrayList<>(kexBefore);
        rest.removeAll(OPENSSH10_PQ_ORDER);
        assertEquals(rest, kex.subList(OPENSSH10_PQ_ORDER.size(), kex.size()), "the app's own KEX follow, in order");
        List<String> sig = names(sshd.getSignatureFactories());
        assertEquals(sigBefore, sig.subList(0, sigBefore.size()));
        assertTrue(sig.containsAll(List.of("ssh-mldsa-65", "ssh-mldsa44-ed25519@openssh.com")), sig.toString());
        assertEquals(List.of(authBefore.get(0)), sshd.getUserAuthFactories().subList(0, 1));
        assertEquals(List.of("password", "publickey-kem", "publickey-kem-and"), names(sshd.getUserAuthFactories()));
        assertSame(APP_COMMANDS, sshd.getCommandFactory());
        assertSame(APP_SHELL, sshd.getShellFactory());
        assertEquals(propsBefore, sshd.getProperties());
        assertSame(subsystemsBefore, sshd.getSubsystemFactories());
        assertSame(forwardingBefore, sshd.getForwardingFilter());
        assertSame(channelsBefore, sshd.getChannelFactories());
    }

    @Test
    void withoutKemSettingsOnlyKexAndKeyTypesChange() {
        SshServer sshd = appServer();
        List<?> authBefore = List.copyOf(sshd.getUserAuthFactories());
        Pqssh.install(sshd);
        assertEquals(authBefore, sshd.getUserAuthFactories());
        assertEquals("mlkem768x25519-sha256", sshd.getKeyExchangeFactories().get(0).getName());
    }

    @Test
    void factoriesLeftToMinaAreFilledFromTheAuthenticatorsNotReplaced() {
        SshServer sshd = appServer();
        sshd.setUserAuthFactories(null);
        sshd.setPublickeyAuthenticator((u, k, s) -> false);
        Pqssh.install(sshd, kemFor(MlKemKeys.ML_KEM_768));
        List<String> n = names(sshd.getUserAuthFactories());
        assertTrue(n.containsAll(List.of("publickey", "password", "publickey-kem")), n.toString());
        assertEquals("publickey-kem", n.get(n.size() - 2), n.toString());
    }

    @Test
    void explicitKexAndBadNames() {
        SshServer sshd = appServer();
        Pqssh.install(sshd, Pqssh.ServerOptions.defaults().kex(List.of("mlkem768x25519-sha256", "curve25519-sha256")));
        assertEquals(List.of("mlkem768x25519-sha256", "curve25519-sha256"), names(sshd.getKeyExchangeFactories()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Pqssh.install(appServer(), Pqssh.ServerOptions.defaults().kex(List.of("mlkem999"))));
        assertTrue(e.getMessage().contains("unknown key exchange algorithm 'mlkem999'"), e.getMessage());
    }

    @Test
    void installAfterStartIsRefused() throws Exception {
        SshServer sshd = appServer();
        sshd.start();
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Pqssh.install(sshd));
            assertTrue(e.getMessage().contains("before the SshServer is started"), e.getMessage());
        } finally {
            sshd.stop(true);
        }
    }

    @Test
    void pqsshClientLogsInWithPublickeyKemToThePlainServerAndRunsTheAppsCommand() throws Exception {
        SshServer sshd = appServer();
        Map<String, String> negotiated = new ConcurrentHashMap<>();
        sshd.addSessionListener(new SessionListener() {
            @Override
            public void sessionNegotiationEnd(Session session, Map<KexProposalOption, String> c,
                    Map<KexProposalOption, String> s, Map<KexProposalOption, String> n, Throwable reason) {
                if (n != null) {
                    negotiated.put("kex", n.get(KexProposalOption.ALGORITHMS));
                }
            }
        });
        Pqssh.install(sshd, kemFor(MlKemKeys.ML_KEM_768));
        sshd.start();
        try (LoopbackClient cli = LoopbackClient.builder().kemIdentity(KemClientIdentity.of(MlKemKeys.ML_KEM_768))
                .start();
                ClientSession s = cli.login("alice", sshd.getPort())) {
            assertEquals("app:hello\n", s.executeRemoteCommand("hello"));
            assertEquals("mlkem768x25519-sha256", negotiated.get("kex"));
        } finally {
            sshd.stop(true);
        }
    }

    @Test
    void theAppsOwnPasswordMethodStillWorksAndAWrongKemKeyIsRefused() throws Exception {
        SshServer sshd = appServer();
        Pqssh.install(sshd, kemFor(MlKemKeys.ML_KEM_768));
        sshd.start();
        SshClient plain = SshClient.setUpDefaultClient();
        plain.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
        plain.start();
        try (ClientSession s = plain.connect("bob", "127.0.0.1", sshd.getPort()).verify(Duration.ofSeconds(30))
                .getSession()) {
            s.addPasswordIdentity("secret");
            s.auth().verify(Duration.ofSeconds(30));
            assertEquals("app:x\n", s.executeRemoteCommand("x"));
        } finally {
            plain.stop();
        }
        try (LoopbackClient cli = LoopbackClient.builder().kemIdentity(KemClientIdentity.of(MlKemKeys.other()))
                .start()) {
            CoreModuleProperties.PREFERRED_AUTHS.set(cli.sshClient(), "publickey-kem");
            assertThrows(IOException.class, () -> cli.login("alice", sshd.getPort()));
        } finally {
            sshd.stop(true);
        }
    }

    @Test
    void plainClientWithInstallLogsInWithPublickeyKem() throws Exception {
        SshServer sshd = appServer();
        Pqssh.install(sshd, kemFor(MlKemKeys.ML_KEM_768));
        sshd.start();
        SshClient client = SshClient.setUpDefaultClient();
        client.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
        assertNull(client.getUserAuthFactories(), "left to MINA, as most applications do");
        List<String> authBefore = names(SshClient.DEFAULT_USER_AUTH_FACTORIES);
        Pqssh.install(client, Pqssh.ClientOptions.defaults().kemIdentity(KemClientIdentity.of(MlKemKeys.ML_KEM_768)));
        List<String> auth = names(client.getUserAuthFactories());
        assertEquals(List.of("publickey-kem", "publickey-kem-and"), auth.subList(0, 2));
        assertEquals(authBefore, auth.subList(2, auth.size()));
        assertEquals(PqKex.DEFAULT_ORDER.get(0), client.getKeyExchangeFactories().get(0).getName());
        assertNull(CoreModuleProperties.PREFERRED_AUTHS.getOrNull(client));
        client.start();
        try (ClientSession s = client.connect("alice", "127.0.0.1", sshd.getPort()).verify(Duration.ofSeconds(30))
                .getSession()) {
            s.auth().verify(Duration.ofSeconds(30));
            assertTrue(s.isAuthenticated());
            assertEquals("mlkem768x25519-sha256", s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS));
            assertEquals("app:y\n", s.executeRemoteCommand("y"));
        } finally {
            client.stop();
            sshd.stop(true);
        }
    }

    @Test
    void pqHostAndUserKeysWorkOnThePlainServerAfterInstall() throws Exception {
        KeyPair host = io.pqssh.mina.keys.PqKeyPairs.keyPair(io.pqssh.core.sig.SshSigningKey.generate(
                io.pqssh.core.sig.SignatureKeyType.MLDSA_65, new java.security.SecureRandom()));
        KeyPair user = io.pqssh.mina.keys.PqKeyPairs.keyPair(io.pqssh.core.sig.SshSigningKey.generate(
                io.pqssh.core.sig.SignatureKeyType.MLDSA_44, new java.security.SecureRandom()));
        SshServer sshd = appServer();
        // MINA's own providers cannot type a PQ key pair: PQ host keys go through PqKeyPairProvider
        sshd.setKeyPairProvider(io.pqssh.mina.keys.PqKeyPairProvider.of(List.of(host)));
        sshd.setPublickeyAuthenticator((u, k, s) -> "dave".equals(u)
                && org.apache.sshd.common.config.keys.KeyUtils.compareKeys(k, user.getPublic()));
        sshd.setUserAuthFactories(List.of(UserAuthPasswordFactory.INSTANCE,
                org.apache.sshd.server.auth.pubkey.UserAuthPublicKeyFactory.INSTANCE));
        Pqssh.install(sshd);
        sshd.start();
        try (LoopbackClient cli = LoopbackClient.builder().serverKeyVerifier((s, a, k) -> org.apache.sshd.common
                .config.keys.KeyUtils.compareKeys(k, host.getPublic())).identity(user).start();
                ClientSession s = cli.login("dave", sshd.getPort())) {
            assertEquals("ssh-mldsa-65", s.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS));
            assertEquals("app:pq\n", s.executeRemoteCommand("pq"));
        } finally {
            sshd.stop(true);
        }
    }

    /** Keys made once per test class. */
    static final class MlKemKeys {
        static final KemKeyPair ML_KEM_768 = io.pqssh.core.kem.MlKem.generate(KemAlgorithm.MLKEM768,
                new java.security.SecureRandom());

        static KemKeyPair other() {
            return io.pqssh.core.kem.MlKem.generate(KemAlgorithm.MLKEM768, new java.security.SecureRandom());
        }
    }
}
