package io.pqssh.core.sig;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.bouncycastle.crypto.params.MLDSAParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.sig.impl.MlDsaScheme;

/**
 * Chooses the provider of pure ML-DSA verification ({@code ssh-mldsa-44/65/87}: the server's cost per publickey
 * login with such a key), once per JVM, in the manner of {@link io.pqssh.core.kem.KemProviders}. System property
 * {@value #PROPERTY}:
 * <ul>
 * <li>{@code auto} (default): the JDK's ML-DSA if it exists, agrees with Bouncy Castle (every parameter set,
 * several BC-made signatures: valid ones accepted, changed message, changed signature, wrong key and malformed hint
 * encoding rejected, wrong lengths refused) and is at least {@value #MIN_SPEEDUP_PERCENT} % faster on ML-DSA-65 in
 * a short timing on one fixed key and signature (passes of up to 1.5 s warm-up and {@value #TIMED_OPS} operations
 * each, interleaved, until two passes agree, at most {@value #MAX_PASSES}); otherwise Bouncy Castle;</li>
 * <li>{@code bc}: Bouncy Castle, no self-check;</li>
 * <li>{@code jdk}: the JDK's if it exists and agrees (no timing), otherwise Bouncy Castle with a warning.</li>
 * </ul>
 * The timing runs only where a server asks for it with {@link #startSelection()} (clients verifying host keys and
 * key-file loading should not spend seconds of CPU on it); with the property set explicitly, the first
 * verification starts the selection too. Until the selection is done, verification uses Bouncy Castle. The
 * composites ({@code ssh-mldsa44-ed25519@openssh.com}, the Ed25519 AND composites) stay on Bouncy Castle.
 * The choice is logged once at INFO.
 */
public final class SigProviders {
    public static final String PROPERTY = "pqssh.sig.provider";
    // the same rule and budgets as io.pqssh.core.kem.KemProviders (its constants are package-private)
    static final int MIN_SPEEDUP_PERCENT = 10;
    static final int AGREEMENT_ITERATIONS = 3;
    static final long WARMUP_MILLIS = 1500;
    static final int WARMUP_OPS_MAX = 20_000;
    static final int TIMED_OPS = 300;
    static final int MAX_PASSES = 5;
    static final List<SignatureKeyType> TYPES = List.of(SignatureKeyType.MLDSA_44, SignatureKeyType.MLDSA_65,
            SignatureKeyType.MLDSA_87);

    private static final Logger LOG = LoggerFactory.getLogger(SigProviders.class);
    private static volatile MlDsaVerifier current;
    private static CompletableFuture<Selection> selection; // guarded by SigProviders.class

    private SigProviders() {
    }

    /** What was chosen and why; the timings are medians per operation in microseconds (NaN when not timed). */
    public record Selection(MlDsaVerifier verifier, String mode, String reason, double bcMicros, double jdkMicros,
            double jdkToBcRatio) {
        public String describe() {
            String t = Double.isNaN(bcMicros) ? "" : String.format(Locale.ROOT,
                    " (ML-DSA-65 verify median BC %.1f us, JDK %.1f us, JDK/BC %.2f)", bcMicros, jdkMicros,
                    jdkToBcRatio);
            return "ML-DSA verification provider " + verifier.name() + " [" + PROPERTY + "=" + mode + "]: " + reason
                    + t;
        }
    }

    private static final class Bc implements MlDsaVerifier {
        static final Bc INSTANCE = new Bc();

        @Override
        public String name() {
            return "BC";
        }

        @Override
        public boolean verify(SignatureKeyType type, byte[] publicKey, byte[] data, byte[] signature) {
            MlDsaVerifier.checkLengths(type, publicKey, signature);
            return MlDsaScheme.verify(MlDsaScheme.parameters(type), publicKey, null, data, signature);
        }

        @Override
        public String toString() {
            return "BC";
        }
    }

    public static MlDsaVerifier bc() {
        return Bc.INSTANCE;
    }

