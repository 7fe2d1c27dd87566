package io.pqssh.core.provider;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.GeneralSecurityException;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.PublicKey;
import java.util.Arrays;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class JdkProvidersTest {
    @Test
    void subjectPublicKeyInfoIsTheHeaderFollowedByTheRawKey() {
        assertArrayEquals(new byte[] {0x30, 0x05, 1, 2, 3},
                JdkProviders.subjectPublicKeyInfo(new byte[] {0x30, 0x05}, new byte[] {1, 2, 3}));
    }

    @Test
    void aRawJdkKeyDecodesToTheSameKey() throws Exception {
        for (String alg : new String[] {"ML-KEM-768", "ML-DSA-65"}) {
            PublicKey pub = KeyPairGenerator.getInstance(alg).generateKeyPair().getPublic();
            byte[] spki = pub.getEncoded();
            int rawLength = alg.startsWith("ML-KEM") ? 1184 : 1952;
            byte[] header = Arrays.copyOf(spki, spki.length - rawLength);
            byte[] raw = Arrays.copyOfRange(spki, header.length, spki.length);
            String family = alg.substring(0, alg.lastIndexOf('-'));
            Provider kf = JdkProviders.nonBc("KeyFactory", family).orElseThrow();
            PublicKey decoded = new JdkProviders.RawKeyDecoder(family, kf).decode(header, raw);
            assertArrayEquals(spki, decoded.getEncoded(), alg);
        }
    }

    @Test
    void findsOnlyNonBouncyCastleProvidersAndFailsEarly() {
        Provider kem = JdkProviders.nonBc("KEM", "ML-KEM").orElseThrow(() -> new AssertionError(
                "this JDK (" + Runtime.version() + ") has no ML-KEM; JDK 24+ is required by the build"));
        assertFalse(kem.getName().startsWith("BC"), kem.getName());
        assertEquals(Optional.empty(), JdkProviders.nonBc("KEM", "NO-SUCH-KEM"));
        assertThrows(NoSuchAlgorithmException.class, () -> new JdkProviders.RawKeyDecoder("NO-SUCH-KEM", kem));
    }

    @Test
    void createIsEmptyWhenAProviderIsMissingOrTheFactoryFails() {
        Optional<String> made = JdkProviders.create("KEM", "ML-KEM", "ML-KEM",
                (op, kf) -> op.getName() + "/" + kf.getName());
        assertTrue(made.isPresent());
        assertEquals(Optional.empty(), JdkProviders.create("KEM", "NO-SUCH-KEM", "ML-KEM", (op, kf) -> "x"));
        assertEquals(Optional.empty(), JdkProviders.create("KEM", "ML-KEM", "NO-SUCH-KEY", (op, kf) -> "x"));
        assertEquals(Optional.empty(), JdkProviders.create("KEM", "ML-KEM", "ML-KEM", (op, kf) -> {
            throw new GeneralSecurityException("no");
        }));
    }
}
