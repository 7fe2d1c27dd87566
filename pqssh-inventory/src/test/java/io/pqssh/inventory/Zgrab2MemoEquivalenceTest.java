package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.pqssh.core.cert.CaSigner;
import io.pqssh.core.cert.CertificateSigner;
import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.SshWriter;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Zgrab2Reader;

/**
 * The reader keeps what an input repeats (short strings, each host key blob's decoded key) across records; the
 * results must be exactly those of reading every record on its own, and each host key the one {@code HostKey}'s own
 * constructor makes from the public key line (its size read from the key).
 */
class Zgrab2MemoEquivalenceTest {
    private static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    private static byte[] rsa(int bits, Random rnd) {
        return new SshWriter(512).putString("ssh-rsa").putString(BigInteger.valueOf(65537).toByteArray())
                .putString(new BigInteger(bits, rnd).setBit(bits - 1).toByteArray()).toByteArray();
    }

    @Test
    void readingWithTheMemoGivesTheResultsOfReadingEachRecordAfresh() throws Exception {
        Random rnd = new Random(24);
        byte[] ed = new byte[32];
        rnd.nextBytes(ed);
        String edKey = b64(new SshWriter(64).putString("ssh-ed25519").putString(ed).toByteArray());
        String ecKey = b64(new SshWriter(128).putString("ecdsa-sha2-nistp256").putString("nistp256")
                .putString(new byte[65]).toByteArray());
        String rsa2048 = b64(rsa(2048, rnd));
        String rsa1024 = b64(rsa(1024, rnd));
        SshCertificate cert = CertificateSigner.forKey(SshSigningKey.generate(SignatureKeyType.ED25519,
                new SecureRandom()).publicKeyBlob()).type(CertificateType.HOST).keyId("h").principals(List.of("h"))
                .sign(CaSigner.of(SshSigningKey.generate(SignatureKeyType.ED25519, new SecureRandom())),
                        new SecureRandom());
        String certKey = b64(cert.blob());
        String truncated = b64(new SshWriter(32).putString("ssh-rsa").putUint32(999).toByteArray());
        String[][] keys = {{edKey, "ssh-ed25519"}, {edKey, "ssh-ed25519-cert-v01@openssh.com"}, {ecKey,
                "ecdsa-sha2-nistp256"}, {rsa2048, "rsa-sha2-512"}, {rsa2048, "ssh-rsa"}, {rsa1024, "ssh-rsa"},
                {truncated, "ssh-rsa"}, {certKey, cert.certType()}, {"not base64!", "ssh-ed25519"}, {b64(new byte[3]), "ssh-ed25519"}};
        List<List<String>> kexes = List.of(List.of("mlkem768x25519-sha256", "curve25519-sha256"),
                List.of("curve25519-sha256", "diffie-hellman-group14-sha1"));
        StringBuilder in = new StringBuilder();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            String[] k = keys[rnd.nextInt(keys.length)];
            String line = Zgrab2ReaderTest.kexRecord("10.0." + (i / 256) + "." + (i % 256), 22,
                    i % 3 == 0 ? "OpenSSH_9.9" : "OpenSSH_7.4", kexes.get(i % 2), List.of("ssh-ed25519", "ssh-rsa"),
                    k[0]).replace("\"algorithm\":\"ssh-ed25519\"", "\"algorithm\":\"" + k[1] + "\"");
            lines.add(line);
            in.append(line).append('\n');
        }
        for (String line : new String(Zgrab2ReaderTest.fixture(), StandardCharsets.UTF_8).split("\n")) {
            lines.add(line);
            in.append(line).append('\n');
        }
        List<ScanResult> afresh = new ArrayList<>();
        for (String line : lines) {
            try {
                afresh.addAll(Zgrab2Reader.records(line, 22));
            } catch (java.io.IOException | IllegalArgumentException e) {
                // a bad record: read() skips it too
            }
        }
        Zgrab2ReaderTest.Read read = Zgrab2ReaderTest.read(
                new ByteArrayInputStream(in.toString().getBytes(StandardCharsets.UTF_8)));
        assertEquals(afresh, read.results());
        int keysSeen = 0;
        for (ScanResult r : read.results()) {
            for (ScanResult.HostKey h : r.hostKeys()) {
                keysSeen++;
                assertEquals(new ScanResult.HostKey(h.algorithm(), h.keyType(), h.fingerprint(), h.publicKey(),
                        h.error()), h, "size as HostKey reads it");
                if (h.error() == null) {
                    byte[] blob = Base64.getDecoder().decode(h.publicKey().substring(h.publicKey().indexOf(' ') + 1));
                    assertEquals(KeyFingerprints.sha256(blob), h.fingerprint());
                }
            }
        }
        assertTrue(keysSeen >= 400, "host keys read: " + keysSeen);
        assertTrue(read.results().stream().anyMatch(r -> !r.hostKeys().isEmpty() && r.hostKeys().get(0).bits() == 2048));
        assertTrue(read.results().stream().anyMatch(r -> !r.hostKeys().isEmpty() && r.hostKeys().get(0).error() != null));
        assertTrue(read.results().stream().anyMatch(r -> !r.hostKeys().isEmpty()
                && r.hostKeys().get(0).certificate() != null), "a host certificate is read as one");
        // equal KEXINITs are one object: the sinks' KexCache look-ups find it by identity
        assertSame(read.results().get(0).kexInit(), read.results().get(2).kexInit());
    }
}
