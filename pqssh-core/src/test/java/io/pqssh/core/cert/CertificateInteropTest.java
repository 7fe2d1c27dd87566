package io.pqssh.core.cert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.sig.SshSigningKey;

/** Certificates made by the installed ssh-keygen (Debian's OpenSSH 9.2) parsed and verified; ours re-made byte for byte. */
class CertificateInteropTest {
    static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");

    @TempDir
    static Path dir;

    @BeforeAll
    static void keys() throws Exception {
        assertTrue(Files.isExecutable(SSH_KEYGEN), "this test needs /usr/bin/ssh-keygen (apt install openssh-client)");
        for (String[] k : new String[][] {{"ca", "ed25519"}, {"user", "ed25519"}, {"host", "ecdsa"},
            {"rsaca", "rsa"}, {"ecca", "ecdsa"}}) {
            run("-q", "-t", k[1], "-N", "", "-C", k[0] + "@test", "-f", dir.resolve(k[0]).toString());
        }
    }

    @Test
    void userCertificateFromSshKeygenParsesAndVerifies() throws Exception {
        run("-q", "-s", "ca", "-I", "alice's key", "-n", "alice,bob", "-V", "20250101:20270101", "-z", "42",
                "-O", "force-command=/bin/true", "-O", "source-address=127.0.0.1/32", "-O", "no-pty", "user.pub");
        String line = Files.readString(dir.resolve("user-cert.pub"));
        SshCertificate c = SshCertificate.parseLine(line);
        assertEquals("ssh-ed25519-cert-v01@openssh.com", c.certType());
        assertEquals("ssh-ed25519", c.keyType());
        assertEquals(32, c.nonce().length);
        assertEquals(42, c.serial());
        assertEquals(CertificateType.USER, c.type());
        assertEquals("alice's key", c.keyId());
        assertEquals(List.of("alice", "bob"), c.principals());
        assertEquals(1735689600L, c.validAfter());
        assertEquals(1798761600L, c.validBefore());
        assertEquals("/bin/true", c.criticalOption("force-command"));
        assertEquals("127.0.0.1/32", c.criticalOption("source-address"));
        assertEquals(List.of("permit-X11-forwarding", "permit-agent-forwarding", "permit-port-forwarding",
                "permit-user-rc"), List.copyOf(c.extensions().keySet()));
        assertArrayEquals(publicBlob("user"), c.certifiedKey());
        assertArrayEquals(publicBlob("ca"), c.signatureKey());
        assertEquals("ssh-ed25519", c.signatureAlgorithm());
        assertTrue(CertificateVerifier.signatureValid(c));
        assertEquals(line.strip(), c.toLine("user@test"));

        long now = 1760000000L;
        CertificateVerifier.check(c, CertificateType.USER, "bob", now, null);
        assertEquals("Certificate invalid: name is not a listed principal", assertThrows(CertificateException.class,
                () -> CertificateVerifier.check(c, CertificateType.USER, "mallory", now, null)).getMessage());
        assertEquals("Certificate invalid: expired", assertThrows(CertificateException.class,
                () -> CertificateVerifier.check(c, CertificateType.USER, "bob", 1798761600L, null)).getMessage());
        assertEquals("Certificate invalid: not yet valid", assertThrows(CertificateException.class,
                () -> CertificateVerifier.check(c, CertificateType.USER, "bob", 1735689599L, null)).getMessage());
        assertEquals("Certificate invalid: not a host certificate", assertThrows(CertificateException.class,
                () -> CertificateVerifier.check(c, CertificateType.HOST, "bob", now, null)).getMessage());
        assertThrows(CertificateException.class,
                () -> CertificateVerifier.check(c, CertificateType.USER, "bob", now, List.of("ssh-mldsa-65")));

        byte[] tampered = c.blob();
        tampered[tampered.length - 10] ^= 1;
        SshCertificate bad = SshCertificate.parse(tampered);
        assertFalse(CertificateVerifier.signatureValid(bad));
        assertEquals("Certificate signature is invalid", assertThrows(CertificateException.class,
                () -> CertificateVerifier.check(bad, CertificateType.USER, "bob", now, null)).getMessage());
    }

