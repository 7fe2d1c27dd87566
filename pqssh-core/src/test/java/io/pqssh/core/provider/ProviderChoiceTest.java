package io.pqssh.core.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ProviderChoiceTest {
    private static final String PROPERTY = "pqssh.test.provider-choice";

    /** A stand-in operation that spins for a fixed time, so which one is faster is not in doubt. */
    private static final class Spinner {
        final String name;
        final long nanos;
        final AtomicInteger runs = new AtomicInteger();

        Spinner(String name, long nanos) {
            this.name = name;
            this.nanos = nanos;
        }

        void run() {
            runs.incrementAndGet();
            long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }
    }

    private static final Spinner BC = new Spinner("BC", 60_000);

    private static ProviderChoice<Spinner, ProviderChoice.Outcome<Spinner>> choice(Optional<Spinner> jdk, ProviderChoice.SelfCheck<Spinner> check) {
        return new ProviderChoice<>(PROPERTY, "TEST-ALG", "doing", "TEST op", BC, () -> jdk, s -> s.name, check,
                () -> Spinner::run, new ProviderChoice.Budget(10, 2, 0, 0, 5, 30, 3), o -> o,
                LoggerFactory.getLogger(ProviderChoiceTest.class), "pqssh-test-provider-choice");
    }

    private static Optional<String> agrees(Spinner s, int iterations) {
        return Optional.empty();
    }

    @Test
    void autoTakesTheCandidateOnlyWhenItIsFaster() {
        Spinner fast = new Spinner("JDK", 5_000);
        ProviderChoice.Outcome<Spinner> o = choice(Optional.of(fast), ProviderChoiceTest::agrees)
                .select("auto", Optional.of(fast));
        assertSame(fast, o.chosen());
        assertEquals("JDK agrees with BC and is faster", o.reason());
        assertTrue(o.jdkToBcRatio() < 0.5, String.valueOf(o.jdkToBcRatio()));
        assertTrue(fast.runs.get() >= 30, "the candidate was timed");

        Spinner slow = new Spinner("JDK", 200_000);
        ProviderChoice.Outcome<Spinner> o2 = choice(Optional.of(slow), ProviderChoiceTest::agrees)
                .select("AUTO ", Optional.of(slow));
        assertSame(BC, o2.chosen());
        assertEquals("JDK agrees with BC but is not 10 % faster", o2.reason());
        assertTrue(o2.jdkToBcRatio() > 2, String.valueOf(o2.jdkToBcRatio()));
        assertEquals("auto", o2.mode());
    }

    @Test
    void theSpeedUpRuleHasItsBoundaryAtTheGivenPercentage() {
        ProviderChoice<Spinner, ProviderChoice.Outcome<Spinner>> c = choice(Optional.empty(), ProviderChoiceTest::agrees);
        assertTrue(c.isFaster(0.90));
        assertTrue(c.isFaster(0.5));
        assertFalse(c.isFaster(0.92));
        assertFalse(c.isFaster(1.0));
    }

    @Test
    void aFailedSelfCheckOrAMissingCandidateFallsBackWithoutTiming() {
        Spinner wrong = new Spinner("JDK", 1_000);
        AtomicInteger checkedWith = new AtomicInteger();
        ProviderChoice<Spinner, ProviderChoice.Outcome<Spinner>> c = choice(Optional.of(wrong), (s, n) -> {
            checkedWith.set(n);
            return Optional.of("disagrees");
        });
        for (String mode : new String[] {"auto", "jdk"}) {
            ProviderChoice.Outcome<Spinner> o = c.select(mode, Optional.of(wrong));
            assertSame(BC, o.chosen());
            assertEquals("JDK TEST-ALG failed the self-check: disagrees; Bouncy Castle", o.reason());
            assertTrue(Double.isNaN(o.bcMicros()));
        }
        assertEquals(2, checkedWith.get(), "the budget's agreement iterations");
        assertEquals(0, wrong.runs.get(), "a candidate that disagrees is never timed");
        ProviderChoice.Outcome<Spinner> none = c.select("jdk", Optional.empty());
        assertSame(BC, none.chosen());
        assertEquals("the JDK has no TEST-ALG; Bouncy Castle", none.reason());
    }

    @Test
    void forcedModesSkipTheTimingAndBadModesNameTheProperty() {
        Spinner jdk = new Spinner("JDK", 1_000);
        ProviderChoice<Spinner, ProviderChoice.Outcome<Spinner>> c = choice(Optional.of(jdk), ProviderChoiceTest::agrees);
        ProviderChoice.Outcome<Spinner> bc = c.select("bc", Optional.of(jdk));
        assertSame(BC, bc.chosen());
        assertEquals("forced", bc.reason());
        ProviderChoice.Outcome<Spinner> forced = c.select("jdk", Optional.of(jdk));
        assertSame(jdk, forced.chosen());
        assertEquals("forced, agrees with BC", forced.reason());
        assertEquals(0, jdk.runs.get());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> c.select("openssl", Optional.of(jdk)));
        assertEquals("system property " + PROPERTY + " must be bc, jdk or auto, got 'openssl'", e.getMessage());
    }

    @Test
    void describeIsOneLineWithTimingsOnlyWhenTimed() {
        ProviderChoice<Spinner, ProviderChoice.Outcome<Spinner>> c = choice(Optional.empty(), ProviderChoiceTest::agrees);
        assertEquals("TEST-ALG doing provider BC [" + PROPERTY + "=bc]: forced",
                c.describe(BC, "bc", "forced", Double.NaN, Double.NaN, Double.NaN));
        assertEquals("TEST-ALG doing provider JDK [" + PROPERTY + "=auto]: why (TEST op median BC 12.3 us, JDK 4.6 us,"
                + " JDK/BC 0.37)", c.describe(new Spinner("JDK", 0), "auto", "why", 12.34, 4.56, 0.374));
    }

    @Test
    void backgroundSelectionRunsOnceAndSetsTheCurrentOne() {
        Spinner fast = new Spinner("JDK", 5_000);
        ProviderChoice<Spinner, ProviderChoice.Outcome<Spinner>> c = choice(Optional.of(fast), ProviderChoiceTest::agrees);
        assertNull(System.getProperty(PROPERTY), "the test relies on the default mode, auto");
        ProviderChoice.Outcome<Spinner> o = c.start().join();
        assertSame(fast, o.chosen());
        assertSame(fast, c.current());
        assertSame(c.start(), c.start(), "started once");
        assertSame(fast, c.swapForTest(BC));
        assertSame(BC, c.current());
    }
}
