package io.pqssh.core.provider;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import org.slf4j.Logger;

/**
 * Chooses, once per JVM, between Bouncy Castle and the JDK's implementation of one operation (ML-KEM encapsulation,
 * ML-DSA verification): a system property of mode {@code bc}, {@code jdk} or {@code auto}; in {@code auto} the JDK's
 * is taken only if it passes a self-check against Bouncy Castle and is at least a given percentage faster in a short
 * timing. The choice runs on a background daemon thread and is logged once at INFO on the caller's logger, so the
 * log line is the same whichever operation it is for.
 *
 * @param <T> the operation's interface, implemented by both providers
 * @param <S> what a selection is reported as to the callers
 */
public final class ProviderChoice<T, S> {
    /** Interleaved timing rounds per pass: their medians are what a short burst of other load disturbs least. */
    private static final int ROUNDS = 15;

    /** Empty when {@code candidate} agrees with Bouncy Castle, otherwise what went wrong. */
    @FunctionalInterface
    public interface SelfCheck<T> {
        Optional<String> disagreement(T candidate, int iterations);
    }

    /** One run of the timed operation on fixed inputs, made once per timing pass. */
    @FunctionalInterface
    public interface TimedOperation<T> {
        void runOnce(T implementation);
    }

    /**
     * The rule and time budget: the JDK must be {@code minSpeedupPercent} % faster; the warm-up runs in batches of
     * {@code warmupBatch} for up to {@code warmupMillis} ms or {@code warmupOpsMax} operations, then
     * {@code timedOps} operations are timed per pass, at most {@code maxPasses} passes.
     */
    public record Budget(int minSpeedupPercent, int agreementIterations, long warmupMillis, int warmupOpsMax,
            int warmupBatch, int timedOps, int maxPasses) {
    }

    /** What was chosen and why; the timings are medians per operation in microseconds (NaN when not timed). */
    public record Outcome<T>(T chosen, String mode, String reason, double bcMicros, double jdkMicros,
            double jdkToBcRatio) {
    }

    private final String property;
    private final String algorithm;
    private final String role;
    private final String timedLabel;
    private final T bc;
    private final Supplier<Optional<T>> jdk;
    private final Function<T, String> name;
    private final SelfCheck<T> selfCheck;
    private final Supplier<TimedOperation<T>> timedOperation;
    private final Budget budget;
    private final Function<Outcome<T>, S> report;
    private final Logger log;
    private final String threadName;
    private volatile T current;
    private CompletableFuture<S> selection; // guarded by this

    /**
     * @param property the system property naming the mode, e.g. {@code pqssh.kem.provider}
     * @param algorithm e.g. {@code ML-KEM}, for the log lines
     * @param role e.g. {@code encapsulation}, for the description
     * @param timedLabel what is timed, e.g. {@code ML-KEM-768 encaps}, for the description
     * @param timedOperation makes the inputs of one timing pass and returns the operation on them
     * @param report turns an outcome into the caller's result type
     * @param log the logger of the class the choice is for, so the log lines carry its name
     */
    public ProviderChoice(String property, String algorithm, String role, String timedLabel, T bc,
            Supplier<Optional<T>> jdk, Function<T, String> name, SelfCheck<T> selfCheck,
            Supplier<TimedOperation<T>> timedOperation, Budget budget, Function<Outcome<T>, S> report, Logger log,
            String threadName) {
        this.property = property;
        this.algorithm = algorithm;
        this.role = role;
        this.timedLabel = timedLabel;
        this.bc = bc;
        this.jdk = jdk;
        this.name = name;
        this.selfCheck = selfCheck;
        this.timedOperation = timedOperation;
        this.budget = budget;
        this.report = report;
        this.log = log;
        this.threadName = threadName;
    }

