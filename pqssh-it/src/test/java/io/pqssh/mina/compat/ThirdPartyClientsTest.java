package io.pqssh.mina.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;

import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.kex.BuiltinDHFactories;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.session.Session;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.mina.EchoCommand;
import io.pqssh.mina.JschLogin;
import io.pqssh.mina.NegotiatedKex;
import io.pqssh.mina.TestKeys;
import io.pqssh.mina.kex.PqKex;
import io.pqssh.server.PqsshServer;

/**
 * Clients that know nothing of pqssh log in to a pqssh server with an Ed25519 user key over
 * {@code mlkem768x25519-sha256}: MINA SSHD's own plain client and JSch (the mwiede fork, which has
 * {@code mlkem768x25519-sha256} since 2.27). The negotiated key exchange is read on the server.
 */
class ThirdPartyClientsTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();
    private static PqsshServer server;
    private static NegotiatedKex negotiated;

    @BeforeAll
    static void start() throws IOException {
        server = PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> "carol".equals(u) && k.equals(USER.getPublic()))
                .commandFactory((channel, command) -> new EchoCommand("pqssh:", command)).start();
        negotiated = NegotiatedKex.on(server.sshd());
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
    }

    private static String serverSaw(int clientPort) {
        return negotiated.withClientPort(clientPort);
    }

    @Test
    void minasOwnClientWithMlkem768x25519() throws Exception {
        SshClient client = SshClient.setUpDefaultClient();
        client.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
        client.setKeyExchangeFactories(NamedFactory.setUpTransformedFactories(false,
                List.of(BuiltinDHFactories.mlkem768x25519), ClientBuilder.DH2KEX));
        client.start();
        try (ClientSession s = client.connect("carol", "127.0.0.1", server.port()).verify(Duration.ofSeconds(30))
                .getSession()) {
            s.addPublicKeyIdentity(USER);
            s.auth().verify(Duration.ofSeconds(30));
            assertEquals("pqssh:hello mina\n", s.executeRemoteCommand("hello mina"));
            int port = ((java.net.InetSocketAddress) s.getLocalAddress()).getPort();
            assertEquals("mlkem768x25519-sha256 ssh-ed25519", serverSaw(port));
        } finally {
            client.stop();
        }
    }

    @Test
    void minasOwnClientWithItsDefaultsNegotiatesPostQuantum() throws Exception {
        SshClient client = SshClient.setUpDefaultClient();
        client.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
        client.start();
        try (ClientSession s = client.connect("carol", "127.0.0.1", server.port()).verify(Duration.ofSeconds(30))
                .getSession()) {
            s.addPublicKeyIdentity(USER);
            s.auth().verify(Duration.ofSeconds(30));
            String kex = s.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS);
            assertTrue(PqKex.isPostQuantum(kex), kex);
        } finally {
            client.stop();
        }
    }

    @Test
    void jschWithMlkem768x25519(@TempDir Path dir) throws Exception {
        com.jcraft.jsch.Session s = JschLogin.login(dir, "carol", USER, server.port(), "mlkem768x25519-sha256");
        try {
            JschLogin.Exec e = JschLogin.exec(s, "hello jsch");
            assertEquals(0, e.exitStatus());
            assertEquals("pqssh:hello jsch\n", e.output());
            assertEquals("mlkem768x25519-sha256", s.getConfig("kex"));
            assertEquals("ssh-ed25519", s.getHostKey().getType());
            int port = localPort(s);
            assertEquals("mlkem768x25519-sha256 ssh-ed25519", serverSaw(port));
        } finally {
            s.disconnect();
        }
    }

    /** JSch does not expose its local port; the server saw exactly one JSch connection from this test's port. */
    private static int localPort(com.jcraft.jsch.Session s) {
        for (Session ss : server.sshd().getActiveSessions()) {
            String version = ss.getClientVersion();
            if (version != null && version.toUpperCase(java.util.Locale.ROOT).startsWith("SSH-2.0-JSCH")) {
                return ((java.net.InetSocketAddress) ss.getRemoteAddress()).getPort();
            }
        }
        throw new AssertionError("no JSch session on the server (client versions: " + server.sshd()
                .getActiveSessions().stream().map(x -> x.getClientVersion()).toList() + ")");
    }
}
