package io.pqssh.core.keys.kem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.kem.Encapsulation;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemDecapsulationKey;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFilePermissionException;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.UnsupportedKeyTypeException;

class KemFilesTest {
    static final SecureRandom RNG = new SecureRandom();

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void identityFileRoundTripDecapsulates(KemAlgorithm alg) throws Exception {
        KemKeyPair kp = MlKem.generate(alg, RNG);
        String text = ResearchIdentityFile.format(kp);
        assertTrue(text.contains("algorithm " + alg.sshName() + "\n"));
        KemDecapsulationKey dk = ResearchIdentityFile.parse(text);
        assertEquals(alg, dk.algorithm());
        assertArrayEquals(kp.publicKey(), dk.publicKey());
        assertArrayEquals(kp.expandedSecretKey(), dk.expanded());
        Encapsulation enc = MlKem.encapsulate(alg, kp.publicKey(), RNG);
        assertArrayEquals(enc.sharedSecret(), dk.decapsulate(enc.ciphertext()));
        // and the expanded key exports again to the same text
        assertEquals(text, ResearchIdentityFile.format(dk));
    }

    @Test
    void identityFileSyntaxVariants() throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RNG);
        Base64.Encoder b = Base64.getEncoder();
        String text = "# my key\n\n  ALGORITHM=ML-KEM-768\r\npublic\t = " + b.encodeToString(kp.publicKey())
                + "\n# secret follows\nsecret\t" + b.encodeToString(kp.expandedSecretKey()) + "   \n";
        KemDecapsulationKey dk = ResearchIdentityFile.parse(text);
        assertEquals(KemAlgorithm.MLKEM768, dk.algorithm());
        // without the public line
        String noPub = "algorithm kyber768\nsecret " + b.encodeToString(kp.expandedSecretKey()) + "\n";
        assertArrayEquals(kp.publicKey(), ResearchIdentityFile.parse(noPub).publicKey());
        assertTrue(ResearchIdentityFile.format(kp, "ML-KEM-768").contains("algorithm ML-KEM-768\n"));
    }

    @Test
    void identityFileErrors() {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM512, RNG);
        KemKeyPair other = MlKem.generate(KemAlgorithm.MLKEM512, RNG);
        Base64.Encoder b = Base64.getEncoder();
        String sec = b.encodeToString(kp.expandedSecretKey());
        assertError("secret " + sec, "no 'algorithm'");
        assertError("algorithm mlkem512", "no 'secret'");
        assertError("algorithm mlkem999\nsecret " + sec, "unknown algorithm 'mlkem999'");
        assertError("algorithm mlkem768\nsecret " + sec, "secret must be 2400 bytes");
        assertError("algorithm mlkem512\npublic " + b.encodeToString(other.publicKey()) + "\nsecret " + sec,
                "does not match");
        assertError("algorithm mlkem512\nsecret " + sec + "\nsecret " + sec, "duplicate 'secret'");
        assertError("algorithm mlkem512\nsecret %%%", "invalid base64");
        assertError("algorithm mlkem512\ncolour blue\nsecret " + sec, "unknown key 'colour'");
        byte[] corrupt = kp.expandedSecretKey();
        corrupt[1000] ^= 1; // inside the embedded ek: H(ek) no longer matches
        assertError("algorithm mlkem512\nsecret " + b.encodeToString(corrupt), "H(ek)");
    }

    private static void assertError(String text, String part) {
        KeyFileException e = assertThrows(KeyFileException.class, () -> ResearchIdentityFile.parse(text));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    @Test
    void identityFileIsWrittenPrivateAndPermissionsAreChecked(@TempDir Path dir) throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RNG);
        Path f = dir.resolve("id_mlkem768");
        ResearchIdentityFile.write(f, kp);
        assertTrue(KeyFilePermissions.mode(f) >= 0, "this test needs a file system with POSIX permissions");
        assertEquals(0600, KeyFilePermissions.mode(f));
        assertArrayEquals(kp.publicKey(), ResearchIdentityFile.read(f).publicKey());
        for (String perms : new String[] {"rw-r-----", "rw----r--", "rw--w----", "rwx---rwx"}) {
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(perms));
            KeyFilePermissionException e = assertThrows(KeyFilePermissionException.class,
                    () -> ResearchIdentityFile.read(f));
            assertTrue(e.getMessage().contains("are too open"), e.getMessage());
        }
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("r--------"));
        ResearchIdentityFile.read(f);
        KeyFilePermissions.writePublicKeyFile(dir.resolve("x.pub"), "x\n");
        assertEquals(0644, KeyFilePermissions.mode(dir.resolve("x.pub")));
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void publicKeyLines(KemAlgorithm alg) throws Exception {
        KemPublicKey k = new KemPublicKey(alg, MlKem.generate(alg, RNG).publicKey());
        String line = k.toLine("user@host two words");
        assertTrue(line.startsWith(alg.sshName() + " "));
        KemPublicKey.Line parsed = KemPublicKey.parseLine(line + "\n");
        assertEquals(k, parsed.key());
        assertEquals("user@host two words", parsed.comment());
        String fips = alg.fipsName() + line.substring(alg.sshName().length());
        assertEquals(k, KemPublicKey.parseLine(fips).key());
        PublicKeyLine generic = PublicKeyLine.parse(line);
        assertEquals(alg.sshName(), generic.keyType());
        assertArrayEquals(k.blob(), generic.blob());
        assertEquals(line, generic.format());
        assertEquals(KeyFingerprints.sha256(k.blob()), k.fingerprint());
        int pkLen = alg.publicKeyBytes();
        byte[] blob = k.blob();
        assertEquals(4 + alg.sshName().length() + 4 + pkLen, blob.length);
    }

    @Test
    void publicKeyLineErrors() {
        KemPublicKey k = new KemPublicKey(KemAlgorithm.MLKEM512, MlKem.generate(KemAlgorithm.MLKEM512, RNG)
                .publicKey());
        String b64 = Base64.getEncoder().encodeToString(k.blob());
        assertThrows(KeyFileException.class, () -> KemPublicKey.parseLine("mlkem768 " + b64));
        UnsupportedKeyTypeException u = assertThrows(UnsupportedKeyTypeException.class,
                () -> KemPublicKey.parseLine("ssh-ed25519 " + b64));
        assertEquals("ssh-ed25519", u.keyType());
        assertThrows(KeyFileException.class, () -> KemPublicKey.parseLine("mlkem512"));
        assertThrows(KeyFileException.class, () -> KemPublicKey.parseLine("mlkem512 ###"));
        byte[] longer = java.util.Arrays.copyOf(k.blob(), k.blob().length + 1);
        assertThrows(KeyFileException.class, () -> KemPublicKey.fromBlob(longer));
        assertThrows(KeyFileException.class, () -> KemPublicKey.fromBlob(new byte[3]));
    }

    @Test
    void fingerprintMatchesSshKeygen() throws Exception {
        // ssh-keygen -l of the committed ed25519_plain.pub (see src/test/resources/keys/fingerprints.txt)
        String pub = new String(KemFilesTest.class.getResourceAsStream("/keys/ed25519_plain.pub").readAllBytes());
        assertEquals("SHA256:o9JN/ybDiNycpYx6+m/U4nYB4bIZdFQHnG1teIwokos", PublicKeyLine.parse(pub).fingerprint());
    }
}
