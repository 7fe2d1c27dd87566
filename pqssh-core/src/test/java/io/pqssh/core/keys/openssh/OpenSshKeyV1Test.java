package io.pqssh.core.keys.openssh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFilePermissionException;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.PassphraseRequiredException;
import io.pqssh.core.keys.PrivateKeyCodecs;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.UnsupportedKeyTypeException;
import io.pqssh.core.keys.WrongPassphraseException;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

class OpenSshKeyV1Test {
    static final char[] PASS = "pqssh test pass".toCharArray();
    static final SecureRandom RNG = new SecureRandom();

    static String resource(String name) throws IOException {
        try (InputStream in = OpenSshKeyV1Test.class.getResourceAsStream("/keys/" + name)) {
            if (in == null) {
                throw new IOException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A minimal ssh-ed25519 key for tests (pqssh's signature codecs live elsewhere). */
    record TestEd25519Key(byte[] pk, byte[] sk) implements SshPrivateKey {
        static TestEd25519Key generate() {
            Ed25519PrivateKeyParameters p = new Ed25519PrivateKeyParameters(RNG);
            byte[] pk = p.generatePublicKey().getEncoded();
            byte[] sk = Arrays.copyOf(p.getEncoded(), 64);
            System.arraycopy(pk, 0, sk, 32, 32);
            return new TestEd25519Key(pk, sk);
        }

        @Override
        public String keyType() {
            return "ssh-ed25519";
        }

        @Override
        public byte[] publicKeyBlob() {
            return new SshWriter().putString("ssh-ed25519").putString(pk).toByteArray();
        }

        @Override
        public void writePrivateFields(SshWriter out) {
            out.putString(pk).putString(sk);
        }

        @Override
        public void destroy() {
            Arrays.fill(sk, (byte) 0);
        }
    }

    /** A key of a type nobody registers. */
    record UnknownKey() implements SshPrivateKey {
        @Override
        public String keyType() {
            return "ssh-nosuchtype@example.com";
        }

        @Override
        public byte[] publicKeyBlob() {
            return new SshWriter().putString(keyType()).putString(new byte[4]).toByteArray();
        }

        @Override
        public void writePrivateFields(SshWriter out) {
            out.putString(new byte[4]);
        }
    }

    // ------------------------------------------------------------------ files made by ssh-keygen

    @ParameterizedTest
    @CsvSource({"ed25519_plain, none, plain@pqssh-test", "ed25519_aes256ctr, aes256-ctr, enc@pqssh-test",
            "ed25519_aes256gcm, aes256-gcm@openssh.com, gcm@pqssh-test", "ed25519_aes128cbc, aes128-cbc, cbc@pqssh-test"})
    void readsSshKeygenEd25519Files(String file, String cipher, String comment) throws Exception {
        String text = resource(file);
        boolean encrypted = !cipher.equals("none");
        assertEquals(encrypted, OpenSshKeyV1.isEncrypted(text));
        try (PrivateSection s = OpenSshKeyV1.decrypt(text, encrypted ? PASS : null)) {
            assertEquals(cipher, s.cipher().sshName());
            assertEquals(encrypted ? "bcrypt" : "none", s.kdfName());
            assertEquals("ssh-ed25519", s.keyType());
            SshReader r = s.fieldsReader();
            byte[] pk = r.getString();
            byte[] sk = r.getString();
            assertEquals(32, pk.length);
            assertEquals(64, sk.length);
            assertEquals(comment, s.finish(r));
            // the decrypted seed really is the key: it re-derives the public key of the header and of the .pub
            byte[] derived = new Ed25519PrivateKeyParameters(sk, 0).generatePublicKey().getEncoded();
            assertArrayEquals(pk, derived);
            assertArrayEquals(pk, Arrays.copyOfRange(sk, 32, 64));
            byte[] blob = new SshWriter().putString("ssh-ed25519").putString(pk).toByteArray();
            assertArrayEquals(blob, s.publicKeyBlob());
            assertArrayEquals(blob, OpenSshKeyV1.publicKeyBlob(text));
            String pub = resource(file + ".pub").strip();
            assertEquals("ssh-ed25519 " + Base64.getEncoder().encodeToString(blob) + " " + comment, pub);
            assertTrue(resource("fingerprints.txt").contains(KeyFingerprints.sha256(blob) + " " + comment));
        }
    }

    @ParameterizedTest
    @CsvSource({"ed25519_aes256ctr", "ed25519_aes256gcm", "ed25519_aes128cbc"})
    void wrongPassphraseOnSshKeygenFile(String file) throws Exception {
        String text = resource(file);
        WrongPassphraseException e = assertThrows(WrongPassphraseException.class,
                () -> OpenSshKeyV1.decrypt(text, "not the pass".toCharArray()));
        assertTrue(e.getMessage().contains("incorrect passphrase"), e.getMessage());
        assertThrows(PassphraseRequiredException.class, () -> OpenSshKeyV1.decrypt(text, null));
        assertThrows(PassphraseRequiredException.class, () -> OpenSshKeyV1.read(text, new char[0]));
    }

    @Test
    void fullReadOfEd25519DependsOnARegisteredCodec() throws Exception {
        String text = resource("ed25519_aes256ctr");
        if (PrivateKeyCodecs.forType("ssh-ed25519").isEmpty()) {
            UnsupportedKeyTypeException e = assertThrows(UnsupportedKeyTypeException.class,
                    () -> OpenSshKeyV1.read(text, PASS));
            assertEquals("ssh-ed25519", e.keyType());
            assertTrue(e.getMessage().contains("'ssh-ed25519'"), e.getMessage());
        } else {
            OpenSshPrivateKey k = OpenSshKeyV1.read(text, PASS);
            assertEquals("enc@pqssh-test", k.comment());
            assertArrayEquals(OpenSshKeyV1.publicKeyBlob(text), k.key().publicKeyBlob());
        }
    }

    // ------------------------------------------------------------------ our writer, checked by ssh-keygen

    static boolean haveSshKeygen() {
        return Files.isExecutable(Path.of("/usr/bin/ssh-keygen"));
    }

    static String sshKeygenPublic(Path file, String passphrase) throws Exception {
        Process p = new ProcessBuilder("/usr/bin/ssh-keygen", "-y", "-P", passphrase, "-f", file.toString())
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = OpenSshCipher.class, names = {"NONE", "AES256_CTR", "AES256_GCM", "AES128_CBC"})
    void sshKeygenReadsWhatWeWrite(OpenSshCipher cipher, @TempDir Path dir) throws Exception {
        assertTrue(haveSshKeygen(), "this test needs /usr/bin/ssh-keygen (apt install openssh-client)");
        TestEd25519Key key = TestEd25519Key.generate();
        boolean enc = cipher != OpenSshCipher.NONE;
        String text = OpenSshKeyV1.write(key, "ours", enc ? PASS : null, cipher, 4, RNG);
        Path f = dir.resolve("id_ours");
        io.pqssh.core.keys.KeyFilePermissions.writePrivateKeyFile(f, text);
        String pub = sshKeygenPublic(f, enc ? new String(PASS) : "");
        assertTrue(pub.startsWith("ssh-ed25519 " + Base64.getEncoder().encodeToString(key.publicKeyBlob())), pub);
        // and back through our reader
        try (PrivateSection s = OpenSshKeyV1.decrypt(text, enc ? PASS : null)) {
            SshReader r = s.fieldsReader();
            assertArrayEquals(key.pk(), r.getString());
            assertArrayEquals(key.sk(), r.getString());
            assertEquals("ours", s.finish(r));
        }
    }

    // ------------------------------------------------------------------ ML-KEM round trips

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void mlKemRoundTripUnencrypted(KemAlgorithm alg) throws Exception {
        roundTrip(alg, null, 16);
    }

    @ParameterizedTest
    @EnumSource(KemAlgorithm.class)
    void mlKemRoundTripEncrypted(KemAlgorithm alg) throws Exception {
        roundTrip(alg, PASS, alg == KemAlgorithm.MLKEM768 ? OpenSshKeyV1.DEFAULT_ROUNDS : 2);
    }

    private static void roundTrip(KemAlgorithm alg, char[] pass, int rounds) throws Exception {
        KemKeyPair kp = MlKem.generate(alg, RNG);
        String text = OpenSshKeyV1.write(new MlKemSshKey(kp), "kem " + alg.sshName(), pass, rounds, RNG);
        assertEquals(pass != null, OpenSshKeyV1.isEncrypted(text));
        String[] lines = text.split("\n");
        assertEquals(OpenSshKeyV1.BEGIN, lines[0]);
        assertEquals(OpenSshKeyV1.END, lines[lines.length - 1]);
        for (int i = 1; i < lines.length - 1; i++) {
            assertTrue(lines[i].length() <= 70);
            if (i < lines.length - 2) {
                assertEquals(70, lines[i].length());
            }
        }
        OpenSshPrivateKey read = OpenSshKeyV1.read(text, pass);
        assertEquals("kem " + alg.sshName(), read.comment());
        MlKemSshKey k = assertInstanceOf(MlKemSshKey.class, read.key());
        assertEquals(alg.sshName(), k.keyType());
        assertArrayEquals(kp.publicKey(), k.keyPair().publicKey());
        assertArrayEquals(kp.seed(), k.keyPair().seed());
        // usable as the client's KEM private key
        var enc = MlKem.encapsulate(alg, kp.publicKey(), RNG);
        assertArrayEquals(enc.sharedSecret(), k.kemPrivateKey().decapsulate(enc.ciphertext()));
        if (pass != null) {
            assertThrows(WrongPassphraseException.class, () -> OpenSshKeyV1.read(text, "wrong".toCharArray()));
        }
        read.destroy();
        assertTrue(k.isDestroyed());
    }

    @Test
    void checkIntsAndSaltAreRandom() throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM512, RNG);
        String a = OpenSshKeyV1.write(new MlKemSshKey(kp), "", null, RNG);
        String b = OpenSshKeyV1.write(new MlKemSshKey(kp), "", null, RNG);
        assertNotEquals(a, b);
        byte[] ba = OpenSshKeyV1.dearmor(a);
        byte[] bb = OpenSshKeyV1.dearmor(b);
        assertEquals(ba.length, bb.length);
    }

    @Test
    void writtenDefaultsMatchOpenSsh() throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM512, RNG);
        byte[] bin = OpenSshKeyV1.dearmor(OpenSshKeyV1.write(new MlKemSshKey(kp), "c", PASS, RNG));
        SshReader r = new SshReader(bin, OpenSshKeyV1.MAGIC.length, bin.length - OpenSshKeyV1.MAGIC.length);
        assertEquals("aes256-ctr", r.getUtf8());
        assertEquals("bcrypt", r.getUtf8());
        SshReader o = new SshReader(r.getString());
        assertEquals(16, o.getString().length);
        assertEquals(16, o.getUint32());
        assertEquals(1, r.getUint32());
        assertArrayEquals(new MlKemSshKey(kp).publicKeyBlob(), r.getString());
        assertEquals(0, r.getString().length % 16);
        assertEquals(0, r.remaining());
    }

