package io.pqssh.core.keys.authorized;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.kem.KemPublicKey;

/**
 * Issue 11: an ML-KEM encapsulation key that no key generation produces (t all zero, or a coefficient not below
 * q = 3329) is refused when an authorized file is read, with file, line and reason; good keys beside it still load.
 */
class DegenerateKemKeyTest {
    private static final SecureRandom RNG = new SecureRandom();

    private static byte[] good(KemAlgorithm alg) {
        return MlKem.generate(alg, RNG).publicKey();
    }

    /** All 384·k bytes of t zero, rho random: passes the modulus check, still degenerate. */
    private static byte[] zeroT(KemAlgorithm alg) {
        byte[] raw = good(alg);
        java.util.Arrays.fill(raw, 0, raw.length - 32, (byte) 0);
        return raw;
    }

    /** Coefficient 1 of t[0] set to 0xFFF = 4095 >= q. */
    private static byte[] overModulus(KemAlgorithm alg) {
        byte[] raw = good(alg);
        raw[1] = (byte) (raw[1] | 0xF0);
        raw[2] = (byte) 0xFF;
        return raw;
    }

    /** The all-zero key the issue found (t and rho zero). */
    private static byte[] allZero(KemAlgorithm alg) {
        return new byte[alg.publicKeyBytes()];
    }

    private static String blobLine(KemAlgorithm alg, byte[] raw, String comment) {
        return alg.sshName() + " " + Base64.getEncoder().encodeToString(KemPublicKey.blob(alg, raw)) + " " + comment;
    }

    @Test
    void authorizedKeysRefusesDegenerateKeysNamingFileAndLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("authorized_keys");
        byte[] ok = good(KemAlgorithm.MLKEM768);
        Files.writeString(file, String.join("\n",
                "# degenerate keys",
                blobLine(KemAlgorithm.MLKEM768, allZero(KemAlgorithm.MLKEM768), "zero@all"),
                blobLine(KemAlgorithm.MLKEM512, zeroT(KemAlgorithm.MLKEM512), "zero@t"),
                "restrict " + blobLine(KemAlgorithm.MLKEM1024, overModulus(KemAlgorithm.MLKEM1024), "big@coef"),
                blobLine(KemAlgorithm.MLKEM768, ok, "good@key")) + "\n");
        AuthorizedKeys keys = AuthorizedKeys.load(file, ZoneOffset.UTC);
        assertEquals(1, keys.entries().size(), keys.rejected().toString());
        assertEquals("good@key", keys.entries().get(0).comment());
        List<RejectedLine> r = keys.rejected();
        assertEquals(List.of(2, 3, 4), r.stream().map(RejectedLine::lineNumber).toList());
        assertEquals(file.toString() + ":2: mlkem768 public key is degenerate: its vector t (1152 bytes) is all zero",
                r.get(0).toString());
        assertEquals(file.toString() + ":3: mlkem512 public key is degenerate: its vector t (768 bytes) is all zero",
                r.get(1).toString());
        assertEquals(file.toString() + ":4: mlkem1024 public key fails the FIPS 203 modulus check: coefficient 1 of"
                + " t[0] is 4095, not below q = 3329", r.get(2).toString());
    }

    @Test
    void authorizedKemKeysRefusesDegenerateKeysNamingFileAndLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("authorized_kem_keys");
        byte[] ok = good(KemAlgorithm.MLKEM768);
        Base64.Encoder b64 = Base64.getEncoder();
        Files.writeString(file, String.join("\n",
                "ML-KEM-768 " + b64.encodeToString(allZero(KemAlgorithm.MLKEM768)),
                "mlkem768 " + b64.encodeToString(ok) + " fine",
                "kyber768 " + b64.encodeToString(overModulus(KemAlgorithm.MLKEM768)))
                + "\n");
        AuthorizedKeys keys = AuthorizedKeys.loadKemKeys(file);
        assertEquals(1, keys.entries().size(), keys.rejected().toString());
        assertEquals(List.of(1, 3), keys.rejected().stream().map(RejectedLine::lineNumber).toList());
        assertTrue(keys.rejected().get(0).toString().startsWith(file + ":1: mlkem768 public key is degenerate"),
                keys.rejected().toString());
        assertTrue(keys.rejected().get(1).toString().startsWith(file + ":3: mlkem768 public key fails the FIPS 203"
                + " modulus check"), keys.rejected().toString());
    }

    @Test
    void everyCoefficientPositionIsChecked() {
        for (KemAlgorithm alg : KemAlgorithm.values()) {
            int coefficients = (alg.publicKeyBytes() - 32) / 3 * 2;
            for (int index : new int[] {0, 1, 2, 3, coefficients - 2, coefficients - 1}) {
                byte[] raw = good(alg);
                int byteAt = index / 2 * 3;
                // q itself (3329 = 0xD01) is the smallest value the check must refuse
                if (index % 2 == 0) {
                    raw[byteAt] = (byte) 0x01;
                    raw[byteAt + 1] = (byte) (raw[byteAt + 1] & 0xF0 | 0x0D);
                } else {
                    raw[byteAt + 1] = (byte) (raw[byteAt + 1] & 0x0F | 0x10);
                    raw[byteAt + 2] = (byte) 0xD0;
                }
                KeyFileException e = assertThrows(KeyFileException.class,
                        () -> KemPublicKey.checkEncapsulationKey(alg, raw), alg + " coefficient " + index);
                assertTrue(e.getMessage().contains("coefficient " + index % 256 + " of t[" + index / 256
                        + "] is 3329"), e.getMessage());
            }
            // 3328 = q - 1 is a valid coefficient
            byte[] edge = good(alg);
            edge[0] = (byte) 0x00;
            edge[1] = (byte) (edge[1] & 0xF0 | 0x0D);
            assertValid(alg, edge);
            assertValid(alg, good(alg));
        }
    }

    @Test
    void publicKeyLinesAndBlobsAreCheckedToo() {
        byte[] zero = allZero(KemAlgorithm.MLKEM768);
        KeyFileException e = assertThrows(KeyFileException.class,
                () -> KemPublicKey.parseLine(blobLine(KemAlgorithm.MLKEM768, zero, "c")));
        assertTrue(e.getMessage().contains("all zero"), e.getMessage());
    }

    private static void assertValid(KemAlgorithm alg, byte[] raw) {
        try {
            KemPublicKey.checkEncapsulationKey(alg, raw);
        } catch (KeyFileException e) {
            throw new AssertionError(alg + ": a valid key was refused: " + e.getMessage(), e);
        }
    }
}
