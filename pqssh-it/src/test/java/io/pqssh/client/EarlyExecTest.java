package io.pqssh.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.channel.ChannelListener;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.mina.TestKeys;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.server.PqsshServer;

/**
 * The opt-in early channel open against a pqssh server: the command runs and its output and exit status come back,
 * the server authenticates and then opens the channel (the open right behind the KEM response); without a KEM
 * response (publickey) nothing is sent early; a server that wants a second method fails the login instead of
 * hanging.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EarlyExecTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final KemKeyPair KEM = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();


    private static PqsshServer.Builder server() {
        return PqsshServer.builder().systemShell().sftp(true)
                .host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .kem(KemServerSettings.builder()
                        .authorizer((u, c, a) -> "alice".equals(u) && c.samePublicKey(KEM.publicKey())).build())
                .publickey((u, k, s) -> k.equals(USER.getPublic()));
    }

    private static PqsshClient.Builder client() {
        return PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE).warningSink(w -> { })
                .timeout(Duration.ofSeconds(20)).earlyChannelOpen(true);
    }

    /** Server-side order of events: "auth" when a session is authenticated, "open" when a channel is opened. */
    private static List<String> watch(PqsshServer srv) {
        List<String> events = new CopyOnWriteArrayList<>();
        srv.sshd().addSessionListener(new SessionListener() {
            @Override
            public void sessionEvent(Session session, Event event) {
                if (event == Event.Authenticated) {
                    events.add("auth");
                }
            }
        });
        srv.sshd().addChannelListener(new ChannelListener() {
            @Override
            public void channelOpenSuccess(Channel channel) {
                events.add("open");
            }
        });
        return events;
    }

    @Test
    void kemLoginOpensTheChannelBehindTheResponse() throws Exception {
        try (PqsshServer srv = server().start(); PqsshClient cli = client().kemIdentity(KemClientIdentity.of(KEM))
                .start()) {
            List<String> events = watch(srv);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            EarlyExec early = new EarlyExec("echo early; exit 7", out, new ByteArrayOutputStream());
            ClientSession s = cli.sshClient().connect("alice", "127.0.0.1", srv.port()).verify(Duration.ofSeconds(20))
                    .getSession();
            try (s) {
                s.setAttribute(io.pqssh.mina.auth.ClientKemUserAuthFactory.IDENTITY, KemClientIdentity.of(KEM));
                early.install(s);
                s.auth().verify(Duration.ofSeconds(20));
                assertTrue(early.sent() && early.used(), "sent behind the response, attached at USERAUTH_SUCCESS");
                assertEquals(7, early.awaitExit(Duration.ofSeconds(20)));
            }
            assertEquals("early\n", out.toString(StandardCharsets.UTF_8));
            assertEquals(List.of("auth", "open"), events);
            // the convenience path does the same
            ByteArrayOutputStream out2 = new ByteArrayOutputStream();
            assertEquals(3, cli.loginAndExec("alice", "127.0.0.1", srv.port(), "echo again; exit 3", out2,
                    new ByteArrayOutputStream()));
            assertEquals("again\n", out2.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void publickeyLoginSendsNothingEarlyAndRunsAsUsual() throws Exception {
        try (PqsshServer srv = server().start(); PqsshClient cli = client().identity(USER).start()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            EarlyExec early = new EarlyExec("echo late", out, new ByteArrayOutputStream());
            try (ClientSession s = cli.sshClient().connect("alice", "127.0.0.1", srv.port())
                    .verify(Duration.ofSeconds(20)).getSession()) {
                s.addPublicKeyIdentity(USER);
                early.install(s);
                s.auth().verify(Duration.ofSeconds(20));
                assertFalse(early.sent() || early.used());
                assertThrows(IllegalStateException.class, () -> early.awaitExit(Duration.ofSeconds(1)));
                assertEquals(0, PqsshClient.exec(s, "echo late", out, new ByteArrayOutputStream(),
                        Duration.ofSeconds(20)));
            }
            assertEquals("late\n", out.toString(StandardCharsets.UTF_8));
            assertEquals(5, cli.loginAndExec("alice", "127.0.0.1", srv.port(), "exit 5", new ByteArrayOutputStream(),
                    new ByteArrayOutputStream()));
        }
    }

    @Test
    void aServerWantingASecondMethodFailsTheLoginInsteadOfHanging() throws Exception {
        try (PqsshServer srv = server().authenticationMethods("publickey-kem,publickey").start();
                PqsshClient cli = client().kemIdentity(KemClientIdentity.of(KEM)).identity(USER).start()) {
            long t0 = System.nanoTime();
            assertThrows(java.io.IOException.class, () -> cli.loginAndExec("alice", "127.0.0.1", srv.port(), "true",
                    new ByteArrayOutputStream(), new ByteArrayOutputStream()));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "failed within the timeout");
        }
        // the same server with the option off logs in over both methods
        try (PqsshServer srv = server().authenticationMethods("publickey-kem,publickey").start();
                PqsshClient cli = client().earlyChannelOpen(false).kemIdentity(KemClientIdentity.of(KEM))
                        .identity(USER).start()) {
            assertEquals(0, cli.loginAndExec("alice", "127.0.0.1", srv.port(), "true", new ByteArrayOutputStream(),
                    new ByteArrayOutputStream()));
        }
    }
}
