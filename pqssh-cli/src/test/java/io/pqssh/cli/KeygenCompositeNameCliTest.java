package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.core.sig.SshSigningKey;

/**
 * {@code pqssh keygen} and OpenSSH 10.6's composite name: {@code -t mldsa44-ed25519} makes {@code ssh-mldsa44-ed25519}
 * (10.6's default), {@code -t mldsa44-ed25519@openssh.com} still makes the 10.4/10.5 form, and {@code --convert-to}
 * moves OpenSSH 10.5's own key files (the shared vectors) to the new name where the file holds the seeds, refusing
 * everything else in one line that says the key must be regenerated.
 */
class KeygenCompositeNameCliTest {
    private static final Path VECTORS = Path.of("..", "pqssh-core", "src", "test", "resources", "sig", "openssh-10.5")
            .toAbsolutePath();
    private static final String PASS = "correct horse battery staple";

    private static Path vector(Path dir, String name) throws Exception {
        assertTrue(Files.isDirectory(VECTORS), "OpenSSH 10.5 vectors missing at " + VECTORS);
        Path p = dir.resolve(name);
        Files.copy(VECTORS.resolve(name), p);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        Files.copy(VECTORS.resolve(name + ".pub"), dir.resolve(name + ".pub"));
        return p;
    }

    private static String pubType(Path key) throws Exception {
        return Files.readString(CliHarness.pub(key)).split(" ")[0];
    }

    @Test
    void generatesTheOpenSsh106NameByDefaultAndTheOldOneOnRequest(@TempDir Path dir) throws Exception {
        Path ietf = dir.resolve("id_new");
        CliHarness.Result a = CliHarness.pqssh("keygen", "-t", "mldsa44-ed25519", "-N", "", "-q", "-f",
                ietf.toString());
        assertEquals(0, a.rc(), a.all());
        assertEquals("ssh-mldsa44-ed25519", pubType(ietf));
        assertTrue(Files.readString(ietf).contains("BEGIN OPENSSH PRIVATE KEY"));
        assertTrue(CliHarness.pqssh("keygen", "-l", "-f", ietf.toString()).out().strip().endsWith("(MLDSA44-ED25519)"));

        Path old = dir.resolve("id_old");
        CliHarness.Result b = CliHarness.pqssh("keygen", "-t", "mldsa44-ed25519@openssh.com", "-N", "", "-q", "-f",
                old.toString());
        assertEquals(0, b.rc(), b.all());
        assertEquals("ssh-mldsa44-ed25519@openssh.com", pubType(old));
        // certified by an Ed25519 CA: 10.6's certificate name (not the -cert-v01 rule), -L labels it as ssh-keygen would
        Path ca = dir.resolve("ca");
        assertEquals(0, CliHarness.pqssh("keygen", "-t", "ed25519", "-N", "", "-q", "-f", ca.toString()).rc());
        CliHarness.Result signed = CliHarness.pqssh("keygen", "-s", ca.toString(), "-I", "alice@10.6", "-n", "alice",
                CliHarness.pub(ietf).toString());
        assertEquals(0, signed.rc(), signed.all());
        Path cert = dir.resolve("id_new-cert.pub");
        assertEquals("ssh-mldsa44-ed25519-cert", Files.readString(cert).split(" ")[0]);
        CliHarness.Result listed = CliHarness.pqssh("keygen", "-L", "-f", cert.toString());
        assertEquals(0, listed.rc(), listed.all());
        assertTrue(listed.out().contains("Type: ssh-mldsa44-ed25519-cert user certificate"), listed.all());
        assertTrue(listed.out().contains("Public key: MLDSA44-ED25519-CERT "), listed.all());

        // the full names work as -t too
        Path full = dir.resolve("id_full");
        assertEquals(0, CliHarness.pqssh("keygen", "-t", "ssh-mldsa44-ed25519", "-N", "", "-q", "-f",
                full.toString()).rc());
        assertEquals("ssh-mldsa44-ed25519", pubType(full));
    }