    // ------------------------------------------------------------------ malformed files

    static byte[] container(String cipher, String kdf, byte[] kdfOptions, long nkeys, byte[] pub, byte[] section) {
        return new SshWriter().putRaw(OpenSshKeyV1.MAGIC).putString(cipher).putString(kdf).putString(kdfOptions)
                .putUint32(nkeys).putString(pub).putString(section).toByteArray();
    }

    static byte[] section(long c1, long c2, SshPrivateKey key, String comment, byte[] padding) {
        SshWriter w = new SshWriter().putUint32(c1).putUint32(c2).putString(key.keyType());
        key.writePrivateFields(w);
        return w.putString(comment).putRaw(padding).toByteArray();
    }

    static byte[] padFor(int len) {
        int n = (8 - len % 8) % 8;
        byte[] p = new byte[n];
        for (int i = 0; i < n; i++) {
            p[i] = (byte) (i + 1);
        }
        return p;
    }

    static String plainFile(long c1, long c2, SshPrivateKey key, String comment, Boolean goodPadding) {
        byte[] s = section(c1, c2, key, comment, new byte[0]);
        byte[] pad = padFor(s.length);
        if (Boolean.FALSE.equals(goodPadding)) {
            if (pad.length == 0) {
                pad = new byte[8];
            }
            pad[pad.length - 1] = 0x7f;
        }
        byte[] full = Arrays.copyOf(s, s.length + pad.length);
        System.arraycopy(pad, 0, full, s.length, pad.length);
        return OpenSshKeyV1.armor(container("none", "none", new byte[0], 1, key.publicKeyBlob(), full));
    }

