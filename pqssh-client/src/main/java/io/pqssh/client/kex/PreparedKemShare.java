package io.pqssh.client.kex;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.kex.BuiltinKEM;
import org.apache.sshd.common.kex.KeyEncapsulationMethod;

/**
 * The post-quantum half of the client's first key exchange share, generated ahead on a thread of its own: an
 * sntrup761 key pair costs a just-started JVM ~60 ms of interpreted code, and waiting for it delayed the client's
 * first flight. The client starts this with the connection, before it reads its key files and starts MINA; the
 * thread works out which exchange the connection will run from the server's cached KEXINIT (the first of the
 * client's key exchanges that the server offers, as negotiation picks it; docs/round-trips.md).
 *
 * <p>Used at most once: the first exchange of the client whose name maps to the same KEM takes it, and every later
 * exchange (another session, a re-key, a wrong guess) generates its own key pair as MINA does. A share nobody takes
 * is dropped with the client. The X25519 or NIST half is still made by MINA when the exchange starts.
 */
public final class PreparedKemShare {
    /** On the {@code SshClient}: the share its first matching key exchange takes. */
    public static final AttributeKey<PreparedKemShare> KEY = new AttributeKey<>();

    /**
     * The X25519 hybrids and their KEM (the NIST-curve hybrids are left to MINA: their DH is not a
     * {@code CurveSizeIndicator}, which {@link PreparedKemDH} relies on).
     */
    private static final Map<String, BuiltinKEM> KEMS = Map.of(
            "mlkem768x25519-sha256", BuiltinKEM.mlkem768,
            "sntrup761x25519-sha512", BuiltinKEM.sntrup761,
            "sntrup761x25519-sha512@openssh.com", BuiltinKEM.sntrup761);

    private final FutureTask<Prepared> keyPair;
    private final AtomicBoolean taken = new AtomicBoolean();

    private PreparedKemShare(Supplier<Optional<String>> kexName) {
        this.keyPair = new FutureTask<>(() -> {
            BuiltinKEM kem = kexName.get().map(KEMS::get).orElse(null);
            if (kem == null || !kem.isSupported()) {
                return null;
            }
            KeyEncapsulationMethod.Client c = kem.getClient();
            c.init();
            return new Prepared(kem, c);
        });
    }

    /**
     * Starts a daemon thread that asks {@code kexName} which key exchange the first connection will run (from
     * cached knowledge of the server; empty when unknown) and, for a hybrid with a KEM, generates its key pair.
     */
    public static PreparedKemShare start(Supplier<Optional<String>> kexName) {
        PreparedKemShare share = new PreparedKemShare(kexName);
        Thread t = new Thread(share.keyPair, "pqssh-kex-share");
        t.setDaemon(true);
        t.start();
        return share;
    }

    /** The KEM this share holds a key pair for, once generated (waits for it); empty if none. */
    public Optional<String> kemName() {
        Prepared p = await();
        return p == null ? Optional.empty() : Optional.of(p.kem.getName());
    }

    /**
     * The initialised KEM client for an exchange named {@code kexName}, once: null if its KEM differs from the
     * prepared one or the share was taken. Waits for the generation if it is still running (or runs it here if
     * it never started).
     */
    KeyEncapsulationMethod.Client take(String kexName) {
        BuiltinKEM wanted = KEMS.get(kexName);
        if (wanted == null) {
            return null;
        }
        Prepared p = await();
        if (p == null || p.kem != wanted || !taken.compareAndSet(false, true)) {
            return null;
        }
        return p.client;
    }

    private Prepared await() {
        keyPair.run(); // no-op if the thread ran or runs it
        try {
            return keyPair.get();
        } catch (ExecutionException e) {
            return null; // the exchange makes its own key pair, and meets the same error there if there is one
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static final class Prepared {
        final BuiltinKEM kem;
        final KeyEncapsulationMethod.Client client;

        Prepared(BuiltinKEM kem, KeyEncapsulationMethod.Client client) {
            this.kem = kem;
            this.client = client;
        }
    }

    /** Whether an exchange has taken the share (for tests). */
    boolean isTaken() {
        return taken.get();
    }
}