    @Test
    void convertsOpenSsh105KeysThatHoldTheSeeds(@TempDir Path dir) throws Exception {
        Path plain = vector(dir, "id_mldsa44_ed25519");
        Path out = dir.resolve("id_mldsa44_ed25519_106");
        CliHarness.Result r = CliHarness.pqssh("keygen", "--convert-to", "mldsa44-ed25519", "-f", plain.toString(),
                out.toString());
        assertEquals(0, r.rc(), r.all());
        assertEquals("ssh-mldsa44-ed25519", pubType(out));
        SshPublicKey was = SshPublicKey.parseOpenSsh(Files.readString(CliHarness.pub(plain)).strip());
        SshPublicKey now = SshPublicKey.parseOpenSsh(Files.readString(CliHarness.pub(out)).strip());
        assertArrayEquals(was.rawKey(), now.rawKey(), "same seeds, same public key bytes");
        assertNotEquals(was.fingerprintSha256(), now.fingerprintSha256(), "a new name is a new blob");
        assertTrue(r.out().contains(now.fingerprintSha256()), r.all());
        OpenSshPrivateKey k = OpenSshKeyV1.read(Files.readString(out), null);
        try {
            assertEquals("vector-mldsa44-ed25519", k.comment());
            byte[] msg = "after the rename".getBytes(StandardCharsets.US_ASCII);
            assertTrue(now.verify(msg, ((SshSigningKey) k.key()).sign(msg)));
        } finally {
            k.destroy();
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out)));

        // an encrypted one keeps its passphrase unless -N says otherwise; and it converts back
        Path enc = vector(dir, "id_mldsa44_ed25519_encrypted");
        Path encOut = dir.resolve("enc_106");
        CliHarness.Result e = CliHarness.pqssh("keygen", "--convert-to", "mldsa44-ed25519", "-P", PASS, "-f",
                enc.toString(), encOut.toString());
        assertEquals(0, e.rc(), e.all());
        assertTrue(OpenSshKeyV1.isEncrypted(Files.readString(encOut)));
        OpenSshKeyV1.read(Files.readString(encOut), PASS.toCharArray()).destroy();
        Path back = dir.resolve("enc_back");
        CliHarness.Result b = CliHarness.pqssh("keygen", "--convert-to", "mldsa44-ed25519@openssh.com", "-P", PASS,
                "-N", "", "-f", encOut.toString(), back.toString());
        assertEquals(0, b.rc(), b.all());
        assertFalse(OpenSshKeyV1.isEncrypted(Files.readString(back)));
        assertEquals(Files.readString(CliHarness.pub(enc)).split(" ")[1],
                Files.readString(CliHarness.pub(back)).split(" ")[1], "back to the very key OpenSSH 10.5 made");

        CliHarness.Result wrong = CliHarness.pqssh("keygen", "--convert-to", "mldsa44-ed25519", "-P", "nope", "-f",
                enc.toString(), dir.resolve("never").toString());
        assertNotEquals(0, wrong.rc());
        assertTrue(wrong.err().contains("incorrect passphrase"), wrong.all());
        assertFalse(Files.exists(dir.resolve("never")));
        CliHarness.Result exists = CliHarness.pqssh("keygen", "--convert-to", "mldsa44-ed25519", "-f",
                plain.toString(), out.toString());
        assertNotEquals(0, exists.rc());
        assertTrue(exists.err().contains("already exists"), exists.all());
    }

    /** A 10.5-named composite whose private section holds a 32-byte secret instead of the 64-byte seed pair. */
    private record OddComposite(SshPublicKey pub) implements io.pqssh.core.keys.SshPrivateKey {
        @Override
        public String keyType() {
            return pub.name();
        }

        @Override
        public byte[] publicKeyBlob() {
            return pub.blob();
        }

        @Override
        public void writePrivateFields(io.pqssh.core.wire.SshWriter out) {
            out.putString(pub.rawKey()).putString(new byte[32]);
        }
    }

    @Test
    void whatLacksTheSeedsMustBeRegeneratedSaidInOneLine(@TempDir Path dir) throws Exception {
        Path plain = vector(dir, "id_mldsa44_ed25519");
        Path ed = vector(dir, "id_ed25519");
        String[][] cases = {
            {CliHarness.pub(plain).toString(), "holds no OpenSSH private key"},
            {ed.toString(), "is a ssh-ed25519 key, not an ML-DSA-44+Ed25519 composite"},
        };
        for (String[] c : cases) {
            Path target = dir.resolve("out-" + Path.of(c[0]).getFileName());
            CliHarness.Result r = CliHarness.pqssh("keygen", "--convert-to", "mldsa44-ed25519", "-f", c[0],
                    target.toString());
            assertNotEquals(0, r.rc(), r.all());
            String err = r.err().strip();
            assertEquals(1, err.lines().count(), r.all());
            assertTrue(err.contains(c[1]) && err.contains("must be regenerated: pqssh keygen -t mldsa44-ed25519"),
                    r.all());
            assertFalse(Files.exists(target));
        }
        // a composite private key whose secret is not the two seeds (32 bytes here): read fails, so regenerate
        Path odd = dir.resolve("id_odd");
        io.pqssh.core.keys.KeyFilePermissions.writePrivateKeyFile(odd, OpenSshKeyV1.write(new OddComposite(
                SshPublicKey.parseOpenSsh(Files.readString(CliHarness.pub(plain)).strip())), "odd", null,
                new java.security.SecureRandom()));
        CliHarness.Result r = CliHarness.pqssh("keygen", "--convert-to", "mldsa44-ed25519", "-f", odd.toString(),
                dir.resolve("odd-out").toString());
        assertNotEquals(0, r.rc(), r.all());
        assertEquals(1, r.err().strip().lines().count(), r.all());
        assertTrue(r.err().contains("its ML-DSA-44+Ed25519 seeds cannot be read")
                && r.err().contains("must be regenerated"), r.all());
        assertFalse(Files.exists(dir.resolve("odd-out")));

        CliHarness.Result same = CliHarness.pqssh("keygen", "--convert-to", "mldsa44-ed25519@openssh.com", "-f",
                plain.toString(), dir.resolve("same").toString());
        assertNotEquals(0, same.rc());
        assertTrue(same.err().contains("is already a ssh-mldsa44-ed25519@openssh.com key"), same.all());
        CliHarness.Result badType = CliHarness.pqssh("keygen", "--convert-to", "mldsa65", "-f", plain.toString(),
                dir.resolve("x").toString());
        assertNotEquals(0, badType.rc());
        assertTrue(badType.err().contains("--convert-to takes mldsa44-ed25519"), badType.all());
    }
}
