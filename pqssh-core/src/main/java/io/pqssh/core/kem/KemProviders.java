package io.pqssh.core.kem;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <li>{@code jdk}: the JDK's if it exists and agrees (no timing), otherwise Bouncy Castle with a warning.</li>
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
    private static volatile KemEncapsulator current;
    private static CompletableFuture<Selection> selection; // guarded by KemProviders.class

    private KemProviders() {
    }

    /** What was chosen and why; the timings are medians per operation in microseconds (NaN when not timed). */
    public record Selection(KemEncapsulator encapsulator, String mode, String reason, double bcMicros,
            double jdkMicros, double jdkToBcRatio) {
        public String describe() {
            String t = Double.isNaN(bcMicros) ? "" : String.format(Locale.ROOT,
                    " (ML-KEM-768 encaps median BC %.1f us, JDK %.1f us, JDK/BC %.2f)", bcMicros, jdkMicros,
                    jdkToBcRatio);
            return "ML-KEM encapsulation provider " + encapsulator.name() + " [" + PROPERTY + "=" + mode + "]: "
                    + reason + t;
        }
    }

    public static KemEncapsulator bc() {
        return BcKemEncapsulator.INSTANCE;
    }

    /** The JDK's ML-KEM encapsulation, or empty when this JDK has none. */
    public static Optional<KemEncapsulator> jdk() {
        return JdkKemEncapsulator.create();
    }

    /**
     * Starts the selection once per JVM on a background daemon thread (the timing needs both providers JIT-compiled,
     * which takes a second or two, and must not delay start-up or a login); until it completes,
     * {@link #encapsulator()} returns Bouncy Castle. An invalid {@value #PROPERTY} value fails here, at once.
     */
    public static synchronized CompletableFuture<Selection> startSelection() {
        if (selection == null) {
            String mode = mode(System.getProperty(PROPERTY, "auto"));
            CompletableFuture<Selection> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    Selection s = select(mode, jdk());
                    current = s.encapsulator();
                    LOG.info("{}", s.describe());
                    f.complete(s);
                } catch (RuntimeException | Error e) {
                    LOG.warn("ML-KEM provider selection failed, staying with Bouncy Castle: {}", e.toString());
                    f.completeExceptionally(e);
                }
            }, "pqssh-kem-provider-selection");
            t.setDaemon(true);
            t.start();
            selection = f;
        }
        return selection;
    }

    /** The finished selection (starts it if needed and waits for it): what the server uses from then on. */
    public static Selection selected() {
        return startSelection().join();
    }

    /** The provider to use now: the selected one, or Bouncy Castle while the selection is still running. */
    public static KemEncapsulator encapsulator() {
        KemEncapsulator c = current;
        if (c != null) {
            return c;
        }
        startSelection();
        return bc();
    }

    private static String mode(String mode) {
        String m = mode == null ? "auto" : mode.trim().toLowerCase(Locale.ROOT);
        if (!m.equals("bc") && !m.equals("jdk") && !m.equals("auto")) {
            throw new IllegalArgumentException("system property " + PROPERTY + " must be bc, jdk or auto, got '"
                    + mode + "'");
        }
        return m;
    }

    /** Pure selection logic (testable): {@code mode} is bc, jdk or auto; {@code jdk} the candidate if any. */
    public static Selection select(String mode, Optional<KemEncapsulator> jdk) {
        String m = mode(mode);
        if (m.equals("bc")) {
            return new Selection(bc(), m, "forced", Double.NaN, Double.NaN, Double.NaN);
        }
        if (jdk.isEmpty()) {
            return warnIfForced(m, "the JDK has no ML-KEM");
        }
        Optional<String> disagreement = disagreement(jdk.get(), AGREEMENT_ITERATIONS);
        if (disagreement.isPresent()) {
            return warnIfForced(m, "JDK ML-KEM failed the self-check: " + disagreement.get());
        }
        if (m.equals("jdk")) {
            return new Selection(jdk.get(), m, "forced, agrees with BC", Double.NaN, Double.NaN, Double.NaN);
        }
        // JIT warm-up of the JDK's ML-KEM takes seconds on a loaded machine: time in passes until two passes in a
        // row give the same verdict (at most MAX_PASSES), and use the last
        double[] t = time(bc(), jdk.get());
        boolean faster = t[2] * (100 + MIN_SPEEDUP_PERCENT) <= 100;
        for (int pass = 1; pass < MAX_PASSES; pass++) {
            double[] next = time(bc(), jdk.get());
            boolean f = next[2] * (100 + MIN_SPEEDUP_PERCENT) <= 100;
            t = next;
            if (f == faster) {
                break;
            }
            faster = f;
        }
        return new Selection(faster ? jdk.get() : bc(), m, faster ? "JDK agrees with BC and is faster"
                : "JDK agrees with BC but is not " + MIN_SPEEDUP_PERCENT + " % faster", t[0], t[1], t[2]);
    }

    private static Selection warnIfForced(String mode, String why) {
        if (mode.equals("jdk")) {
            LOG.warn("{}={} requested but {}; using Bouncy Castle", PROPERTY, mode, why);
        }
        return new Selection(bc(), mode, why + "; Bouncy Castle", Double.NaN, Double.NaN, Double.NaN);
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

    /**
     * Microseconds per ML-KEM-768 encapsulation of {BC, candidate}: a time-bounded warm-up (so both are JIT-compiled,
     * as they are on a running server), then interleaved rounds; the per-round medians, and the rule is applied to
     * the median of the per-round ratios, which other load on the machine affects least.
     */
    static double[] time(KemEncapsulator bc, KemEncapsulator other) {
        SecureRandom rnd = new SecureRandom();
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, rnd);
        byte[] pk = kp.publicKey();
        kp.destroy();
        long warmEnd = System.nanoTime() + WARMUP_MILLIS * 1_000_000L;
        for (int i = 0; i < WARMUP_OPS_MAX && System.nanoTime() < warmEnd; i += 20) {
            run(bc, pk, rnd, 20);
            run(other, pk, rnd, 20);
        }
        int rounds = 15;
        double[] b = new double[rounds];
        double[] o = new double[rounds];
        double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            b[r] = run(bc, pk, rnd, TIMED_OPS / rounds);
            o[r] = run(other, pk, rnd, TIMED_OPS / rounds);
            ratio[r] = o[r] / b[r];
        }
        Arrays.sort(b);
        Arrays.sort(o);
        Arrays.sort(ratio);
        return new double[] {b[rounds / 2], o[rounds / 2], ratio[rounds / 2]};
    }

    private static double run(KemEncapsulator e, byte[] pk, SecureRandom rnd, int ops) {
        long t0 = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            e.encapsulate(KemAlgorithm.MLKEM768, pk, rnd).destroy();
        }
        return (System.nanoTime() - t0) / 1000.0 / ops;
    }
}
