package io.pqssh.core.kem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemAuthServer;
import io.pqssh.core.auth.KemCredential;

class KemProvidersTest {
    private static final SecureRandom RND = new SecureRandom();

    private static KemEncapsulator jdkOrFail() {
        return KemProviders.jdk().orElseThrow(() -> new AssertionError(
                "this JDK (" + Runtime.version() + ") has no ML-KEM; JDK 24+ is required by the build"));
    }

    /** Encapsulates with BC but returns a secret with one bit flipped: agrees on lengths, not on the secret. */
    private static final KemEncapsulator WRONG_SECRET = new KemEncapsulator() {
        @Override
        public String name() {
            return "JDK";
        }

        @Override
        public Encapsulation encapsulate(KemAlgorithm a, byte[] pk, SecureRandom r) {
            Encapsulation e = MlKem.encapsulate(a, pk, r);
            byte[] ss = e.sharedSecret().clone();
            ss[0] ^= 1;
            byte[] ct = e.ciphertext();
            e.destroy();
            return new Encapsulation(ct, ss);
        }
    };

    /** Correct secrets but no modulus check. */
    private static final KemEncapsulator NO_MODULUS_CHECK = new KemEncapsulator() {
        @Override
        public String name() {
            return "JDK";
        }

        @Override
        public Encapsulation encapsulate(KemAlgorithm a, byte[] pk, SecureRandom r) {
            if (!JdkMlKem.coefficientsReduced(a, pk)) {
                return new Encapsulation(new byte[a.ciphertextBytes()], new byte[32]);
            }
            return MlKem.encapsulate(a, pk, r);
        }
    };

    @Test
    void jdkAndBcAgree() {
        assertEquals(Optional.empty(), KemProviders.disagreement(jdkOrFail(), 8));
        assertEquals(Optional.empty(), KemProviders.disagreement(KemProviders.bc(), 2));
    }

    @Test
    void disagreementIsDetected() {
        assertTrue(KemProviders.disagreement(WRONG_SECRET, 1).orElseThrow().contains("different secret"));
        assertTrue(KemProviders.disagreement(NO_MODULUS_CHECK, 1).orElseThrow().contains("unreduced"));
        KemProviders.Selection s = KemProviders.select("auto", Optional.of(WRONG_SECRET));
        assertSame(KemProviders.bc(), s.encapsulator());
        assertTrue(s.reason().contains("self-check"), s.reason());
        assertSame(KemProviders.bc(), KemProviders.select("jdk", Optional.of(WRONG_SECRET)).encapsulator());
    }

    @Test
    void fallsBackToBcWhenJdkUnavailableOrForcedOff() {
        assertSame(KemProviders.bc(), KemProviders.select("auto", Optional.empty()).encapsulator());
        assertSame(KemProviders.bc(), KemProviders.select("jdk", Optional.empty()).encapsulator());
        KemProviders.Selection off = KemProviders.select("BC", Optional.of(jdkOrFail()));
        assertSame(KemProviders.bc(), off.encapsulator());
        assertEquals("forced", off.reason());
        assertEquals("JDK", KemProviders.select("jdk", Optional.of(jdkOrFail())).encapsulator().name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KemProviders.select("openssl", Optional.empty()));
        assertTrue(e.getMessage().contains(KemProviders.PROPERTY), e.getMessage());
    }

    @Test
    void autoPicksTheFasterOnlyWhenMeasurablyFaster() {
        KemProviders.Selection s = KemProviders.select("auto", Optional.of(jdkOrFail()));
        assertFalse(Double.isNaN(s.bcMicros()));
        boolean jdkFaster = s.jdkToBcRatio() * 1.10 <= 1.0;
        assertEquals(jdkFaster ? "JDK" : "BC", s.encapsulator().name(), s.describe());
        assertTrue(s.describe().contains(KemProviders.PROPERTY + "=auto"), s.describe());
    }

    @Test
    void backgroundSelectionIsWhatTheServerThenUses() {
        KemEncapsulator before = KemProviders.encapsulator(); // BC until the background selection is done
        assertTrue(before == KemProviders.bc() || before.name().equals("JDK"));
        KemProviders.Selection s = KemProviders.selected();
        assertSame(s.encapsulator(), KemProviders.encapsulator());
        assertSame(s, KemProviders.startSelection().join(), "selected once per JVM");
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void jdkRejectsWhatBcRejects(KemAlgorithm a) {
        KemEncapsulator jdk = jdkOrFail();
        byte[] pk = MlKem.generate(a, RND).publicKey();
        byte[] bad = pk.clone();
        bad[bad.length - 33] = (byte) 0xFF; // last coefficient's high byte: 0xFFx >= q
        assertThrows(IllegalArgumentException.class, () -> MlKem.encapsulate(a, bad, RND));
        assertThrows(IllegalArgumentException.class, () -> jdk.encapsulate(a, bad, RND));
        assertThrows(IllegalArgumentException.class, () -> jdk.encapsulate(a, new byte[pk.length - 1], RND));
        assertTrue(JdkMlKem.coefficientsReduced(a, pk));
        assertFalse(JdkMlKem.coefficientsReduced(a, bad));
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void kemAuthServerResponsesMatchTheClientWithEitherProvider(KemAlgorithm a) throws Exception {
        KemKeyPair kp = MlKem.generate(a, RND);
        byte[] sid = new byte[32];
        RND.nextBytes(sid);
        KemAuthRequest req = KemAuthRequest.kem("alice", "ssh-connection",
                new KemCredential(a.sshName(), kp.publicKey()));
        for (KemEncapsulator enc : new KemEncapsulator[] {KemProviders.bc(), jdkOrFail()}) {
            for (int i = 0; i < 3; i++) {
                KemAuthServer.IssuedChallenge ic = new KemAuthServer(RND, enc).issue(sid, req);
                byte[] good = KemAuthClient.respond(sid, req, ic.challenge(), kp);
                assertTrue(ic.pending().verify(good), enc.name());
                byte[] bad = good.clone();
                bad[31] ^= 1;
                KemAuthServer.IssuedChallenge ic2 = new KemAuthServer(RND, enc).issue(sid, req);
                assertFalse(ic2.pending().verify(bad), enc.name());
            }
        }
    }
}
