package io.pqssh.mina.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.kex.BuiltinDHFactories;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.JSch;

import io.pqssh.mina.EchoCommand;
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
    private static final Map<Integer, String> KEX_BY_CLIENT_PORT = new ConcurrentHashMap<>();
    private static PqsshServer server;

    @BeforeAll
    static void start() throws IOException {
        server = PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> "carol".equals(u) && k.equals(USER.getPublic()))
                .commandFactory((channel, command) -> new EchoCommand("pqssh:", command)).start();
        server.sshd().addSessionListener(new SessionListener() {
            @Override
            public void sessionNegotiationEnd(Session session, Map<KexProposalOption, String> c,
                    Map<KexProposalOption, String> s, Map<KexProposalOption, String> negotiated, Throwable reason) {
                if (negotiated != null) {
                    KEX_BY_CLIENT_PORT.put(((java.net.InetSocketAddress) session.getRemoteAddress()).getPort(),
                            negotiated.get(KexProposalOption.ALGORITHMS) + " " + negotiated.get(
                                    KexProposalOption.SERVERKEYS));
                }
            }
        });
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
    }

    private static String serverSaw(int clientPort) {
        return KEX_BY_CLIENT_PORT.get(clientPort);
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
        Path id = dir.resolve("id_ed25519");
        try (OutputStream out = Files.newOutputStream(id)) {
            OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(USER, "carol@jsch", null, out);
        }
        JSch jsch = new JSch();
        jsch.addIdentity(id.toString());
        com.jcraft.jsch.Session s = jsch.getSession("carol", "127.0.0.1", server.port());
        s.setConfig("StrictHostKeyChecking", "no");
        s.setConfig("kex", "mlkem768x25519-sha256");
        s.setConfig("server_host_key", "ssh-ed25519");
        s.setConfig("PreferredAuthentications", "publickey");
        s.connect(30_000);
        try {
            ChannelExec ch = (ChannelExec) s.openChannel("exec");
            ch.setCommand("hello jsch");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputStream in = ch.getInputStream();
            ch.connect(30_000);
            in.transferTo(out);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!ch.isClosed() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, ch.getExitStatus());
            assertEquals("pqssh:hello jsch\n", out.toString(StandardCharsets.UTF_8));
            ch.disconnect();
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
