package io.pqssh.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ChannelShell;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.core.CoreModuleProperties;
import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.pqssh.mina.TestKeys;
import io.pqssh.server.session.ConnectionTimeouts;

/**
 * An idle session stays open (MINA's 10-minute idle timeout is off, as sshd has none), and sshd's four timeout
 * keywords end connections and channels as sshd does, with seconds-long values and bounded waits:
 * ClientAliveInterval/CountMax drop a client that stops answering (and keep one that answers), ChannelTimeout closes
 * an idle {@code session:shell} channel but not the connection, UnusedConnectionTimeout drops a connection without
 * channels; sshd's log lines name the user and address.
 */
class ConnectionTimeoutsTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream originalErr;
    private SshClient client;

    /** slf4j-simple writes to whatever System.err is at the time: a tee keeps the server's log lines. */
    @BeforeEach
    void captureLog() {
        originalErr = System.err;
        PrintStream both = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                originalErr.write(b);
                synchronized (log) {
                    log.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                originalErr.write(b, off, len);
                synchronized (log) {
                    log.write(b, off, len);
                }
            }
        }, true, StandardCharsets.UTF_8);
        System.setErr(both);
        client = SshClient.setUpDefaultClient();
        client.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
        client.start();
    }

    @AfterEach
    void restore() {
        client.stop();
        System.setErr(originalErr);
    }

    private String log() {
        synchronized (log) {
            return log.toString(StandardCharsets.UTF_8);
        }
    }

    /** A shell that stays silent until its channel goes away. */
    private static final class IdleShell implements Command {
        private ExitCallback exit;

        @Override
        public void setExitCallback(ExitCallback callback) {
            this.exit = callback;
        }

        @Override
        public void setErrorStream(OutputStream err) {
        }

        @Override
        public void setInputStream(java.io.InputStream in) {
        }

        @Override
        public void setOutputStream(OutputStream out) {
        }

        @Override
        public void start(ChannelSession channel, Environment env) {
        }

        @Override
        public void destroy(ChannelSession channel) {
            if (exit != null) {
                exit.onExit(0);
            }
        }
    }

    private static PqsshServer start(ConnectionTimeouts.Settings timeouts) throws Exception {
        return PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> k.equals(USER.getPublic())).shellFactory(channel -> new IdleShell())
                .connectionTimeouts(timeouts).start();
    }

    private ClientSession login(PqsshServer srv) throws Exception {
        ClientSession s = client.connect("tim", "127.0.0.1", srv.port()).verify(Duration.ofSeconds(30)).getSession();
        s.addPublicKeyIdentity(USER);
        s.auth().verify(Duration.ofSeconds(30));
        return s;
    }

    private static ChannelShell shell(ClientSession s) throws Exception {
        ChannelShell shell = s.createShellChannel();
        shell.setOut(OutputStream.nullOutputStream());
        shell.setErr(OutputStream.nullOutputStream());
        shell.open().verify(Duration.ofSeconds(30));
        return shell;
    }

    private static boolean within(Duration limit, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(50);
        }
        return condition.getAsBoolean();
    }

    private static ConnectionTimeouts.Settings settings(String... lines) throws Exception {
        ServerConfig c = new ServerConfig();
        for (int i = 0; i < lines.length; i++) {
            c.apply(lines[i], "t:" + (i + 1));
        }
        return c.timeouts;
    }

    @Test
    void minasTenMinuteIdleTimeoutIsOffAsSshdHasNone() throws Exception {
        try (PqsshServer srv = start(ConnectionTimeouts.Settings.NONE)) {
            Duration idle = CoreModuleProperties.IDLE_TIMEOUT.getRequired(srv.sshd());
            assertTrue(idle.isZero() || idle.isNegative(), "MINA's idle timeout is on: " + idle);
            assertTrue(CoreModuleProperties.NIO2_READ_TIMEOUT.getRequired(srv.sshd()).isZero(),
                    "a read timeout would end idle sessions as well");
            // without any keyword an idle session with a shell stays open (bounded look: 3 s)
            ClientSession s = login(srv);
            ChannelShell shell = shell(s);
            assertFalse(within(Duration.ofSeconds(3), () -> !shell.isOpen() || !s.isOpen()), "idle session ended");
        }
    }

    @Test
    void clientAliveDropsAClientThatStopsAnsweringAndKeepsOneThatAnswers() throws Exception {
        try (PqsshServer srv = start(settings("ClientAliveInterval 1", "ClientAliveCountMax 2"))) {
            ClientSession answering = login(srv);
            ClientSession silent = login(srv);
            int silentPort = ((java.net.InetSocketAddress) silent.getIoSession().getLocalAddress()).getPort();
            silent.getIoSession().suspendRead(); // it no longer reads, so never answers a keepalive
            // three missed intervals, then the drop: about 3 s, allowed 12 s
            assertTrue(within(Duration.ofSeconds(12), () -> srv.activeSessions() == 1),
                    "the silent client was not dropped: " + srv.activeSessions() + " sessions\n" + log());
            assertTrue(answering.isOpen(), "a client answering keepalives was dropped");
            assertTrue(within(Duration.ofSeconds(5), () -> log().contains(
                    "Timeout, client not responding from user tim 127.0.0.1 port " + silentPort)), log());
            // the answering client saw keepalives for that long and is still there
            Thread.sleep(1500);
            assertTrue(answering.isOpen() && srv.activeSessions() == 1, log());
        }
    }

    @Test
    void channelTimeoutClosesAnIdleShellChannelButNotTheConnection() throws Exception {
        try (PqsshServer srv = start(settings("ChannelTimeout session:command=30 session:shell=1"))) {
            ClientSession s = login(srv);
            ChannelShell shell = shell(s);
            assertTrue(within(Duration.ofSeconds(10), () -> !shell.isOpen()), "the idle shell channel stayed open");
            assertTrue(s.isOpen(), "ChannelTimeout ended the connection");
            assertEquals(1, srv.activeSessions());
        }
        // a pattern for other types leaves the shell alone
        try (PqsshServer srv = start(settings("ChannelTimeout session:command=1 direct-tcpip=1"))) {
            ChannelShell shell = shell(login(srv));
            assertFalse(within(Duration.ofSeconds(3), () -> !shell.isOpen()), "a shell closed by another type's timeout");
        }
    }

    @Test
    void unusedConnectionTimeoutDropsAConnectionWithoutChannelsOnly() throws Exception {
        try (PqsshServer srv = start(settings("UnusedConnectionTimeout 1"))) {
            ClientSession busy = login(srv);
            ChannelShell shell = shell(busy);
            ClientSession unused = login(srv);
            int unusedPort = ((java.net.InetSocketAddress) unused.getIoSession().getLocalAddress()).getPort();
            assertTrue(within(Duration.ofSeconds(10), () -> !unused.isOpen()), "the unused connection stayed open");
            assertTrue(within(Duration.ofSeconds(5), () -> log().contains(
                    "terminating inactive connection from user tim 127.0.0.1 port " + unusedPort)), log());
            assertTrue(busy.isOpen() && shell.isOpen(), "a connection with an open channel was dropped");
            shell.close(false).await(Duration.ofSeconds(10));
            assertTrue(within(Duration.ofSeconds(10), () -> !busy.isOpen()),
                    "the connection stayed open after its last channel closed");
        }
    }

    @Test
    void keywordsParseAsSshd() throws Exception {
        ConnectionTimeouts.Settings none = new ServerConfig().timeouts;
        assertEquals(Duration.ZERO, none.clientAliveInterval());
        assertEquals(3, none.clientAliveCountMax(), "sshd's default");
        assertEquals("none", none.channelTimeoutsText());
        assertEquals(Duration.ZERO, none.unusedConnectionTimeout());
        ConnectionTimeouts.Settings s = settings("ClientAliveInterval 2m", "ClientAliveCountMax 0",
                "ChannelTimeout session=5m global=1h", "ChannelTimeout direct-tcpip=1", "UnusedConnectionTimeout none");
        assertEquals(Duration.ofMinutes(2), s.clientAliveInterval());
        assertEquals(0, s.clientAliveCountMax());
        assertEquals("session=300 global=3600", s.channelTimeoutsText(), "first ChannelTimeout line wins");
        assertEquals(Duration.ZERO, s.unusedConnectionTimeout());
        for (String bad : List.of("ChannelTimeout session", "ChannelTimeout =5", "ChannelTimeout session=5 none",
                "ClientAliveCountMax -1", "ClientAliveInterval -5", "UnusedConnectionTimeout soon")) {
            ServerConfig.ConfigException e = assertThrows(ServerConfig.ConfigException.class,
                    () -> new ServerConfig().apply(bad, "f:9"), bad);
            assertTrue(e.getMessage().startsWith("f:9: "), e.getMessage());
        }
    }
}
