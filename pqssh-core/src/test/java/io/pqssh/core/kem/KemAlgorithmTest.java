package io.pqssh.core.kem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class KemAlgorithmTest {

    @ParameterizedTest
    @CsvSource({
        "mlkem512, MLKEM512", "mlkem768, MLKEM768", "mlkem1024, MLKEM1024",
        "ML-KEM-512, MLKEM512", "ML-KEM-768, MLKEM768", "ML-KEM-1024, MLKEM1024",
        "kyber512, MLKEM512", "kyber768, MLKEM768", "kyber1024, MLKEM1024",
        "MLKEM768-SHA256, MLKEM768", "mlkem768-sha256, MLKEM768", "ML-KEM-768-sha256, MLKEM768",
        "kyber1024-SHA256, MLKEM1024", "MlKeM768, MLKEM768", "KYBER512, MLKEM512", "Ml-Kem-1024, MLKEM1024",
        "mlkem512-Sha256, MLKEM512"})
    void normalizes(String name, KemAlgorithm expected) {
        assertEquals(Optional.of(expected), KemAlgorithm.fromName(name));
        assertEquals(expected, KemAlgorithm.require(name));
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"mlkem769", "mlkem", "mlkem76", "mlkem7680", "kyber", "ML-KEM", "ML-KEM-",
        "mlkem768-sha384", "mlkem768-sha256-sha256", "mlkem768sha256", "ssh-ed25519", "-sha256", "768",
        "mlkem768\u0000", " mlkem768",
        // spellings the research implementation refuses (issue 14): pqssh refuses them too
        "ml_kem_768", "mlkem-768", "ML-KEM768", "MLKEM-768", "ml-kem_768", "kyber-768", "kyber_512", "ml_kem_1024",
        "ml--kem-768", "-mlkem768", "mlkem768-", "mlkem768_sha256", "ML-KEM-768--sha256", "mlkem768 ", "\tmlkem768", "mldsa65", "frodokem976", "mlkem 768", "sntrup761x25519-sha512"})
    void rejects(String name) {
        assertEquals(Optional.empty(), KemAlgorithm.fromName(name));
        assertThrows(IllegalArgumentException.class, () -> KemAlgorithm.require(name));
    }

    /** Case-insensitivity is ASCII only: Unicode case folding (KELVIN SIGN lowercases to 'k') must not widen it. */
    @ParameterizedTest
    @ValueSource(strings = {"ml\u212Aem768", "\u212Ayber768", "ｍｌｋｅｍ７６８", "mlkem७६८"})
    void rejectsNonAsciiLookalikes(String name) {
        assertEquals(Optional.empty(), KemAlgorithm.fromName(name));
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void canonicalAndFipsNamesRoundTrip(KemAlgorithm a) {
        assertEquals(Optional.of(a), KemAlgorithm.fromName(a.sshName()));
        assertEquals(Optional.of(a), KemAlgorithm.fromName(a.fipsName()));
        assertEquals(a.sshName(), a.sshName().toLowerCase());
        assertTrue(a.fipsName().startsWith("ML-KEM-"));
    }

    @Test
    void fipsSizes() {
        int[][] sizes = {{800, 1632, 768}, {1184, 2400, 1088}, {1568, 3168, 1568}};
        for (KemAlgorithm a : KemAlgorithm.values()) {
            int[] s = sizes[a.ordinal()];
            assertEquals(s[0], a.publicKeyBytes(), a + " pk");
            assertEquals(s[1], a.expandedSecretKeyBytes(), a + " dk");
            assertEquals(s[2], a.ciphertextBytes(), a + " ct");
        }
        assertEquals(32, KemAlgorithm.SHARED_SECRET_BYTES);
        assertEquals(64, KemAlgorithm.SEED_BYTES);
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void keyPairSizesAndRoundTrip(KemAlgorithm a) {
        SecureRandom rnd = new SecureRandom();
        KemKeyPair kp = MlKem.generate(a, rnd);
        assertEquals(a.publicKeyBytes(), kp.publicKey().length);
        assertEquals(64, kp.seed().length);
        byte[] dk = kp.expandedSecretKey();
        assertEquals(a.expandedSecretKeyBytes(), dk.length);
        // FIPS 203: dk = dk_pke || ek || H(ek) || z, and z is the seed's second half
        assertArrayEquals(kp.publicKey(), Arrays.copyOfRange(dk, 384 * (a.ordinal() + 2), 384 * (a.ordinal() + 2)
                + a.publicKeyBytes()));
        assertArrayEquals(Arrays.copyOfRange(kp.seed(), 32, 64), Arrays.copyOfRange(dk, dk.length - 32, dk.length));
        assertArrayEquals(kp.publicKey(), MlKem.fromSeed(a, kp.seed()).publicKey());
        assertArrayEquals(kp.publicKey(), MlKem.fromExpanded(a, dk).publicKey());

        Encapsulation enc = MlKem.encapsulate(a, kp.publicKey(), rnd);
        assertEquals(a.ciphertextBytes(), enc.ciphertext().length);
        assertEquals(32, enc.sharedSecret().length);
        assertArrayEquals(enc.sharedSecret(), kp.decapsulate(enc.ciphertext()));
        // decapsulating twice works: the seed is not consumed by BC's key destruction
        assertArrayEquals(enc.sharedSecret(), kp.decapsulate(enc.ciphertext()));
        assertArrayEquals(enc.sharedSecret(), MlKem.fromExpanded(a, dk).decapsulate(enc.ciphertext()));
        byte[] ct = enc.ciphertext();
        ct[0] ^= 1;
        byte[] rejected = kp.decapsulate(ct);
        assertEquals(32, rejected.length);
        assertFalse(Arrays.equals(enc.sharedSecret(), rejected));
        enc.destroy();
        assertTrue(enc.isDestroyed());
        assertThrows(IllegalStateException.class, enc::sharedSecret);
    }

    @Test
    void fromSeedIsDeterministicAndDoesNotTouchTheCallersSeed() {
        byte[] seed = new byte[64];
        Arrays.fill(seed, (byte) 7);
        byte[] copy = seed.clone();
        KemKeyPair a = MlKem.fromSeed(KemAlgorithm.MLKEM768, seed);
        assertArrayEquals(copy, seed);
        assertArrayEquals(a.publicKey(), MlKem.fromSeed(KemAlgorithm.MLKEM768, seed).publicKey());
        seed[63] ^= 1;
        assertNotEquals(Arrays.toString(a.publicKey()), "");
        // z only changes the implicit-rejection key, not the public key; d changes the public key
        assertArrayEquals(a.publicKey(), MlKem.fromSeed(KemAlgorithm.MLKEM768, seed).publicKey());
        seed[0] ^= 1;
        assertFalse(Arrays.equals(a.publicKey(), MlKem.fromSeed(KemAlgorithm.MLKEM768, seed).publicKey()));
    }

    @Test
    void wrongLengthsRejected() {
        assertThrows(IllegalArgumentException.class, () -> MlKem.fromSeed(KemAlgorithm.MLKEM768, new byte[63]));
        assertThrows(IllegalArgumentException.class, () -> MlKem.fromSeed(KemAlgorithm.MLKEM768, new byte[65]));
        assertThrows(IllegalArgumentException.class, () -> MlKem.fromExpanded(KemAlgorithm.MLKEM768,
                new byte[2399]));
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM512, new SecureRandom());
        assertThrows(IllegalArgumentException.class, () -> MlKem.encapsulate(KemAlgorithm.MLKEM768,
                kp.publicKey(), new SecureRandom()));
        assertThrows(IllegalArgumentException.class, () -> kp.decapsulate(new byte[1088]));
    }

    @Test
    void encapsulateChecksTheModulus() {
        // FIPS 203 7.2: an encapsulation key whose coefficients are not reduced mod q is rejected
        byte[] pk = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom()).publicKey();
        pk[0] = (byte) 0xFF;
        pk[1] = (byte) (pk[1] | 0x0F); // first 12-bit coefficient = 0x?FF with low nibble F -> >= 3329
        assertThrows(IllegalArgumentException.class, () -> MlKem.encapsulate(KemAlgorithm.MLKEM768, pk,
                new SecureRandom()));
    }

    @Test
    void expandedKeyHashCheck() {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        byte[] dk = kp.expandedSecretKey();
        dk[1152 + 5] ^= 1; // inside the embedded ek: H(ek) no longer matches
        assertThrows(IllegalArgumentException.class, () -> MlKem.fromExpanded(KemAlgorithm.MLKEM768, dk)
                .decapsulate(new byte[1088]));
    }

    @Test
    void destroyedKeysRefuse() {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM512, new SecureRandom());
        KemDecapsulationKey dk = MlKem.fromExpanded(KemAlgorithm.MLKEM512, kp.expandedSecretKey());
        kp.destroy();
        dk.destroy();
        assertTrue(kp.isDestroyed());
        assertTrue(dk.isDestroyed());
        assertThrows(IllegalStateException.class, kp::seed);
        assertThrows(IllegalStateException.class, () -> kp.decapsulate(new byte[768]));
        assertThrows(IllegalStateException.class, () -> dk.decapsulate(new byte[768]));
        assertFalse(kp.toString().contains("seed="));
    }
}
