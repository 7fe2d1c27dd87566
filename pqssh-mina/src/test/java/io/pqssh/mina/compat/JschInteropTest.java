package io.pqssh.mina.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.KeyPair;

import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.mina.JschLogin;
import io.pqssh.mina.LoopbackServer;
import io.pqssh.mina.NegotiatedKex;
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
        try (LoopbackServer server = LoopbackServer.builder().hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> "carol".equals(u) && k.equals(USER.getPublic())).start()) {
            NegotiatedKex negotiated = NegotiatedKex.on(server.sshd());
            com.jcraft.jsch.Session s = JschLogin.login(dir, "carol", USER, server.port(), kex);
            try {
                JschLogin.Exec e = JschLogin.exec(s, "hello jsch");
                assertEquals(0, e.exitStatus());
                assertEquals("hello jsch\n", e.output());
                assertEquals(1, server.sessions().size(), "one JSch session on the server");
                return negotiated.withClientPort(
                        ((InetSocketAddress) server.sessions().get(0).getRemoteAddress()).getPort());
            } finally {
                s.disconnect();
            }
        }
    }
}