    static KeyFileException assertKeyFileError(String text, String messagePart) {
        try {
            OpenSshPrivateKey k = OpenSshKeyV1.read(text, PASS);
            fail("read succeeded: " + k);
            return null;
        } catch (KeyFileException e) {
            if (messagePart != null) {
                assertTrue(e.getMessage().contains(messagePart), "message '" + e.getMessage() + "' lacks '"
                        + messagePart + "'");
            }
            return e;
        }
    }

    @Test
    void craftedGoodFileIsRead() throws Exception {
        MlKemSshKey key = new MlKemSshKey(MlKem.generate(KemAlgorithm.MLKEM512, RNG));
        assertEquals("x", OpenSshKeyV1.read(plainFile(7, 7, key, "x", true), null).comment());
    }

    @Test
    void structuralErrorsAreExplicit() throws Exception {
        MlKemSshKey key = new MlKemSshKey(MlKem.generate(KemAlgorithm.MLKEM512, RNG));
        assertKeyFileError(plainFile(1, 2, key, "x", true), "check values differ");
        assertKeyFileError(plainFile(7, 7, key, "x", false), "padding");
        byte[] good = section(5, 5, key, "", new byte[0]);
        byte[] padded = Arrays.copyOf(good, good.length + padFor(good.length).length);
        System.arraycopy(padFor(good.length), 0, padded, good.length, padFor(good.length).length);
        assertKeyFileError(OpenSshKeyV1.armor(container("none", "none", new byte[0], 2, key.publicKeyBlob(),
                padded)), "2 keys");
        assertKeyFileError(OpenSshKeyV1.armor(container("none", "none", new byte[0], 0, key.publicKeyBlob(),
                padded)), "0 keys");
        assertKeyFileError(OpenSshKeyV1.armor(container("des-cbc", "bcrypt", new byte[0], 1,
                key.publicKeyBlob(), padded)), "unsupported private key cipher 'des-cbc'");
        assertKeyFileError(OpenSshKeyV1.armor(container("aes256-ctr", "scrypt", new byte[0], 1,
                key.publicKeyBlob(), padded)), "unsupported private key kdf 'scrypt'");
        assertKeyFileError(OpenSshKeyV1.armor(container("none", "bcrypt", new byte[0], 1,
                key.publicKeyBlob(), padded)), "cipher 'none' with kdf 'bcrypt'");
        byte[] hugeRounds = new SshWriter().putString(new byte[16]).putUint32(0xFFFFFFFFL).toByteArray();
        assertKeyFileError(OpenSshKeyV1.armor(container("aes256-ctr", "bcrypt", hugeRounds, 1,
                key.publicKeyBlob(), Arrays.copyOf(padded, padded.length + (16 - padded.length % 16) % 16))),
                "rounds");
        // header public key of another key
        MlKemSshKey other = new MlKemSshKey(MlKem.generate(KemAlgorithm.MLKEM512, RNG));
        assertKeyFileError(OpenSshKeyV1.armor(container("none", "none", new byte[0], 1, other.publicKeyBlob(),
                padded)), "does not match");
        // bad magic, other PEM types, missing END, text after END, bad base64
        assertKeyFileError(OpenSshKeyV1.armor("openssh-key-v2\0xxxxxxxxxxxxxxxx".getBytes()), "magic");
        assertKeyFileError("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", "RSA");
        assertKeyFileError("hello", "missing -----BEGIN OPENSSH PRIVATE KEY-----");
        String text = plainFile(7, 7, key, "x", true);
        assertKeyFileError(text.substring(0, text.indexOf("-----END")), "missing -----END");
        assertKeyFileError(text + "garbage\n", "after -----END");
        assertKeyFileError(text.replaceFirst("\n(.)", "\n*$1"), "base64");
    }

