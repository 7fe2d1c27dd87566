package io.pqssh.mina.drills;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.apache.sshd.client.auth.AbstractUserAuth;
import org.apache.sshd.client.auth.AbstractUserAuthFactory;
import org.apache.sshd.client.auth.UserAuth;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.buffer.Buffer;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.mina.auth.ClientKemUserAuthFactory;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;
import io.pqssh.mina.server.PreAuthLimits;

/**
 * A loopback server for the drills and a legitimate client that keeps logging in with publickey-kem from
 * 127.0.0.2 while the attack comes from 127.0.0.1 (all of 127.0.0.0/8 is loopback on Linux).
 */
final class DrillServer implements AutoCloseable {
    static final Duration T = Duration.ofSeconds(10);
    static final InetSocketAddress LEGIT_SOURCE = new InetSocketAddress("127.0.0.2", 0);
    static final InetSocketAddress ATTACK_SOURCE = new InetSocketAddress("127.0.0.1", 0);
    private static final SecureRandom RANDOM = new SecureRandom();

    final KemKeyPair key = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
    final PqsshServer server;
    final PreAuthLimits limits;

    DrillServer(PreAuthLimits.Settings settings, Duration loginGraceTime) throws IOException {
        byte[] pk = key.publicKey();
        KemServerSettings kem = KemServerSettings.builder()
                .authorizer((user, cred, addr) -> "alice".equals(user) && cred.samePublicKey(pk))
                .maxPending(1024, 32).build();
        server = PqsshServer.builder().systemShell().sftp(true)
                .host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(hostKey()))
                .kem(kem).loginGraceTime(loginGraceTime).preAuthLimits(settings).start();
        limits = PreAuthLimits.of(server.sshd()).orElseThrow();
    }

    /** MaxStartups 100:30:200, PerSourceMaxStartups 24: one attacking address cannot fill MaxStartups. */
    static PreAuthLimits.Settings drillSettings() {
        return PreAuthLimits.Settings.defaults().maxStartups("100:30:200").perSourceMaxStartups("24");
    }

    int port() {
        return server.port();
    }

    PqsshClient legitClient() {
        return PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE).warningSink(w -> { })
                .kemIdentity(KemClientIdentity.of(key)).timeout(T).start();
    }

    /** One publickey-kem login from {@link #LEGIT_SOURCE}; throws when it fails. */
    void login(PqsshClient cli) throws IOException {
        login(cli, LEGIT_SOURCE);
    }

    /** One publickey-kem login from {@code source}; throws when it fails. */
    void login(PqsshClient cli, InetSocketAddress source) throws IOException {
        try (ClientSession s = cli.sshClient().connect("alice", new InetSocketAddress("127.0.0.1", port()),
                source).verify(T).getSession()) {
            s.setAttribute(ClientKemUserAuthFactory.IDENTITY, KemClientIdentity.of(key));
            s.auth().verify(T);
            if (!s.isAuthenticated()) {
                throw new IOException("not authenticated");
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    static KeyPair hostKey() {
        try {
            return KeyUtils.generateKeyPair("ssh-ed25519", 256);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    static long heapAfterGc() {
        System.gc();
        return usedHeap();
    }

    static void waitUntil(String what, BooleanSupplier cond, Duration max) throws InterruptedException {
        long end = System.nanoTime() + max.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    /** The legitimate client's loop: logs in one after another until stopped, timing each login. */
    final class LegitLoop implements AutoCloseable {
        final AtomicInteger ok = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final List<Long> nanos = Collections.synchronizedList(new ArrayList<>());
        final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;
        private final PqsshClient cli = legitClient();

        LegitLoop() {
            this(LEGIT_SOURCE);
        }

        LegitLoop(InetSocketAddress source) {
            thread = new Thread(() -> {
                while (!stop.get()) {
                    long t0 = System.nanoTime();
                    try {
                        login(cli, source);
                        nanos.add(System.nanoTime() - t0);
                        ok.incrementAndGet();
                    } catch (Exception e) {
                        failed.incrementAndGet();
                        errors.add(e.toString());
                    }
                }
            }, "legit-client");
            thread.start();
        }

        /** Waits until at least {@code n} logins finished (successful or not). */
        void awaitLogins(int n) throws InterruptedException {
            waitUntil(n + " legitimate logins", () -> ok.get() + failed.get() >= n, Duration.ofSeconds(20));
        }

        double successRate() {
            int total = ok.get() + failed.get();
            return total == 0 ? 0 : 100.0 * ok.get() / total;
        }

        double p95Millis() {
            List<Long> copy;
            synchronized (nanos) {
                copy = new ArrayList<>(nanos);
            }
            Collections.sort(copy);
            return copy.isEmpty() ? Double.NaN : copy.get((int) Math.ceil(copy.size() * 0.95) - 1) / 1e6;
        }

        @Override
        public void close() throws Exception {
            stop.set(true);
            thread.join(T.toMillis() * 2);
            cli.close();
        }

        String report(String drill, long heapBefore, long heapDuring, long heapAfter, int pendingDuring) {
            return String.format("DRILL %s: legit logins %d ok / %d failed (%.1f %%), p95 %.1f ms; heap MiB "
                    + "before %.1f during %.1f after %.1f; pending KEM during %d after %d; refused %d",
                    drill, ok.get(), failed.get(), successRate(), p95Millis(), heapBefore / 1048576.0,
                    heapDuring / 1048576.0, heapAfter / 1048576.0, pendingDuring, server.pendingKemChallenges(),
                    limits.refused());
        }
    }

    /** A client method that sends a valid publickey-kem request and never answers the challenge. */
    static final class SilentKemAuth extends AbstractUserAuth {
        static final class Factory extends AbstractUserAuthFactory {
            final KemKeyPair key;
            final AtomicInteger challenges = new AtomicInteger();

            Factory(KemKeyPair key) {
                super(KemAuthMethod.PUBLICKEY_KEM.wireName());
                this.key = key;
            }

            @Override
            public UserAuth createUserAuth(ClientSession session) {
                return new SilentKemAuth(this);
            }
        }

        private final Factory f;
        private boolean sent;

        SilentKemAuth(Factory f) {
            super(KemAuthMethod.PUBLICKEY_KEM.wireName());
            this.f = f;
        }

        @Override
        protected boolean sendAuthDataRequest(ClientSession session, String service) throws Exception {
            if (sent) {
                return false;
            }
            sent = true;
            Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_REQUEST, 1400);
            out.putString(session.getUsername());
            out.putString(service);
            out.putString(KemAuthMethod.PUBLICKEY_KEM.wireName());
            out.putString(KemAlgorithm.MLKEM768.sshName());
            out.putBytes(f.key.publicKey());
            session.writePacket(out);
            return true;
        }

        @Override
        protected boolean processAuthDataRequest(ClientSession session, String service, Buffer buffer) {
            if (buffer.getUByte() == KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE) {
                f.challenges.incrementAndGet();
                return true; // and never respond
            }
            return false;
        }
    }

}