    /** The JDK's ML-DSA verification, or empty when this JDK has none. */
    public static Optional<MlDsaVerifier> jdk() {
        return JdkMlDsaVerifier.create();
    }

    /**
     * Starts the selection once per JVM on a background daemon thread (the timing needs both providers
     * JIT-compiled, a second or two, and must not delay start-up or a login); until it completes,
     * {@link #verifier()} returns Bouncy Castle. An invalid {@value #PROPERTY} value fails here, at once.
     */
    public static synchronized CompletableFuture<Selection> startSelection() {
        if (selection == null) {
            String mode = mode(System.getProperty(PROPERTY, "auto"));
            CompletableFuture<Selection> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    Selection s = select(mode, jdk());
                    current = s.verifier();
                    LOG.info("{}", s.describe());
                    f.complete(s);
                } catch (RuntimeException | Error e) {
                    LOG.warn("ML-DSA provider selection failed, staying with Bouncy Castle: {}", e.toString());
                    f.completeExceptionally(e);
                }
            }, "pqssh-sig-provider-selection");
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

    /** The verifier to use now: the selected one, or Bouncy Castle while none is (yet) selected. */
    public static MlDsaVerifier verifier() {
        MlDsaVerifier c = current;
        if (c != null) {
            return c;
        }
        if (System.getProperty(PROPERTY) != null) {
            startSelection();
        }
        return bc();
    }

    /** Tests only: makes {@code v} the current verifier and returns the previous one (null when none). */
    static synchronized MlDsaVerifier swapForTest(MlDsaVerifier v) {
        MlDsaVerifier old = current;
        current = v;
        return old;
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
    public static Selection select(String mode, Optional<MlDsaVerifier> jdk) {
        String m = mode(mode);
        if (m.equals("bc")) {
            return new Selection(bc(), m, "forced", Double.NaN, Double.NaN, Double.NaN);
        }
        if (jdk.isEmpty()) {
            return warnIfForced(m, "the JDK has no ML-DSA");
        }
        Optional<String> disagreement = disagreement(jdk.get(), AGREEMENT_ITERATIONS);
        if (disagreement.isPresent()) {
            return warnIfForced(m, "JDK ML-DSA failed the self-check: " + disagreement.get());
        }
        if (m.equals("jdk")) {
            return new Selection(jdk.get(), m, "forced, agrees with BC", Double.NaN, Double.NaN, Double.NaN);
        }
        // as for ML-KEM: JIT warm-up on a loaded machine takes seconds, so time in passes until two in a row give
        // the same verdict (at most MAX_PASSES), and use the last
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

    /** A BC key pair's public key and a BC signature over {@code msg}; the seed is wiped. */
    static byte[][] bcSigned(SignatureKeyType type, byte[] msg, SecureRandom rnd) {
        MLDSAParameters p = MlDsaScheme.parameters(type);
        byte[] seed = new byte[MlDsaScheme.SEED_BYTES];
        rnd.nextBytes(seed);
        try {
            return new byte[][] {MlDsaScheme.publicFromSecret(p, seed), MlDsaScheme.sign(p, seed, null, msg, rnd)};
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
    }

    /**
     * Empty when {@code candidate} agrees with Bouncy Castle on every parameter set: for {@code iterations} fresh BC
     * keys and BC signatures, both accept the valid signature and both reject it over a changed message, with one
     * changed byte, under another key and with a malformed hint encoding; both refuse a key and a signature one
     * byte short. Otherwise what went wrong.
     */
    public static Optional<String> disagreement(MlDsaVerifier candidate, int iterations) {
        SecureRandom rnd = new SecureRandom();
        MlDsaVerifier bc = bc();
        for (SignatureKeyType t : TYPES) {
            byte[] otherPk = bcSigned(t, new byte[1], rnd)[0];
            for (int i = 0; i < iterations; i++) {
                byte[] msg = new byte[40 + rnd.nextInt(200)];
                rnd.nextBytes(msg);
                byte[][] ks = bcSigned(t, msg, rnd);
                byte[] pk = ks[0];
                byte[] sig = ks[1];
                byte[] otherMsg = msg.clone();
                otherMsg[rnd.nextInt(otherMsg.length)] ^= 1;
                byte[] flipped = sig.clone();
                flipped[32 + rnd.nextInt(sig.length - 200)] ^= 0x10; // inside the response vector z
                byte[] badHint = sig.clone();
                badHint[badHint.length - 1] = (byte) 0xFF; // hint count above omega
                Object[][] cases = {
                    {"valid signature", pk, msg, sig, true},
                    {"changed message", pk, otherMsg, sig, false},
                    {"changed signature byte", pk, msg, flipped, false},
                    {"another key", otherPk, msg, sig, false},
                    {"malformed hint encoding", pk, msg, badHint, false},
                };
                for (Object[] c : cases) {
                    boolean want = (Boolean) c[4];
                    boolean bcSays = bc.verify(t, (byte[]) c[1], (byte[]) c[2], (byte[]) c[3]);
                    if (bcSays != want) {
                        return Optional.of(t.sshName() + " BC itself says " + bcSays + " for the " + c[0]);
                    }
                    boolean got;
                    try {
                        got = candidate.verify(t, (byte[]) c[1], (byte[]) c[2], (byte[]) c[3]);
                    } catch (RuntimeException e) {
                        return Optional.of(t.sshName() + " " + c[0] + ": " + e);
                    }
                    if (got != want) {
                        return Optional.of(t.sshName() + " " + c[0] + (want ? " rejected" : " accepted"));
                    }
                }
            }
            byte[][] ks = bcSigned(t, new byte[8], rnd);
            for (byte[][] c : new byte[][][] {{Arrays.copyOf(ks[0], ks[0].length - 1), ks[1]},
                {ks[0], Arrays.copyOf(ks[1], ks[1].length - 1)}}) {
                try {
                    candidate.verify(t, c[0], new byte[8], c[1]);
                    return Optional.of(t.sshName() + " wrong-length key or signature not refused");
                } catch (IllegalArgumentException expected) {
                    // as BC's wrapper does
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Microseconds per ML-DSA-65 verification of {BC, candidate} on one fixed key and signature: a time-bounded
     * warm-up, then interleaved rounds; the per-round medians, and the median of the per-round ratios (what other
     * load on the machine affects least), as for ML-KEM.
     */
    static double[] time(MlDsaVerifier bc, MlDsaVerifier other) {
        SecureRandom rnd = new SecureRandom();
        SignatureKeyType t = SignatureKeyType.MLDSA_65;
        byte[] msg = new byte[200];
        rnd.nextBytes(msg);
        byte[][] ks = bcSigned(t, msg, rnd);
        long warmEnd = System.nanoTime() + WARMUP_MILLIS * 1_000_000L;
        for (int i = 0; i < WARMUP_OPS_MAX && System.nanoTime() < warmEnd; i += 10) {
            run(bc, t, ks, msg, 10);
            run(other, t, ks, msg, 10);
        }
        int rounds = 15;
        double[] b = new double[rounds];
        double[] o = new double[rounds];
        double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            b[r] = run(bc, t, ks, msg, TIMED_OPS / rounds);
            o[r] = run(other, t, ks, msg, TIMED_OPS / rounds);
            ratio[r] = o[r] / b[r];
        }
        Arrays.sort(b);
        Arrays.sort(o);
        Arrays.sort(ratio);
        return new double[] {b[rounds / 2], o[rounds / 2], ratio[rounds / 2]};
    }

    private static double run(MlDsaVerifier v, SignatureKeyType t, byte[][] ks, byte[] msg, int ops) {
        long t0 = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            if (!v.verify(t, ks[0], msg, ks[1])) {
                throw new IllegalStateException(v.name() + " rejected the timing signature");
            }
        }
        return (System.nanoTime() - t0) / 1000.0 / ops;
    }
}
