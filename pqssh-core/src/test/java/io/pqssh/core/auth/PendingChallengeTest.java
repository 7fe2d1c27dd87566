package io.pqssh.core.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PendingChallengeTest {
    static final byte[] EXPECTED = TestVectors.pattern(0x11, 32);

    static PendingChallenge pending() {
        return new PendingChallenge(KemAuthMethod.PUBLICKEY_KEM, "mlkem768", EXPECTED.clone(), 42L);
    }

    static byte[] storedExpected(PendingChallenge p) throws ReflectiveOperationException {
        Field f = PendingChallenge.class.getDeclaredField("expected");
        f.setAccessible(true);
        return (byte[]) f.get(p);
    }

    @Test
    void correctValueVerifiesOnce() throws Exception {
        PendingChallenge p = pending();
        assertEquals(KemAuthMethod.PUBLICKEY_KEM, p.method());
        assertEquals("mlkem768", p.alg());
        assertEquals(42L, p.issuedAtNanos());
        assertFalse(p.isConsumed());
        assertTrue(p.verify(EXPECTED.clone()));
        assertTrue(p.isConsumed());
        // single use: the right value again is refused
        assertFalse(p.verify(EXPECTED.clone()));
        assertArrayEquals(new byte[32], storedExpected(p), "expected value wiped after verify");
        // and the all-zero value the wipe left behind does not verify either
        assertFalse(p.verify(new byte[32]));
    }

    @Test
    void wrongValueConsumesAndWipes() throws Exception {
        PendingChallenge p = pending();
        byte[] wrong = EXPECTED.clone();
        wrong[31] ^= 1;
        assertFalse(p.verify(wrong));
        assertTrue(p.isConsumed());
        assertArrayEquals(new byte[32], storedExpected(p));
        assertFalse(p.verify(EXPECTED.clone()), "no second attempt after a wrong one");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 16, 31, 33, 64, 32 + 256, 32 + 512})
    void wrongLengthsRejectedEvenWithCorrectPrefix(int len) throws Exception {
        // the research implementation's loop accepted 32 correct bytes followed by 256*k zero bytes
        PendingChallenge p = pending();
        byte[] r = Arrays.copyOf(EXPECTED, len);
        assertFalse(p.verify(r));
        assertTrue(p.isConsumed());
        assertArrayEquals(new byte[32], storedExpected(p));
        assertFalse(p.verify(EXPECTED.clone()));
    }

    @Test
    void nullRejectedAndConsumes() {
        PendingChallenge p = pending();
        assertFalse(p.verify(null));
        assertTrue(p.isConsumed());
        assertFalse(p.verify(EXPECTED.clone()));
    }

    @Test
    void everySingleByteDifferenceFails() {
        // the constant-time path (MessageDigest.isEqual) must compare all 32 positions
        for (int i = 0; i < 32; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] r = EXPECTED.clone();
                r[i] ^= (byte) (1 << bit);
                assertFalse(pending().verify(r), "byte " + i + " bit " + bit);
            }
        }
        assertTrue(pending().verify(EXPECTED.clone()));
    }

    @Test
    void cancelWipes() throws Exception {
        PendingChallenge p = pending();
        p.cancel();
        assertTrue(p.isConsumed());
        assertArrayEquals(new byte[32], storedExpected(p));
        assertFalse(p.verify(EXPECTED.clone()));
        p.cancel(); // idempotent
    }

    @Test
    void verifyDoesNotKeepTheCallersArray() throws Exception {
        byte[] exp = EXPECTED.clone();
        PendingChallenge p = new PendingChallenge(KemAuthMethod.PUBLICKEY_KEM, "mlkem768", exp, 0);
        byte[] r = EXPECTED.clone();
        assertTrue(p.verify(r));
        assertArrayEquals(EXPECTED, r, "the response buffer is the caller's and is left alone");
    }

    @Test
    void constructorRequires32Bytes() {
        assertThrows(IllegalArgumentException.class,
                () -> new PendingChallenge(KemAuthMethod.PUBLICKEY_KEM, "mlkem768", new byte[31], 0));
        assertThrows(IllegalArgumentException.class,
                () -> new PendingChallenge(KemAuthMethod.PUBLICKEY_KEM, "mlkem768", new byte[33], 0));
    }

    @Test
    void stateIsSmallAndToStringHidesTheValue() {
        PendingChallenge p = pending();
        assertTrue(p.explicitStateBytes() < 100, "explicit state " + p.explicitStateBytes());
        assertFalse(p.toString().contains("11121314"));
    }

    @Test
    void concurrentVerifiesSucceedAtMostOnce() throws Exception {
        for (int round = 0; round < 50; round++) {
            PendingChallenge p = pending();
            java.util.concurrent.atomic.AtomicInteger ok = new java.util.concurrent.atomic.AtomicInteger();
            Thread[] ts = new Thread[4];
            for (int i = 0; i < ts.length; i++) {
                ts[i] = new Thread(() -> {
                    if (p.verify(EXPECTED.clone())) {
                        ok.incrementAndGet();
                    }
                });
                ts[i].start();
            }
            for (Thread t : ts) {
                t.join();
            }
            assertEquals(1, ok.get());
        }
    }
}
