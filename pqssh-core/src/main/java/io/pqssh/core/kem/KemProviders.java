package io.pqssh.core.kem;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.provider.ProviderChoice;

/**
 * Chooses the ML-KEM encapsulation provider of the server, once per JVM. System property {@value #PROPERTY}:
 * <ul>
 * <li>{@code auto} (default): the JDK's ML-KEM if it exists, agrees with Bouncy Castle (JDK encapsulation, BC
 * decapsulation, same secret, every parameter set, several iterations; an unreduced key rejected) and is at least
 * {@value #MIN_SPEEDUP_PERCENT} % faster on ML-KEM-768 in a short timing (passes of up to 1.5 s warm-up and 600
 * operations each, interleaved, until two passes agree, at most {@value #MAX_PASSES}; once per JVM, in the
 * background: see {@link #startSelection()});
 * otherwise Bouncy Castle;</li>
 * <li>{@code bc}: Bouncy Castle, no self-check;</li>
 * <li>{@code jdk}: the JDK's if it agrees (no timing), otherwise Bouncy Castle with a warning; on a JDK without
 * one (Java 17 to 23) {@link #startSelection()} throws {@link IllegalStateException} saying so.</li>
 * </ul>
 * The choice is logged once at INFO. Servers call {@link #startSelection()} at start-up.
 */
public final class KemProviders {
    public static final String PROPERTY = "pqssh.kem.provider";
    static final int MIN_SPEEDUP_PERCENT = 10;
    static final int AGREEMENT_ITERATIONS = 4;
    static final long WARMUP_MILLIS = 1500;
    static final int WARMUP_OPS_MAX = 40_000;
    static final int TIMED_OPS = 600;
    static final int MAX_PASSES = 5;

    private static final Logger LOG = LoggerFactory.getLogger(KemProviders.class);
    private static final ProviderChoice<KemEncapsulator, Selection> CHOICE = new ProviderChoice<>(PROPERTY, "ML-KEM",
            "encapsulation", "ML-KEM-768 encaps", BcKemEncapsulator.INSTANCE, KemProviders::jdk,
            KemEncapsulator::name, KemProviders::disagreement, KemProviders::mlKem768Encapsulation,
            new ProviderChoice.Budget(MIN_SPEEDUP_PERCENT, AGREEMENT_ITERATIONS, WARMUP_MILLIS, WARMUP_OPS_MAX, 20,
                    TIMED_OPS, MAX_PASSES),
            Selection::of, LOG, "pqssh-kem-provider-selection");

    private KemProviders() {
    }

    /** What was chosen and why; the timings are medians per operation in microseconds (NaN when not timed). */
    public record Selection(KemEncapsulator encapsulator, String mode, String reason, double bcMicros,
            double jdkMicros, double jdkToBcRatio) {
        static Selection of(ProviderChoice.Outcome<KemEncapsulator> o) {
            return new Selection(o.chosen(), o.mode(), o.reason(), o.bcMicros(), o.jdkMicros(), o.jdkToBcRatio());
        }

        public String describe() {
            return CHOICE.describe(encapsulator, mode, reason, bcMicros, jdkMicros, jdkToBcRatio);
        }
    }

    public static KemEncapsulator bc() {
        return BcKemEncapsulator.INSTANCE;
    }

    /** The JDK's ML-KEM encapsulation, or empty when this JDK has none. */
    public static Optional<KemEncapsulator> jdk() {
        return JdkMlKem.create();
    }

    /**
     * Starts the selection once per JVM on a background daemon thread (the timing needs both providers JIT-compiled,
     * which takes a second or two, and must not delay start-up or a login); until it completes,
     * {@link #encapsulator()} returns Bouncy Castle. An invalid {@value #PROPERTY} value fails here, at once.
     */
    public static CompletableFuture<Selection> startSelection() {
        return CHOICE.start();
    }

    /** The finished selection (starts it if needed and waits for it): what the server uses from then on. */
    public static Selection selected() {
        return startSelection().join();
    }

    /** The provider to use now: the selected one, or Bouncy Castle while the selection is still running. */
    public static KemEncapsulator encapsulator() {
        KemEncapsulator c = CHOICE.current();
        if (c != null) {
            return c;
        }
        startSelection();
        return bc();
    }

    /** Pure selection logic (testable): {@code mode} is bc, jdk or auto; {@code jdk} the candidate if any. */
    public static Selection select(String mode, Optional<KemEncapsulator> jdk) {
        return CHOICE.select(mode, jdk);
    }

    /**
     * Empty when {@code candidate} agrees with Bouncy Castle: for every parameter set, {@code iterations} fresh BC key
     * pairs, candidate encapsulation decapsulated by BC to the same secret with the right ciphertext length, and a
     * key with an unreduced coefficient rejected. Otherwise what went wrong.
     */
    public static Optional<String> disagreement(KemEncapsulator candidate, int iterations) {
        SecureRandom rnd = new SecureRandom();
        for (KemAlgorithm a : KemAlgorithm.values()) {
            for (int i = 0; i < iterations; i++) {
                KemKeyPair kp = MlKem.generate(a, rnd);
                Encapsulation e;
                try {
                    e = candidate.encapsulate(a, kp.publicKey(), rnd);
                } catch (RuntimeException ex) {
                    return Optional.of(a.sshName() + " encapsulation failed: " + ex);
                }
                try {
                    byte[] ct = e.ciphertext();
                    if (ct.length != a.ciphertextBytes()) {
                        return Optional.of(a.sshName() + " ciphertext is " + ct.length + " bytes");
                    }
                    byte[] ss = kp.decapsulate(ct);
                    boolean same = Arrays.equals(ss, e.sharedSecret());
                    Arrays.fill(ss, (byte) 0);
                    if (!same) {
                        return Optional.of(a.sshName() + " BC decapsulates a different secret");
                    }
                } finally {
                    e.destroy();
                    kp.destroy();
                }
            }
            byte[] bad = MlKem.generate(a, rnd).publicKey();
            bad[0] = (byte) 0xFF; // first coefficient 0xFFF >= q
            bad[1] = (byte) (bad[1] | 0x0F);
            try {
                candidate.encapsulate(a, bad, rnd).destroy();
                return Optional.of(a.sshName() + " key with an unreduced coefficient accepted");
            } catch (IllegalArgumentException expected) {
                // as BC does
            }
        }
        return Optional.empty();
    }

    /** ML-KEM-768 encapsulation to one fresh key: the operation the choice is timed on. */
    private static ProviderChoice.TimedOperation<KemEncapsulator> mlKem768Encapsulation() {
        SecureRandom rnd = new SecureRandom();
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, rnd);
        byte[] pk = kp.publicKey();
        kp.destroy();
        return e -> e.encapsulate(KemAlgorithm.MLKEM768, pk, rnd).destroy();
    }
}
