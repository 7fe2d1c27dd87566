package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshWriter;

class SigProvidersTest {
    private static final SecureRandom RND = new SecureRandom();
    private static final byte[] MSG = "publickey login signed data".getBytes(StandardCharsets.UTF_8);

    private static MlDsaVerifier jdkOrFail() {
        return SigProviders.jdk().orElseThrow(() -> new AssertionError(
                "this JDK (" + Runtime.version() + ") has no ML-DSA; JDK 24+ is required by the build"));
    }

    private static String jcaName(SignatureKeyType t) {
        return "ML-DSA-" + t.sshName().substring("ssh-mldsa-".length());
    }

    private static byte[] flip(byte[] a, int i) {
        byte[] b = a.clone();
        b[i] ^= 0x01;
        return b;
    }

    /** Delegates and counts calls, so a test can tell whether (and which) provider was reached. */
    private static final class Counting implements MlDsaVerifier {
        final MlDsaVerifier inner;
        final AtomicInteger calls = new AtomicInteger();

        Counting(MlDsaVerifier inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public boolean verify(SignatureKeyType type, byte[] publicKey, byte[] data, byte[] signature) {
            calls.incrementAndGet();
            return inner.verify(type, publicKey, data, signature);
        }
    }

    /** Runs {@code body} with {@code v} as the selected verifier (after any background selection has finished). */
    private static void withVerifier(MlDsaVerifier v, ThrowingRunnable body) throws Exception {
        SigProviders.startSelection().handle((s, e) -> null).join();
        MlDsaVerifier old = SigProviders.swapForTest(v);
        try {
            body.run();
        } finally {
            SigProviders.swapForTest(old);
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"MLDSA_44", "MLDSA_65", "MLDSA_87"})
    void bcMadeSignaturesVerifyOnBothAndTamperedOnesFailOnBoth(SignatureKeyType t) throws Exception {
        MlDsaVerifier bc = SigProviders.bc();
        MlDsaVerifier jdk = jdkOrFail();
        SshSigningKey key = SshSigningKey.generate(t, RND);
        byte[] pk = key.publicKey().rawKey();
        byte[] sig = t.scheme().decodeSignature(key.sign(MSG));
        for (MlDsaVerifier v : new MlDsaVerifier[] {bc, jdk}) {
            assertTrue(v.verify(t, pk, MSG, sig), v.name());
            assertFalse(v.verify(t, pk, flip(MSG, 3), sig), v.name() + " changed message");
            assertFalse(v.verify(t, pk, MSG, flip(sig, sig.length / 2)), v.name() + " changed signature");
            assertFalse(v.verify(t, flip(pk, 40), MSG, sig), v.name() + " changed key");
            byte[] badHint = sig.clone();
            badHint[badHint.length - 1] = (byte) 0xFF;
            assertFalse(v.verify(t, pk, MSG, badHint), v.name() + " malformed hint");
        }
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"MLDSA_44", "MLDSA_65", "MLDSA_87"})
    void jdkMadeSignaturesVerifyOnBothAndTheSpkiHeaderIsTheJdks(SignatureKeyType t) throws Exception {
        KeyPair kp = KeyPairGenerator.getInstance(jcaName(t)).generateKeyPair();
        byte[] spki = kp.getPublic().getEncoded();
        byte[] header = Arrays.copyOf(spki, spki.length - t.publicKeySize());
        assertArrayEquals(JdkMlDsaVerifier.spkiHeader(t), header);
        byte[] pk = Arrays.copyOfRange(spki, header.length, spki.length);
        Signature s = Signature.getInstance(jcaName(t));
        s.initSign(kp.getPrivate());
        s.update(MSG);
        byte[] sig = s.sign();
        for (MlDsaVerifier v : new MlDsaVerifier[] {SigProviders.bc(), jdkOrFail()}) {
            assertTrue(v.verify(t, pk, MSG, sig), v.name());
            assertFalse(v.verify(t, pk, flip(MSG, 0), sig), v.name() + " changed message");
            assertFalse(v.verify(t, pk, MSG, flip(sig, 7)), v.name() + " changed signature");
        }
    }

