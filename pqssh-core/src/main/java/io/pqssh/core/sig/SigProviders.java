package io.pqssh.core.sig;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.bouncycastle.crypto.params.MLDSAParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.provider.ProviderChoice;

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
 * <li>{@code jdk}: the JDK's if it agrees (no timing), otherwise Bouncy Castle with a warning; on a JDK without
 * one (Java 17 to 23) {@link #startSelection()} throws {@link IllegalStateException} saying so.</li>
 * </ul>
 * The timing runs only where a server asks for it with {@link #startSelection()} (clients verifying host keys and
 * key-file loading should not spend seconds of CPU on it); with the property set explicitly, the first
 * verification starts the selection too. Until the selection is done, verification uses Bouncy Castle. The
 * composites ({@code ssh-mldsa44-ed25519} under either name, the Ed25519 AND composites) stay on Bouncy Castle.
 * The choice is logged once at INFO.
 */
public final class SigProviders {
    public static final String PROPERTY = "pqssh.sig.provider";
    // the rule, warm-up time and passes of io.pqssh.core.kem.KemProviders; fewer operations, as one costs more
    static final int MIN_SPEEDUP_PERCENT = 10;
    static final int AGREEMENT_ITERATIONS = 3;
    static final long WARMUP_MILLIS = 1500;
    static final int WARMUP_OPS_MAX = 20_000;
    static final int TIMED_OPS = 300;
    static final int MAX_PASSES = 5;
    static final List<SignatureKeyType> TYPES = List.of(SignatureKeyType.MLDSA_44, SignatureKeyType.MLDSA_65,
            SignatureKeyType.MLDSA_87);

    private static final Logger LOG = LoggerFactory.getLogger(SigProviders.class);
    private static final ProviderChoice<MlDsaVerifier, Selection> CHOICE = new ProviderChoice<>(PROPERTY, "ML-DSA",
            "verification", "ML-DSA-65 verify", Bc.INSTANCE, SigProviders::jdk, MlDsaVerifier::name,
            SigProviders::disagreement, SigProviders::mlDsa65Verification,
            new ProviderChoice.Budget(MIN_SPEEDUP_PERCENT, AGREEMENT_ITERATIONS, WARMUP_MILLIS, WARMUP_OPS_MAX, 10,
                    TIMED_OPS, MAX_PASSES),
            Selection::of, LOG, "pqssh-sig-provider-selection");

    private SigProviders() {
    }

    /** What was chosen and why; the timings are medians per operation in microseconds (NaN when not timed). */
    public record Selection(MlDsaVerifier verifier, String mode, String reason, double bcMicros, double jdkMicros,
            double jdkToBcRatio) {
        static Selection of(ProviderChoice.Outcome<MlDsaVerifier> o) {
            return new Selection(o.chosen(), o.mode(), o.reason(), o.bcMicros(), o.jdkMicros(), o.jdkToBcRatio());
        }

        public String describe() {
            return CHOICE.describe(verifier, mode, reason, bcMicros, jdkMicros, jdkToBcRatio);
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
    public static CompletableFuture<Selection> startSelection() {
        return CHOICE.start();
    }

    /** The finished selection (starts it if needed and waits for it): what the server uses from then on. */
    public static Selection selected() {
        return startSelection().join();
    }

    /** The verifier to use now: the selected one, or Bouncy Castle while none is (yet) selected. */
    public static MlDsaVerifier verifier() {
        MlDsaVerifier c = CHOICE.current();
        if (c != null) {
            return c;
        }
        if (System.getProperty(PROPERTY) != null) {
            startSelection();
        }
        return bc();
    }

    /** Tests only: makes {@code v} the current verifier and returns the previous one (null when none). */
    static MlDsaVerifier swapForTest(MlDsaVerifier v) {
        return CHOICE.swapForTest(v);
    }

    /** Pure selection logic (testable): {@code mode} is bc, jdk or auto; {@code jdk} the candidate if any. */
    public static Selection select(String mode, Optional<MlDsaVerifier> jdk) {
        return CHOICE.select(mode, jdk);
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

    /** ML-DSA-65 verification of one fixed BC key and signature: the operation the choice is timed on. */
    private static ProviderChoice.TimedOperation<MlDsaVerifier> mlDsa65Verification() {
        SecureRandom rnd = new SecureRandom();
        SignatureKeyType t = SignatureKeyType.MLDSA_65;
        byte[] msg = new byte[200];
        rnd.nextBytes(msg);
        byte[][] ks = bcSigned(t, msg, rnd);
        return v -> {
            if (!v.verify(t, ks[0], msg, ks[1])) {
                throw new IllegalStateException(v.name() + " rejected the timing signature");
            }
        };
    }
}
