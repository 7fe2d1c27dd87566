package io.pqssh.core.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.pqssh.core.kem.KemEncapsulator;
import io.pqssh.core.kem.KemProviders;
import io.pqssh.core.sig.SigProviders;

/**
 * What the JDK provider choice does on the JDK the tests run on. pqssh's JDK ML-KEM layer is the multi-release jar's
 * Java 24 layer ({@code javax.crypto.KEM}), so below 24 there is no JDK ML-KEM for pqssh even where the JDK has one:
 * {@code auto} stays on Bouncy Castle and {@code jdk} is refused at start-up with a message that names the property,
 * this JDK and the fix. JDK ML-DSA is found through the ordinary provider API wherever the JDK has it: Java 24+, and
 * also Debian's OpenJDK 17.0.21 (November 2026), whose SUN provider offers ML-DSA-44/65/87 (and SunJCE ML-KEM) as a
 * backport; the test asks the JDK's providers itself instead of assuming by version. Runs in both the JDK 25 and the
 * JDK 17 test executions.
 */
class Jdk17FallbackTest {
    private static final boolean JDK_HAS_PQ = Runtime.version().feature() >= 24;
    /** Whether a provider other than Bouncy Castle offers ML-DSA-65 signatures and ML-DSA keys, asked directly. */
    private static final boolean JDK_HAS_MLDSA = nonBcOffers("Signature.ML-DSA-65") && nonBcOffers("KeyFactory.ML-DSA");

    private static boolean nonBcOffers(String filter) {
        java.security.Provider[] ps = java.security.Security.getProviders(filter);
        return ps != null && java.util.Arrays.stream(ps).anyMatch(p -> !p.getName().startsWith("BC"));
    }

    @Test
    void theJdkImplementationsExistExactlyFromJava24() {
        assertEquals(JDK_HAS_PQ, KemProviders.jdk().isPresent(), "JDK ML-KEM on " + Runtime.version());
        assertEquals(JDK_HAS_MLDSA, SigProviders.jdk().isPresent(), "JDK ML-DSA on " + Runtime.version());
        if (JDK_HAS_PQ) {
            assertTrue(JDK_HAS_MLDSA, "a JDK 24+ without ML-DSA: " + Runtime.version());
            assertTrue(JdkProviders.nonBc("KEM", "ML-KEM").isPresent());
        }
    }

    @Test
    void autoUsesBouncyCastleWhereTheJdkHasNone() {
        KemProviders.Selection s = KemProviders.select("auto", KemProviders.jdk());
        if (JDK_HAS_PQ) {
            assertTrue(s.reason().startsWith("JDK agrees with BC"), s.describe());
        } else {
            assertSame(KemProviders.bc(), s.encapsulator());
            assertEquals("the JDK has no ML-KEM; Bouncy Castle", s.reason());
        }
    }

    @Test
    void jdkForcedOnAJdkWithoutItIsRefusedAtStartUp() throws Exception {
        String property = "pqssh.test.jdk17.provider";
        System.setProperty(property, "jdk");
        try {
            ProviderChoice<KemEncapsulator, KemEncapsulator> choice = new ProviderChoice<>(property, "ML-KEM",
                    "encapsulation", "x", KemProviders.bc(), KemProviders::jdk, KemEncapsulator::name,
                    (candidate, n) -> Optional.empty(), () -> e -> { },
                    new ProviderChoice.Budget(10, 1, 1, 1, 1, 15, 1), ProviderChoice.Outcome::chosen,
                    LoggerFactory.getLogger(Jdk17FallbackTest.class), "jdk17-fallback-test");
            if (JDK_HAS_PQ) {
                assertEquals("JDK", choice.start().get(60, TimeUnit.SECONDS).name());
            } else {
                IllegalStateException e = assertThrows(IllegalStateException.class, choice::start);
                assertTrue(e.getMessage().startsWith(property + "=jdk, but this JDK (" + Runtime.version()),
                        e.getMessage());
                assertTrue(e.getMessage().contains("has no ML-KEM of its own (JDK 24 or later has)"), e.getMessage());
                assertTrue(e.getMessage().endsWith("set " + property + "=auto or bc"), e.getMessage());
                realChoicesRefuseJdk();
            }
        } finally {
            System.clearProperty(property);
        }
    }

    /** The JVM-wide choices themselves; on 24+ starting them in jdk mode would pin them for every other test. */
    private static void realChoicesRefuseJdk() {
        System.setProperty(KemProviders.PROPERTY, "jdk");
        System.setProperty(SigProviders.PROPERTY, "jdk");
        try {
            assertThrows(IllegalStateException.class, KemProviders::startSelection);
            if (!JDK_HAS_MLDSA) {
                assertThrows(IllegalStateException.class, SigProviders::startSelection);
            }
        } finally {
            System.clearProperty(KemProviders.PROPERTY);
            System.clearProperty(SigProviders.PROPERTY);
        }
    }
}
