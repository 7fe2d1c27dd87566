package io.pqssh.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ChannelShell;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.exception.SshChannelOpenException;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.junit.jupiter.api.Test;

import io.pqssh.mina.TestKeys;

/**
 * sshd's MaxSessions: 25 session channels on one connection give 10 open ones (the default) and 15 refusals as
 * sshd refuses them (CHANNEL_OPEN_FAILURE, reason 2 "connect failed", "open failed"); closing one frees its slot;
 * MaxSessions 0 refuses every session; the keyword is read from sshd_config syntax.
 */
class MaxSessionsTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();

    /** A shell that runs until its channel goes away, so each channel stays open. */
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

    private static PqsshServer start(Integer maxSessions) throws Exception {
        PqsshServer.Builder b = PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> k.equals(USER.getPublic())).shellFactory(channel -> new IdleShell());
        if (maxSessions != null) {
            b.maxSessions(maxSessions);
        }
        return b.start();
    }

    private static ChannelShell open(ClientSession s) throws Exception {
        ChannelShell shell = s.createShellChannel();
        shell.setOut(OutputStream.nullOutputStream());
        shell.setErr(OutputStream.nullOutputStream());
        shell.open().verify(Duration.ofSeconds(30));
        return shell;
    }

    private interface Check {
        void run(ClientSession s) throws Exception;
    }

    private static void login(PqsshServer srv, Check check) throws Exception {
        SshClient c = SshClient.setUpDefaultClient();
        c.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
        c.start();
        try (ClientSession s = c.connect("u", "127.0.0.1", srv.port()).verify(Duration.ofSeconds(30)).getSession()) {
            s.addPublicKeyIdentity(USER);
            s.auth().verify(Duration.ofSeconds(30));
            check.run(s);
        } finally {
            c.stop();
        }
    }

    /** The CHANNEL_OPEN_FAILURE under MINA's wrapping, or null when {@code e} is another error. */
    private static SshChannelOpenException openFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SshChannelOpenException o) {
                return o;
            }
        }
        return null;
    }

    private static void assertRefusedAsSshd(ClientSession s) {
        Exception thrown = assertThrows(Exception.class, () -> open(s).close());
        SshChannelOpenException e = openFailure(thrown);
        assertTrue(e != null, "not a channel open failure: " + thrown);
        assertEquals(SshConstants.SSH_OPEN_CONNECT_FAILED, e.getReasonCode(), e.toString());
        assertEquals("open failed", e.getMessage());
    }

    @Test
    void twentyFiveSessionsOnOneConnectionOpenTenByDefault() throws Exception {
        try (PqsshServer srv = start(null)) {
            login(srv, s -> {
                List<ChannelShell> open = new ArrayList<>();
                int refused = 0;
                for (int i = 0; i < 25; i++) {
                    try {
                        open.add(open(s));
                    } catch (java.io.IOException e) {
                        SshChannelOpenException o = openFailure(e);
                        assertTrue(o != null, "not a channel open failure: " + e);
                        assertEquals(SshConstants.SSH_OPEN_CONNECT_FAILED, o.getReasonCode(), o.toString());
                        assertEquals("open failed", o.getMessage());
                        refused++;
                    }
                }
                assertEquals(10, open.size(), "sessions opened on one connection");
                assertEquals(15, refused);
                // a closed session frees its slot, as sshd's session_close does
                open.remove(0).close(false).await(Duration.ofSeconds(30));
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                ChannelShell again = null;
                while (again == null && System.nanoTime() < deadline) {
                    try {
                        again = open(s);
                    } catch (java.io.IOException e) {
                        assertTrue(openFailure(e) != null, "not a channel open failure: " + e);
                        Thread.sleep(50);
                    }
                }
                assertTrue(again != null, "no session could open after one was closed");
                open.add(again);
                assertRefusedAsSshd(s);
                for (ChannelShell ch : open) {
                    ch.close(true);
                }
            });
        }
    }

    @Test
    void maxSessionsZeroRefusesEverySession() throws Exception {
        try (PqsshServer srv = start(0)) {
            login(srv, MaxSessionsTest::assertRefusedAsSshd);
        }
    }

    @Test
    void keywordIsParsed() throws Exception {
        ServerConfig c = new ServerConfig();
        assertEquals(10, c.maxSessions, "sshd's default");
        c.apply("MaxSessions 3", "t:1");
        c.apply("MaxSessions 5", "t:2");
        assertEquals(3, c.maxSessions, "first value wins");
        ServerConfig.ConfigException e = assertThrows(ServerConfig.ConfigException.class,
                () -> new ServerConfig().apply("MaxSessions -1", "t:3"));
        assertTrue(e.getMessage().startsWith("t:3: MaxSessions"), e.getMessage());
    }
}