    @Test
    void aKeyOfAnotherParameterSetIsNotAccepted() throws Exception {
        // same length check on both sides; a 65 key under the 44 name fails before any library sees it
        SshSigningKey k65 = SshSigningKey.generate(SignatureKeyType.MLDSA_65, RND);
        byte[] sig = SignatureKeyType.MLDSA_65.scheme().decodeSignature(k65.sign(MSG));
        for (MlDsaVerifier v : new MlDsaVerifier[] {SigProviders.bc(), jdkOrFail()}) {
            assertThrows(IllegalArgumentException.class,
                    () -> v.verify(SignatureKeyType.MLDSA_44, k65.publicKey().rawKey(), MSG, sig));
            assertThrows(IllegalArgumentException.class,
                    () -> v.verify(SignatureKeyType.ED25519, new byte[32], MSG, new byte[64]));
        }
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"MLDSA_44", "MLDSA_65", "MLDSA_87"})
    void wrongLengthsAreRejectedBeforeAnyProviderIsCalled(SignatureKeyType t) throws Exception {
        SshSigningKey key = SshSigningKey.generate(t, RND);
        byte[] pk = key.publicKey().rawKey();
        byte[] sig = t.scheme().decodeSignature(key.sign(MSG));
        for (MlDsaVerifier v : new MlDsaVerifier[] {SigProviders.bc(), jdkOrFail()}) {
            assertThrows(IllegalArgumentException.class,
                    () -> v.verify(t, Arrays.copyOf(pk, pk.length - 1), MSG, sig), v.name());
            assertThrows(IllegalArgumentException.class,
                    () -> v.verify(t, pk, MSG, Arrays.copyOf(sig, sig.length + 1)), v.name());
        }
        Counting counting = new Counting(jdkOrFail());
        withVerifier(counting, () -> {
            assertThrows(MalformedMessageException.class, () -> SshPublicKey.of(t, Arrays.copyOf(pk, pk.length - 1)));
            byte[] shortBlob = new SshWriter().putString(t.sshName()).putString(Arrays.copyOf(sig, sig.length - 1))
                    .toByteArray();
            assertThrows(MalformedMessageException.class, () -> key.publicKey().verify(MSG, shortBlob));
            byte[] longBlob = new SshWriter().putString(t.sshName()).putString(Arrays.copyOf(sig, sig.length + 1))
                    .toByteArray();
            assertThrows(MalformedMessageException.class, () -> key.publicKey().verify(MSG, longBlob));
            assertEquals(0, counting.calls.get(), "no provider was called");
            assertTrue(key.publicKey().verify(MSG, key.sign(MSG)));
            assertEquals(1, counting.calls.get(), "the selected provider verifies ssh-mldsa-*");
        });
    }

    @ParameterizedTest
    @EnumSource(value = SignatureKeyType.class, names = {"MLDSA_44", "MLDSA_65", "MLDSA_87"})
    void forcedBcAndJdkWorkEndToEndThroughSshPublicKey(SignatureKeyType t) throws Exception {
        SshSigningKey key = SshSigningKey.generate(t, RND);
        byte[] blob = key.sign(MSG);
        byte[] raw = t.scheme().decodeSignature(blob);
        byte[] tampered = new SshWriter().putString(t.sshName()).putString(flip(raw, 50)).toByteArray();
        for (String mode : new String[] {"bc", "jdk"}) {
            SigProviders.Selection s = SigProviders.select(mode, SigProviders.jdk());
            assertEquals(mode.toUpperCase(java.util.Locale.ROOT), s.verifier().name(), s.describe());
            assertTrue(s.describe().contains(SigProviders.PROPERTY + "=" + mode), s.describe());
            Counting counting = new Counting(s.verifier());
            withVerifier(counting, () -> {
                SshPublicKey pub = SshPublicKey.decode(key.publicKey().blob());
                assertTrue(pub.verify(MSG, blob), mode);
                assertFalse(pub.verify(flip(MSG, 1), blob), mode);
                assertFalse(pub.verify(MSG, tampered), mode);
                assertTrue(Signatures.verify(key.publicKeyBlob(), MSG, blob), mode);
                assertEquals(4, counting.calls.get(), mode + " provider used for every verification");
            });
        }
    }

    @Test
    void compositesStayOnBouncyCastle() throws Exception {
        Counting counting = new Counting(jdkOrFail());
        withVerifier(counting, () -> {
            for (SignatureKeyType t : new SignatureKeyType[] {SignatureKeyType.MLDSA44_ED25519,
                SignatureKeyType.ED25519_MLDSA_65}) {
                SshSigningKey key = SshSigningKey.generate(t, RND);
                assertTrue(key.publicKey().verify(MSG, key.sign(MSG)), t.sshName());
            }
            assertEquals(0, counting.calls.get());
        });
    }

    @Test
    void jdkAndBcAgree() {
        assertEquals(Optional.empty(), SigProviders.disagreement(jdkOrFail(), 4));
        assertEquals(Optional.empty(), SigProviders.disagreement(SigProviders.bc(), 1));
    }

    @Test
    void disagreementIsDetected() {
        MlDsaVerifier acceptsAll = new MlDsaVerifier() {
            @Override
            public String name() {
                return "JDK";
            }

            @Override
            public boolean verify(SignatureKeyType type, byte[] pk, byte[] data, byte[] sig) {
                MlDsaVerifier.checkLengths(type, pk, sig);
                return true;
            }
        };
        MlDsaVerifier noLengthCheck = new MlDsaVerifier() {
            @Override
            public String name() {
                return "JDK";
            }

            @Override
            public boolean verify(SignatureKeyType type, byte[] pk, byte[] data, byte[] sig) {
                return pk.length == type.publicKeySize() && sig.length == type.signatureSize()
                        && SigProviders.bc().verify(type, pk, data, sig);
            }
        };
        MlDsaVerifier throwsOnHint = new MlDsaVerifier() {
            @Override
            public String name() {
                return "JDK";
            }

            @Override
            public boolean verify(SignatureKeyType type, byte[] pk, byte[] data, byte[] sig) {
                if (sig[sig.length - 1] == (byte) 0xFF) {
                    throw new IllegalStateException("boom");
                }
                return SigProviders.bc().verify(type, pk, data, sig);
            }
        };
        assertTrue(SigProviders.disagreement(acceptsAll, 1).orElseThrow().contains("accepted"));
        assertTrue(SigProviders.disagreement(noLengthCheck, 1).orElseThrow().contains("not refused"));
        assertTrue(SigProviders.disagreement(throwsOnHint, 1).orElseThrow().contains("malformed hint"));
        SigProviders.Selection s = SigProviders.select("auto", Optional.of(acceptsAll));
        assertSame(SigProviders.bc(), s.verifier());
        assertTrue(s.reason().contains("self-check"), s.reason());
        assertSame(SigProviders.bc(), SigProviders.select("jdk", Optional.of(acceptsAll)).verifier());
    }

    @Test
    void fallsBackToBcWhenJdkUnavailableOrForcedOffAndRejectsBadModes() {
        assertSame(SigProviders.bc(), SigProviders.select("auto", Optional.empty()).verifier());
        assertSame(SigProviders.bc(), SigProviders.select("jdk", Optional.empty()).verifier());
        SigProviders.Selection off = SigProviders.select("BC", Optional.of(jdkOrFail()));
        assertSame(SigProviders.bc(), off.verifier());
        assertEquals("forced", off.reason());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SigProviders.select("openssl", Optional.empty()));
        assertTrue(e.getMessage().contains(SigProviders.PROPERTY), e.getMessage());
    }

    @Test
    void autoPicksTheJdkOnlyWhenMeasurablyFasterAndSaysWhich() {
        SigProviders.Selection s = SigProviders.select("auto", Optional.of(jdkOrFail()));
        assertFalse(Double.isNaN(s.bcMicros()));
        assertTrue(s.bcMicros() > 0 && s.jdkMicros() > 0, s.describe());
        boolean jdkFaster = s.jdkToBcRatio() * 1.10 <= 1.0;
        assertEquals(jdkFaster ? "JDK" : "BC", s.verifier().name(), s.describe());
        assertTrue(s.describe().startsWith("ML-DSA verification provider " + s.verifier().name()), s.describe());
        assertTrue(s.describe().contains(SigProviders.PROPERTY + "=auto"), s.describe());
        assertTrue(s.describe().contains("JDK/BC"), s.describe());
    }

    @Test
    void backgroundSelectionIsWhatVerificationThenUses() {
        SigProviders.Selection s = SigProviders.selected();
        assertSame(s.verifier(), SigProviders.verifier());
        assertSame(s, SigProviders.startSelection().join(), "selected once per JVM");
    }
}