    /**
     * Starts the selection once on a background daemon thread (the timing needs both providers JIT-compiled, which
     * takes a second or two, and must not delay start-up or a login). Every call returns the same future, so the
     * same result object. An invalid property value fails here, at once, and so does {@code jdk} on a JDK without
     * the algorithm.
     */
    public synchronized CompletableFuture<S> start() {
        if (selection == null) {
            String mode = mode(System.getProperty(property, "auto"));
            Optional<T> forced = mode.equals("jdk") ? requireJdk() : null;
            CompletableFuture<S> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    Outcome<T> o = choose(mode, forced != null ? forced : jdk.get());
                    current = o.chosen();
                    log.info("{}", describe(o));
                    f.complete(report.apply(o));
                } catch (RuntimeException | Error e) {
                    log.warn("{} provider selection failed, staying with Bouncy Castle: {}", algorithm, e.toString());
                    f.completeExceptionally(e);
                }
            }, threadName);
            t.setDaemon(true);
            t.start();
            selection = f;
        }
        return selection;
    }

    /**
     * {@code jdk} asked for explicitly on a JDK without the algorithm (Java 17 to 23 for ML-KEM and ML-DSA) is a
     * configuration error, refused at start-up rather than logged and ignored.
     */
    private Optional<T> requireJdk() {
        Optional<T> candidate = jdk.get();
        if (candidate.isEmpty()) {
            throw new IllegalStateException(property + "=jdk, but this JDK (" + Runtime.version() + ", "
                    + System.getProperty("java.vendor") + ") has no " + algorithm + " of its own (JDK 24 or later "
                    + "has): run on JDK 24+ or set " + property + "=auto or bc");
        }
        return candidate;
    }

    /** The selected implementation, or null while none is (yet) selected. */
    public T current() {
        return current;
    }

    /** Tests only: makes {@code implementation} the current one and returns the previous one (null when none). */
    public synchronized T swapForTest(T implementation) {
        T old = current;
        current = implementation;
        return old;
    }

    /** The normalised mode; anything but bc, jdk or auto is refused with the property's name in the message. */
    public String mode(String mode) {
        String m = mode == null ? "auto" : mode.trim().toLowerCase(Locale.ROOT);
        if (!m.equals("bc") && !m.equals("jdk") && !m.equals("auto")) {
            throw new IllegalArgumentException("system property " + property + " must be bc, jdk or auto, got '"
                    + mode + "'");
        }
        return m;
    }

    /** Pure selection logic (testable): {@code mode} is bc, jdk or auto; {@code candidate} the JDK's if any. */
    public S select(String mode, Optional<T> candidate) {
        return report.apply(choose(mode, candidate));
    }

    private Outcome<T> choose(String mode, Optional<T> candidate) {
        String m = mode(mode);
        if (m.equals("bc")) {
            return new Outcome<>(bc, m, "forced", Double.NaN, Double.NaN, Double.NaN);
        }
        if (candidate.isEmpty()) {
            return warnIfForced(m, "the JDK has no " + algorithm);
        }
        Optional<String> disagreement = selfCheck.disagreement(candidate.get(), budget.agreementIterations());
        if (disagreement.isPresent()) {
            return warnIfForced(m, "JDK " + algorithm + " failed the self-check: " + disagreement.get());
        }
        if (m.equals("jdk")) {
            return new Outcome<>(candidate.get(), m, "forced, agrees with BC", Double.NaN, Double.NaN, Double.NaN);
        }
        // JIT warm-up of the JDK's code takes seconds on a loaded machine: time in passes until two passes in a
        // row give the same verdict (at most maxPasses), and use the last
        double[] t = time(bc, candidate.get());
        boolean faster = isFaster(t[2]);
        for (int pass = 1; pass < budget.maxPasses(); pass++) {
            double[] next = time(bc, candidate.get());
            boolean f = isFaster(next[2]);
            t = next;
            if (f == faster) {
                break;
            }
            faster = f;
        }
        return new Outcome<>(faster ? candidate.get() : bc, m, faster ? "JDK agrees with BC and is faster"
                : "JDK agrees with BC but is not " + budget.minSpeedupPercent() + " % faster", t[0], t[1], t[2]);
    }

    /** Whether a JDK/BC time ratio meets the speed-up rule (BC's time at least minSpeedupPercent % above). */
    boolean isFaster(double jdkToBcRatio) {
        return jdkToBcRatio * (100 + budget.minSpeedupPercent()) <= 100;
    }

    private Outcome<T> warnIfForced(String mode, String why) {
        if (mode.equals("jdk")) {
            log.warn("{}={} requested but {}; using Bouncy Castle", property, mode, why);
        }
        return new Outcome<>(bc, mode, why + "; Bouncy Castle", Double.NaN, Double.NaN, Double.NaN);
    }

    /** The INFO line: provider, mode and reason, and the timings when there were any. */
    public String describe(T chosen, String mode, String reason, double bcMicros, double jdkMicros,
            double jdkToBcRatio) {
        String t = Double.isNaN(bcMicros) ? "" : String.format(Locale.ROOT,
                " (%s median BC %.1f us, JDK %.1f us, JDK/BC %.2f)", timedLabel, bcMicros, jdkMicros, jdkToBcRatio);
        return algorithm + " " + role + " provider " + name.apply(chosen) + " [" + property + "=" + mode + "]: "
                + reason + t;
    }

    private String describe(Outcome<T> o) {
        return describe(o.chosen(), o.mode(), o.reason(), o.bcMicros(), o.jdkMicros(), o.jdkToBcRatio());
    }

    /**
     * Microseconds per operation of {bc, other}: a time-bounded warm-up (so both are JIT-compiled, as they are on a
     * running server), then interleaved rounds; the per-round medians, and the median of the per-round ratios, which
     * other load on the machine affects least.
     */
    double[] time(T bcImpl, T other) {
        TimedOperation<T> op = timedOperation.get();
        long warmEnd = System.nanoTime() + budget.warmupMillis() * 1_000_000L;
        int batch = budget.warmupBatch();
        for (int i = 0; i < budget.warmupOpsMax() && System.nanoTime() < warmEnd; i += batch) {
            run(op, bcImpl, batch);
            run(op, other, batch);
        }
        double[] b = new double[ROUNDS];
        double[] o = new double[ROUNDS];
        double[] ratio = new double[ROUNDS];
        int perRound = budget.timedOps() / ROUNDS;
        for (int r = 0; r < ROUNDS; r++) {
            b[r] = run(op, bcImpl, perRound);
            o[r] = run(op, other, perRound);
            ratio[r] = o[r] / b[r];
        }
        Arrays.sort(b);
        Arrays.sort(o);
        Arrays.sort(ratio);
        return new double[] {b[ROUNDS / 2], o[ROUNDS / 2], ratio[ROUNDS / 2]};
    }

    private static <T> double run(TimedOperation<T> op, T implementation, int ops) {
        long t0 = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            op.runOnce(implementation);
        }
        return (System.nanoTime() - t0) / 1000.0 / ops;
    }
}
