package io.pqssh.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.io.nio2.Nio2ServiceFactoryFactory;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.session.helpers.AbstractSession;
import org.apache.sshd.common.util.buffer.Buffer;
import org.junit.jupiter.api.Test;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/** pqssh client → pqssh server over loopback with write coalescing on and off on either side. */
class CoalescedLoginTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final KeyPair HOST = ed25519();
    private static final KemKeyPair KEM = io.pqssh.core.kem.MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
    private static final KeyPair USER = ed25519();

    static KeyPair ed25519() {
        try {
            return org.apache.sshd.common.config.keys.KeyUtils.generateKeyPair("ssh-ed25519", 256);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * NIO2 underneath the server, counting the writes it is handed per connection while the SSH session is not yet
     * authenticated: that is the number of writes the network sees for the handshake and authentication.
     */
    static final class PreAuthWriteCounter extends WrappingIoServiceFactoryFactory {
        final List<AtomicInteger> perConnection = new CopyOnWriteArrayList<>();

        PreAuthWriteCounter() {
            super(new Nio2ServiceFactoryFactory());
        }

        @Override
        protected IoHandler wrap(IoHandler handler) {
            return new SessionWrappingIoHandler<>(handler, transport -> {
                AtomicInteger n = new AtomicInteger();
                perConnection.add(n);
                return new CountingSession(transport, n);
            });
        }
    }

    /** Counts writes while the SSH session attached to it is unauthenticated; the rest is the NIO2 session's. */
    static final class CountingSession extends ForwardingIoSession {
        private final AtomicInteger preAuthWrites;

        CountingSession(IoSession io, AtomicInteger preAuthWrites) {
            super(io);
            this.preAuthWrites = preAuthWrites;
        }

        @Override
        public IoWriteFuture writeBuffer(Buffer buffer) throws IOException {
            AbstractSession s = AbstractSession.getSession(this, true);
            if (s == null || !s.isAuthenticated()) {
                preAuthWrites.incrementAndGet();
            }
            return super.writeBuffer(buffer);
        }
    }

    private static PqsshServer server(boolean coalesce, PreAuthWriteCounter counter) throws IOException {
        return PqsshServer.builder().systemShell().sftp(true)
                .host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .coalesceWrites(coalesce).transport(counter)
                .kem(KemServerSettings.builder()
                        .authorizer((u, c, a) -> "alice".equals(u) && c.samePublicKey(KEM.publicKey())).build())
                .publickey((u, k, s) -> "alice".equals(u) && k.equals(USER.getPublic()))
                .start();
    }

    private static PqsshClient.Builder client(boolean coalesce, String method) {
        PqsshClient.Builder b = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                .warningSink(w -> { }).timeout(Duration.ofSeconds(20)).coalesceWrites(coalesce)
                .preferredAuthentications(List.of(method));
        return "publickey-kem".equals(method) ? b.kemIdentity(KemClientIdentity.of(KEM)) : b.identity(USER);
    }

    /** Logs in, checks the session works past authentication and returns the server's pre-auth write count. */
    private static int login(boolean serverOn, boolean clientOn, String method) throws Exception {
        PreAuthWriteCounter counter = new PreAuthWriteCounter();
        try (PqsshServer srv = server(serverOn, counter); PqsshClient cli = client(clientOn, method).start();
                ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            assertTrue(s.isAuthenticated());
            CoalescingIoSession c = CoalescingIoSession.of(s.getIoSession());
            if (clientOn) {
                assertNotNull(c, "client session is coalescing");
                assertTrue(c.writesOut() < c.writesIn(),
                        "client combined writes: " + c.writesIn() + " calls, " + c.writesOut() + " writes");
            } else {
                assertNull(c, "client session is not coalescing");
            }
            // channel traffic after authentication, both directions, several packets
            String out = PqsshClient.execToString(s, "i=0; while [ $i -lt 200 ]; do echo line$i; i=$((i+1)); done",
                    Duration.ofSeconds(20));
            assertEquals(200, out.lines().count());
            assertTrue(out.endsWith("line199\n"));
            assertEquals("hi\n", PqsshClient.execToString(s, "echo hi", Duration.ofSeconds(20)));
            if (clientOn) {
                assertTrue(c.passingThrough(), "client passes writes through after authentication");
            }
            assertEquals(1, counter.perConnection.size());
            return counter.perConnection.get(0).get();
        }
    }

    @Test
    void kemLoginWithCoalescingOnAndOffAndTheServerWritesLessOften() throws Exception {
        int off = login(false, false, "publickey-kem");
        int on = login(true, true, "publickey-kem");
        System.out.println("server pre-auth writes, publickey-kem: off " + off + ", on " + on);
        assertTrue(on < off, "coalescing on: " + on + " writes before auth, off: " + off);
        // mixed: each side on its own
        login(true, false, "publickey-kem");
        login(false, true, "publickey-kem");
    }

    @Test
    void publickeyLoginWithCoalescingOnAndOff() throws Exception {
        int off = login(false, false, "publickey");
        int on = login(true, true, "publickey");
        System.out.println("server pre-auth writes, publickey: off " + off + ", on " + on);
        assertTrue(on < off, "coalescing on: " + on + " writes before auth, off: " + off);
    }
}
