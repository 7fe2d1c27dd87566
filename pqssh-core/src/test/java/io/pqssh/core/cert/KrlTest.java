package io.pqssh.core.cert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.wire.MalformedMessageException;

/** KRLs both ways with the installed ssh-keygen (Debian's OpenSSH 9.2): ssh-keygen -k made, read here; made here, read by ssh-keygen -Q. */
class KrlTest {
    static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");

    @TempDir
    static Path dir;

    @BeforeAll
    static void keys() throws Exception {
        assertTrue(Files.isExecutable(SSH_KEYGEN), "this test needs /usr/bin/ssh-keygen (apt install openssh-client)");
        for (String k : new String[] {"ca", "other_ca", "a", "b", "c"}) {
            run(0, "-q", "-t", "ed25519", "-N", "", "-f", k);
        }
        for (int serial : new int[] {5, 500, 1500, 2002, 2003}) {
            run(0, "-q", "-s", "ca", "-I", "id" + serial, "-z", String.valueOf(serial), "-n", "u", "c.pub");
            Files.move(dir.resolve("c-cert.pub"), dir.resolve("c-" + serial + "-cert.pub"));
        }
        run(0, "-q", "-s", "other_ca", "-I", "gone", "-z", "500", "-n", "u", "c.pub");
        Files.move(dir.resolve("c-cert.pub"), dir.resolve("c-other-cert.pub"));
    }

    private static byte[] blob(String file) throws Exception {
        return Base64.getDecoder().decode(Files.readString(dir.resolve(file)).strip().split(" ")[1]);
    }

    @Test
    void readsWhatSshKeygenWrites() throws Exception {
        // ranges, a scattered set (ssh-keygen picks list or bitmap encodings), a key ID; a key and a SHA256 hash
        Files.writeString(dir.resolve("spec"), "serial: 1-1000\nserial: 2002\nserial: 2010\nserial: 2017\n"
                + "id: gone\n");
        run(0, "-k", "-f", "made.krl", "-s", "ca.pub", "spec");
        Files.writeString(dir.resolve("spec2"), "sha256: " + Files.readString(dir.resolve("b.pub")));
        run(0, "-k", "-u", "-f", "made.krl", "a.pub", "spec2");
        Krl k = Krl.parse(Files.readAllBytes(dir.resolve("made.krl")));
        assertTrue(k.revocation(blob("a.pub")).isPresent(), "explicit key");
        assertEquals(Optional.of("key revoked by SHA256 hash"), k.revocation(blob("b.pub")));
        assertEquals(Optional.empty(), k.revocation(blob("c.pub")));
        assertTrue(k.revocation(blob("c-5-cert.pub")).isPresent(), "serial in range");
        assertTrue(k.revocation(blob("c-500-cert.pub")).isPresent(), "serial in range");
        assertEquals(Optional.empty(), k.revocation(blob("c-1500-cert.pub")));
        assertTrue(k.revocation(blob("c-2002-cert.pub")).isPresent(), "listed serial");
        assertEquals(Optional.empty(), k.revocation(blob("c-2003-cert.pub")));
        // serials are per CA: the other CA's serial 500 is not revoked, and "gone" was revoked under ca only
        assertEquals(Optional.empty(), k.revocation(blob("c-other-cert.pub")));
        // a revoked plain key revokes its certificates; a revoked CA key every certificate it signed
        Krl byKey = Krl.parse(new Krl.Builder().revokeKey(blob("c.pub")).encode(0));
        assertTrue(byKey.revocation(blob("c-1500-cert.pub")).isPresent());
        Krl byCa = Krl.parse(new Krl.Builder().revokeKey(blob("other_ca.pub")).encode(0));
        assertEquals(Optional.of("CA key revoked explicitly"), byCa.revocation(blob("c-other-cert.pub")));
        assertEquals(Optional.empty(), byCa.revocation(blob("c-5-cert.pub")));
    }

    @Test
    void sshKeygenReadsWhatThisWrites() throws Exception {
        Krl.Builder b = new Krl.Builder().comment("made by pqssh").version(3)
                .revokeKey(blob("a.pub"))
                .revokeSha256(Krl.digest("SHA-256", blob("b.pub")))
                .revokeSerials(blob("ca.pub"), 1, 10)
                .revokeSerials(blob("ca.pub"), 2002, 2002)
                .revokeKeyId(new byte[0], "gone");
        Files.write(dir.resolve("ours.krl"), b.encode(1_700_000_000L));
        String listing = run(0, "-Q", "-l", "-f", "ours.krl");
        assertTrue(listing.contains("made by pqssh") && listing.contains("serial: 1-10")
                && listing.contains("serial: 2002") && listing.contains("id: gone"), listing);
        // ssh-keygen -Q: exit 1 and "REVOKED" for a revoked key
        for (String revoked : new String[] {"a.pub", "b.pub", "c-5-cert.pub", "c-2002-cert.pub", "c-other-cert.pub"}) {
            assertTrue(run(1, "-Q", "-f", "ours.krl", revoked).contains("REVOKED"), revoked);
        }
        for (String ok : new String[] {"c.pub", "c-500-cert.pub", "c-2003-cert.pub"}) {
            assertTrue(run(0, "-Q", "-f", "ours.krl", ok).contains("ok"), ok);
        }
        Krl back = Krl.parse(Files.readAllBytes(dir.resolve("ours.krl")));
        assertEquals(3, back.version());
        assertEquals("made by pqssh", back.comment());
    }