    /** Ed25519 is deterministic: with ssh-keygen's nonce, pqssh's certificate must be the same bytes. */
    @Test
    void pqsshMakesTheSameEd25519CertificateAsSshKeygen() throws Exception {
        run("-q", "-s", "ca", "-I", "same", "-n", "carol", "-V", "20260101:20260301", "-z", "7",
                "-O", "force-command=uptime", "-O", "no-port-forwarding", "-O", "extension:custom@example.com=v",
                "user.pub");
        SshCertificate theirs = SshCertificate.parseLine(Files.readString(dir.resolve("user-cert.pub")));
        SshSigningKey ca = (SshSigningKey) OpenSshKeyV1.readFile(dir.resolve("ca"), null).key();
        SshCertificate ours = CertificateSigner.forKey(publicBlob("user")).keyId("same").principals(List.of("carol"))
                .validity(1767225600L, 1772323200L).serial(7).criticalOption("force-command", "uptime")
                .removeExtension("permit-port-forwarding").extension("custom@example.com", "v")
                .sign(CaSigner.of(ca), theirs.nonce());
        assertEquals(theirs.toLine(""), ours.toLine(""));
    }

    @Test
    void classicalCasAndHostCertificates() throws Exception {
        run("-q", "-s", "rsaca", "-I", "web1", "-h", "-n", "web1.example.com,*.example.org", "host.pub");
        SshCertificate h = SshCertificate.parseLine(Files.readString(dir.resolve("host-cert.pub")));
        assertEquals("ecdsa-sha2-nistp256-cert-v01@openssh.com", h.certType());
        assertEquals("rsa-sha2-512", h.signatureAlgorithm());
        assertEquals(CertificateType.HOST, h.type());
        assertTrue(h.extensions().isEmpty());
        CertificateVerifier.check(h, CertificateType.HOST, "web1.example.com", 1760000000L, null);
        CertificateVerifier.check(h, CertificateType.HOST, "db.example.org", 1760000000L, null);
        assertThrows(CertificateException.class,
                () -> CertificateVerifier.check(h, CertificateType.HOST, "example.com", 1760000000L, null));

        run("-q", "-s", "ecca", "-I", "e", "-n", "dave", "user.pub");
        SshCertificate u = SshCertificate.parseLine(Files.readString(dir.resolve("user-cert.pub")));
        assertEquals("ecdsa-sha2-nistp256", u.signatureAlgorithm());
        CertificateVerifier.check(u, CertificateType.USER, "dave", 1760000000L, null);

        // pqssh signs with both classical CAs; ssh-keygen -L reads the results
        for (String caName : new String[] {"rsaca", "ecca"}) {
            io.pqssh.core.keys.openssh.PrivateSection s = OpenSshKeyV1.decrypt(
                    Files.readString(dir.resolve(caName)), null);
            byte[] fields;
            try (s) {
                io.pqssh.core.wire.SshReader r = s.fieldsReader();
                fields = r.getRaw(r.remaining());
            }
            CaSigner ca = ClassicalSignatures.signer(SshCertificate.peekName(publicBlob(caName)), publicBlob(caName),
                    fields);
            SshCertificate mine = CertificateSigner.forKey(publicBlob("user")).keyId("by " + caName)
                    .principals(List.of("erin")).sign(ca, new SecureRandom());
            CertificateVerifier.check(mine, CertificateType.USER, "erin", 1760000000L, null);
            Files.writeString(dir.resolve("mine-cert.pub"), mine.toLine("x") + "\n");
            String listing = run("-L", "-f", "mine-cert.pub");
            assertTrue(listing.contains("Key ID: \"by " + caName + "\""), listing);
        }
    }

    @Test
    void malformedCertificatesAreRefused() throws Exception {
        run("-q", "-s", "ca", "-I", "m", "user.pub");
        byte[] blob = SshCertificate.parseLine(Files.readString(dir.resolve("user-cert.pub"))).blob();
        for (int cut : new int[] {1, 50, blob.length / 2, blob.length - 1}) {
            assertThrows(io.pqssh.core.wire.MalformedMessageException.class,
                    () -> SshCertificate.parse(java.util.Arrays.copyOf(blob, blob.length - cut)));
        }
        byte[] longer = java.util.Arrays.copyOf(blob, blob.length + 1);
        assertThrows(io.pqssh.core.wire.MalformedMessageException.class, () -> SshCertificate.parse(longer));
    }

    static byte[] publicBlob(String name) throws Exception {
        String[] f = Files.readString(dir.resolve(name + ".pub")).strip().split(" ");
        return java.util.Base64.getDecoder().decode(f[1]);
    }

    static String run(String... args) throws Exception {
        String[] cmd = new String[args.length + 1];
        cmd[0] = SSH_KEYGEN.toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "ssh-keygen timed out");
        assertEquals(0, p.exitValue(), "ssh-keygen " + String.join(" ", args) + ": " + out);
        return out;
    }
}
