package io.pqssh.mina.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.JSch;

import io.pqssh.mina.LoopbackServer;
import io.pqssh.mina.TestKeys;
import io.pqssh.mina.kex.PqKex;

/**
 * The library alone (plain MINA with {@code Pqssh.install}, no pqssh product) serves JSch, a client that knows
 * nothing of pqssh: the mwiede fork has {@code mlkem768x25519-sha256}. Part of the Java 17 run (execution jdk17),
 * so an adopter on Java 17 with JSch peers is covered.
 */
class JschInteropTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();

    @Test
    void jschLogsInOverMlkem768x25519(@TempDir Path dir) throws Exception {
        assertEquals("mlkem768x25519-sha256 ssh-ed25519", login(dir, "mlkem768x25519-sha256"));
    }

    @Test
    void jschWithItsDefaultKexListNegotiatesPostQuantum(@TempDir Path dir) throws Exception {
        String negotiated = login(dir, null);
        assertTrue(PqKex.isPostQuantum(negotiated.split(" ")[0]), negotiated);
    }

    /** Logs in with JSch, runs one command, returns what the server negotiated: "kex hostkey". */
    private static String login(Path dir, String kex) throws Exception {
        Map<Integer, String> byPort = new ConcurrentHashMap<>();
        try (LoopbackServer server = LoopbackServer.builder().hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> "carol".equals(u) && k.equals(USER.getPublic())).start()) {
            server.sshd().addSessionListener(new SessionListener() {
                @Override
                public void sessionNegotiationEnd(Session session, Map<KexProposalOption, String> c,
                        Map<KexProposalOption, String> s, Map<KexProposalOption, String> negotiated, Throwable t) {
                    if (negotiated != null) {
                        byPort.put(((InetSocketAddress) session.getRemoteAddress()).getPort(),
                                negotiated.get(KexProposalOption.ALGORITHMS) + " "
                                        + negotiated.get(KexProposalOption.SERVERKEYS));
                    }
                }
            });
            Path id = dir.resolve("id_ed25519");
            try (OutputStream out = Files.newOutputStream(id)) {
                OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(USER, "carol@jsch", null, out);
            }
            JSch jsch = new JSch();
            jsch.addIdentity(id.toString());
            com.jcraft.jsch.Session s = jsch.getSession("carol", "127.0.0.1", server.port());
            s.setConfig("StrictHostKeyChecking", "no");
            if (kex != null) {
                s.setConfig("kex", kex);
            }
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
                assertEquals("hello jsch\n", out.toString(StandardCharsets.UTF_8));
                ch.disconnect();
                assertEquals(1, server.sessions().size(), "one JSch session on the server");
                int port = ((InetSocketAddress) server.sessions().get(0).getRemoteAddress()).getPort();
                return byPort.get(port);
            } finally {
                s.disconnect();
            }
        }
    }
}