    /**
     * ssh-keygen -k writes a bitmap for a dense serial set (every odd serial to 2003, and the run 490-510); the same
     * KRL then signed (OpenSSH 9.2 verifies KRL signatures in ssh-keygen -Q and sshd): read alike by both, a bad
     * signature and a section after the signature refused by both.
     */
    @Test
    void denseBitmapsAndSignedKrls() throws Exception {
        StringBuilder spec = new StringBuilder("serial: 490-510\n");
        for (int s = 1; s <= 2003; s += 2) {
            spec.append("serial: ").append(s).append('\n');
        }
        Files.writeString(dir.resolve("dense"), spec);
        run(0, "-k", "-f", "dense.krl", "-s", "ca.pub", "dense");
        byte[] krl = Files.readAllBytes(dir.resolve("dense.krl"));
        // 1012 serials as a list would take 8 bytes each: only a bitmap (one bit per serial) is this small
        assertTrue(krl.length < 600, "ssh-keygen wrote " + krl.length + " bytes, no bitmap");
        String[] revoked = {"c-5-cert.pub", "c-500-cert.pub", "c-2003-cert.pub"};
        String[] ok = {"c-1500-cert.pub", "c-2002-cert.pub", "c-other-cert.pub"};
        assertRevocations(Krl.parse(krl), revoked, ok);

        io.pqssh.core.sig.SshSigningKey signer = io.pqssh.core.sig.SshSigningKey.generate(
                io.pqssh.core.sig.SignatureKeyType.ED25519, new java.security.SecureRandom());
        byte[] signedPart = new io.pqssh.core.wire.SshWriter().putRaw(krl).putByte(4)
                .putString(signer.publicKeyBlob()).toByteArray();
        byte[] signature = signer.sign(signedPart);
        byte[] signed = new io.pqssh.core.wire.SshWriter().putRaw(signedPart).putString(signature).toByteArray();
        Files.write(dir.resolve("signed.krl"), signed);
        assertRevocations(Krl.parse(signed), revoked, ok);
        for (String r : revoked) {
            assertTrue(run(1, "-Q", "-f", "signed.krl", r).contains("REVOKED"), r);
        }
        for (String k : ok) {
            assertTrue(run(0, "-Q", "-f", "signed.krl", k).contains("ok"), k);
        }

        byte[] bad = signed.clone();
        bad[bad.length - 1] ^= 1;
        Files.write(dir.resolve("bad.krl"), bad);
        assertTrue(assertThrows(MalformedMessageException.class, () -> Krl.parse(bad)).getMessage()
                .contains("KRL signature is incorrect"));
        run(255, "-Q", "-f", "bad.krl", "c.pub");
        byte[] after = new io.pqssh.core.wire.SshWriter().putRaw(signed).putByte(2).putString(new byte[0])
                .toByteArray();
        Files.write(dir.resolve("after.krl"), after);
        assertTrue(assertThrows(MalformedMessageException.class, () -> Krl.parse(after)).getMessage()
                .contains("non-signature section after signature"));
        run(255, "-Q", "-f", "after.krl", "c.pub");
    }

    private static void assertRevocations(Krl k, String[] revoked, String[] ok) throws Exception {
        for (String r : revoked) {
            assertTrue(k.revocation(blob(r)).isPresent(), r);
        }
        for (String o : ok) {
            assertEquals(Optional.empty(), k.revocation(blob(o)), o);
        }
    }

    @Test
    void malformedOrCriticalKrlsAreErrors() {
        byte[] good = new Krl.Builder().revokeKey(new byte[] {0, 0, 0, 1, 'x'}).encode(0);
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 1);
        assertThrows(MalformedMessageException.class, () -> Krl.parse(truncated));
        byte[] critical = new io.pqssh.core.wire.SshWriter().putRaw(new Krl.Builder().encode(0)).putByte(255)
                .putString(new io.pqssh.core.wire.SshWriter().putString("x@example.org").putBoolean(true)
                        .putString(new byte[0]).toByteArray()).toByteArray();
        MalformedMessageException e = assertThrows(MalformedMessageException.class, () -> Krl.parse(critical));
        assertTrue(e.getMessage().contains("critical extension"), e.getMessage());
        assertFalse(Krl.isKrl("ssh-ed25519 AAAA".getBytes(StandardCharsets.US_ASCII)));
    }

    static String run(int expect, String... args) throws Exception {
        String[] cmd = new String[args.length + 1];
        cmd[0] = SSH_KEYGEN.toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "ssh-keygen timed out");
        assertEquals(expect, p.exitValue(), "ssh-keygen " + String.join(" ", args) + ": " + out);
        return out;
    }
}