    @Test
    void unknownKeyTypeIsNamed() throws Exception {
        UnsupportedKeyTypeException e = assertThrows(UnsupportedKeyTypeException.class,
                () -> OpenSshKeyV1.read(plainFile(3, 3, new UnknownKey(), "", true), null));
        assertEquals("ssh-nosuchtype@example.com", e.keyType());
        assertTrue(e.getMessage().contains("'ssh-nosuchtype@example.com'"));
    }

    @Test
    void inconsistentMlKemFieldsAreRejected() throws Exception {
        KemKeyPair a = MlKem.generate(KemAlgorithm.MLKEM768, RNG);
        KemKeyPair b = MlKem.generate(KemAlgorithm.MLKEM768, RNG);
        SshPrivateKey mixed = new MlKemSshKey(a);
        // public key of a with seed of b
        SshPrivateKey franken = new SshPrivateKey() {
            public String keyType() {
                return "mlkem768";
            }

            public byte[] publicKeyBlob() {
                return mixed.publicKeyBlob();
            }

            public void writePrivateFields(SshWriter out) {
                out.putString(a.publicKey()).putString(b.seed());
            }
        };
        assertKeyFileError(plainFile(9, 9, franken, "", true), "does not match the one derived from the seed");
        SshPrivateKey shortSeed = new SshPrivateKey() {
            public String keyType() {
                return "mlkem768";
            }

            public byte[] publicKeyBlob() {
                return mixed.publicKeyBlob();
            }

            public void writePrivateFields(SshWriter out) {
                out.putString(a.publicKey()).putString(new byte[32]);
            }
        };
        assertKeyFileError(plainFile(9, 9, shortSeed, "", true), "seed must be 64 bytes");
    }

    @Test
    void truncatedFilesGiveKeyFileException() throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM512, RNG);
        for (char[] pass : new char[][] {null, PASS}) {
            String text = OpenSshKeyV1.write(new MlKemSshKey(kp), "trunc", pass, 1, RNG);
            byte[] bin = OpenSshKeyV1.dearmor(text);
            for (int len = 0; len < bin.length; len += (len < 200 ? 1 : 97)) {
                assertKeyFileError(OpenSshKeyV1.armor(Arrays.copyOf(bin, len)), null);
            }
            // armored text cut inside the base64, END line kept
            String body = text.substring(0, text.length() / 2) + "\n" + OpenSshKeyV1.END + "\n";
            assertKeyFileError(body, null);
        }
    }

    @Test
    void extendedFilesGiveKeyFileException() throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM512, RNG);
        for (char[] pass : new char[][] {null, PASS}) {
            byte[] bin = OpenSshKeyV1.dearmor(OpenSshKeyV1.write(new MlKemSshKey(kp), "ext", pass, 1, RNG));
            for (int extra : new int[] {1, 8, 16, 1000}) {
                byte[] longer = Arrays.copyOf(bin, bin.length + extra);
                assertKeyFileError(OpenSshKeyV1.armor(longer), "trailing bytes");
            }
        }
    }

    @Test
    void corruptedFilesNeverEscapeAsOtherExceptions() throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM512, RNG);
        String comment = "corrupt";
        for (char[] pass : new char[][] {null, PASS}) {
            byte[] bin = OpenSshKeyV1.dearmor(OpenSshKeyV1.write(new MlKemSshKey(kp), comment, pass, 1, RNG));
            int step = pass == null ? 1 : 37;
            for (int i = 0; i < bin.length; i += step) {
                for (int mask : new int[] {0x01, 0x80}) {
                    byte[] bad = bin.clone();
                    bad[i] ^= (byte) mask;
                    try {
                        OpenSshPrivateKey k = OpenSshKeyV1.read(OpenSshKeyV1.armor(bad), pass);
                        // Only the comment and z (second half of the seed: the implicit-rejection value, which the
                        // public key does not depend on) can change unnoticed; the format has no MAC over them.
                        byte[] seed = ((MlKemSshKey) k.key()).keyPair().seed();
                        boolean zChanged = !Arrays.equals(seed, kp.seed());
                        assertArrayEquals(Arrays.copyOf(kp.seed(), 32), Arrays.copyOf(seed, 32));
                        assertTrue(zChanged ^ !k.comment().equals(comment), "flip at " + i + " went unnoticed");
                    } catch (KeyFileException expected) {
                        // fine: explicit error
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ files and permissions

    @Test
    void writeFilesAndPermissionRefusal(@TempDir Path dir) throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, RNG);
        Path f = dir.resolve("id_mlkem768");
        OpenSshKeyV1.writeFiles(f, new MlKemSshKey(kp), "me@host", null, RNG);
        assertTrue(io.pqssh.core.keys.KeyFilePermissions.mode(f) >= 0, "this test needs a file system with POSIX permissions");
        assertEquals(0600, io.pqssh.core.keys.KeyFilePermissions.mode(f));
        assertEquals(0644, io.pqssh.core.keys.KeyFilePermissions.mode(dir.resolve("id_mlkem768.pub")));
        assertEquals("me@host", OpenSshKeyV1.readFile(f, null).comment());
        Files.setPosixFilePermissions(f, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        KeyFilePermissionException e = assertThrows(KeyFilePermissionException.class,
                () -> OpenSshKeyV1.readFile(f, null));
        assertTrue(e.getMessage().startsWith("Permissions 0644 for '" + f + "' are too open. It is required "
                + "that your private key files are NOT accessible by others."), e.getMessage());
        assertEquals(0644, e.mode());
    }
}
