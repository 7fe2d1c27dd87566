package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Zgrab2Reader;

/** ZGrab2 output as zgrab2 writes it (fixture: src/test/resources/io/pqssh/inventory/zgrab2/README.md). */
class Zgrab2ReaderTest {
    public static final String FIXTURE = "/io/pqssh/inventory/zgrab2/real-records.jsonl";

    @TempDir
    Path dir;

    static String kexRecord(String ip, int port, String software, List<String> kex, List<String> hk, String rawKey) {
        String arr = "[" + String.join(",", kex.stream().map(s -> "\"" + s + "\"").toList()) + "]";
        String hka = "[" + String.join(",", hk.stream().map(s -> "\"" + s + "\"").toList()) + "]";
        String ciphers = "[\"aes128-ctr\",\"aes256-gcm@openssh.com\"]";
        String macs = "[\"hmac-sha2-256-etm@openssh.com\"]";
        return "{\"ip\":\"" + ip + "\",\"data\":{\"ssh\":{\"status\":\"success\",\"protocol\":\"ssh\",\"port\":" + port
                + ",\"result\":{\"server_id\":{\"raw\":\"SSH-2.0-" + software + "\",\"version\":\"2.0\","
                + "\"software\":\"" + software + "\"},\"server_key_exchange\":{\"cookie\":\"AAAAAAAAAAAAAAAAAAAAAA==\","
                + "\"kex_algorithms\":" + arr + ",\"host_key_algorithms\":" + hka + ",\"client_to_server_ciphers\":"
                + ciphers + ",\"server_to_client_ciphers\":" + ciphers + ",\"client_to_server_macs\":" + macs
                + ",\"server_to_client_macs\":" + macs + ",\"client_to_server_compression\":[\"none\"],"
                + "\"server_to_client_compression\":[\"none\"],\"first_kex_follows\":false,\"reserved\":0},"
                + "\"algorithm_selection\":{\"dh_kex_algorithm\":\"" + kex.get(0) + "\"},"
                + "\"key_exchange\":{\"server_host_key\":{\"raw\":\"" + rawKey + "\",\"algorithm\":\"ssh-ed25519\"}}}"
                + ",\"timestamp\":\"2026-05-01T10:00:00Z\"}}}";
    }

    public record Read(List<ScanResult> results, List<String> bad) {
        ScanResult at(String target) {
            return results.stream().filter(r -> r.target().toString().equals(target)).findFirst()
                    .orElseThrow(() -> new AssertionError("no result for " + target + " in " + results));
        }
    }

    public static Read read(InputStream in) throws IOException {
        List<ScanResult> out = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        Zgrab2Reader.read(in, "fixture", 22, new Zgrab2Reader.Handler() {
            @Override
            public void result(ScanResult r) {
                out.add(r);
            }

            @Override
            public void badRecord(long line, String error) {
                bad.add(line + ": " + error);
            }
        });
        return new Read(out, bad);
    }

    static byte[] fixture() throws IOException {
        try (InputStream in = Zgrab2ReaderTest.class.getResourceAsStream(FIXTURE)) {
            assertNotNull(in, FIXTURE);
            return in.readAllBytes();
        }
    }

    @Test
    void realRecordsAreAllClassifiedAndTheTruncatedOneIsCountedWithItsLine() throws Exception {
        Read r = read(new ByteArrayInputStream(fixture()));
        assertEquals(1, r.bad().size(), r.bad().toString());
        assertTrue(r.bad().get(0).startsWith("9: not a ZGrab2 record"), r.bad().toString());
        // 12 good lines, the multi-module line gives two ssh results: 13
        assertEquals(13, r.results().size(), r.results().toString());

        ScanResult ubuntu = r.at("198.51.100.10:22");
        assertEquals("pq-ready", ubuntu.category());
        assertEquals(ScanResult.Evidence.KEXINIT, ubuntu.evidence());
        assertEquals("sntrup761x25519-sha512@openssh.com", ubuntu.classification().openssh10Negotiates());
        assertEquals("OpenSSH_9.6p1", ubuntu.software());
        assertEquals("SHA256:12Efq+AHUo6HuYYgdCztjS38mJDeuVznH9wHfe35Ci0", ubuntu.hostKeys().get(0).fingerprint());

        ScanResult centos = r.at("198.51.100.11:22");
        assertEquals("classical-only", centos.category());
        assertTrue(centos.classification().weak().containsAll(List.of("kex:diffie-hellman-group14-sha1",
                "kex:diffie-hellman-group1-sha1", "hostkey:ssh-rsa", "cipher:aes128-cbc", "cipher:3des-cbc",
                "mac:hmac-sha1", "mac:umac-64@openssh.com")), centos.classification().weak().toString());
        assertEquals("SHA256:LVRGzE2Nj1hlpv/gdN3NqiqMluAvFVhqFU8jvmMRsdI", centos.hostKeys().get(0).fingerprint());

        ScanResult dns = r.at("gone.example.invalid:22");
        assertEquals("unreachable", dns.category());
        assertTrue(dns.error().startsWith("unreachable: unknown host"), dns.error());

        ScanResult panic = r.at("198.51.100.13:22");
        assertEquals("scan-error", panic.category());
        assertTrue(panic.error().contains("panic: runtime error"), panic.error());

        ScanResult ssh22 = r.at("198.51.100.14:22");
        assertEquals("pq-ready", ssh22.category());
        assertEquals("mlkem768x25519-sha256", ssh22.classification().openssh10Negotiates());
        ScanResult ssh2222 = r.at("198.51.100.14:2222");
        assertEquals("pq-ready", ssh2222.category());
        assertEquals(ScanResult.Evidence.ERROR_TEXT, ssh2222.evidence());
        assertEquals(r.results().stream().filter(x -> x.target().host().equals("198.51.100.14")).count(), 2,
                "the http module's response is not an ssh result");

        ScanResult pqOnly = r.at("198.51.100.15:22");
        assertEquals("pq-ready", pqOnly.category(), "PQ-only servers are not not-ssh");
        assertEquals(ScanResult.Evidence.ERROR_TEXT, pqOnly.evidence());
        assertEquals(List.of("mlkem768x25519-sha256", "sntrup761x25519-sha512"),
                pqOnly.classification().pqKexOffered());
        assertTrue(pqOnly.classification().strictKex());
        assertTrue(pqOnly.error().contains("zgrab2 could not complete"), pqOnly.error());

        assertEquals("pq-ready", r.at("198.51.100.16:22").category());
        assertEquals(ScanResult.Evidence.BANNER, r.at("198.51.100.16:22").evidence());
        assertEquals("OpenSSH_9.2p1", r.at("198.51.100.16:22").software());
        assertNull(r.at("198.51.100.16:22").classification());
        assertEquals("classical-only", r.at("198.51.100.17:22").category());
        assertEquals(ScanResult.Evidence.BANNER, r.at("198.51.100.17:22").evidence());
        assertEquals("unknown", r.at("198.51.100.18:22").category(), "Dropbear's banner says nothing of its KEX");

        ScanResult oqs = r.at("198.51.100.19:22");
        assertEquals("non-standard-pq", oqs.category());
        assertEquals("curve25519-sha256", oqs.classification().openssh10Negotiates());
        assertEquals(2, oqs.classification().pqKexOffered().size());
        assertTrue(oqs.classification().weak().contains("kex:sntrup4591761x25519-sha512@tinyssh.org"));

        assertEquals("unreachable", r.at("198.51.100.21:22").category());
        ScanResult oqsOnly = r.at("198.51.100.22:22");
        assertEquals("non-standard-pq", oqsOnly.category());
        assertEquals(ScanResult.Evidence.ERROR_TEXT, oqsOnly.evidence());
    }

    @Test
    void gzipInputIsReadDirectlyAndGivesTheSameResults() throws Exception {
        Path gz = dir.resolve("records.json.gz");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            o.write(fixture());
        }
        Read plain = read(new ByteArrayInputStream(fixture()));
        Read viaGzip;
        try (InputStream in = Zgrab2Reader.open(gz.toString())) {
            viaGzip = read(in);
        }
        assertEquals(plain.results().stream().map(x -> x.target() + "=" + x.category()).toList(),
                viaGzip.results().stream().map(x -> x.target() + "=" + x.category()).toList());
        assertEquals(plain.bad(), viaGzip.bad());

        Path corrupt = dir.resolve("corrupt.gz");
        byte[] all = Files.readAllBytes(gz);
        Files.write(corrupt, java.util.Arrays.copyOf(all, all.length / 2));
        IOException e = assertThrows(IOException.class, () -> {
            try (InputStream in = Zgrab2Reader.open(corrupt.toString())) {
                read(in);
            }
        });
        assertTrue(e instanceof Zgrab2Reader.InputException, e.toString());
    }

    @Test
    void badRecordsAreSkippedWithTheirLineAndTheRestGoesOn() throws Exception {
        byte[] blob = new io.pqssh.core.wire.SshWriter().putString("ssh-ed25519").putString(new byte[32]).toByteArray();
        String raw = Base64.getEncoder().encodeToString(blob);
        String good = kexRecord("192.0.2.1", 22, "OpenSSH_9.9", List.of("mlkem768x25519-sha256", "curve25519-sha256"),
                List.of("ssh-ed25519"), raw);
        String input = String.join("\n", good, "{\"ip\":\"192.0.2.9\"}", "not json at all", "[1,2]",
                "{\"ip\":\"192.0.2.10\",\"data\":{\"http\":{\"status\":\"success\",\"protocol\":\"http\"}}}",
                kexRecord("192.0.2.2", 22, "x", List.of("curve25519-sha256"), List.of("ssh-ed25519"), "!!notbase64"),
                "x".repeat(Zgrab2Reader.MAX_LINE + 10), "", good.replace("192.0.2.1", "192.0.2.3")) + "\n";
        Read r = read(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
        assertEquals(List.of(2L, 3L, 4L, 5L, 7L), r.bad().stream().map(s -> Long.parseLong(s.split(":")[0])).toList(),
                r.bad().toString());
        assertTrue(r.bad().get(0).contains("no \"data\" and no \"error\""), r.bad().get(0));
        assertTrue(r.bad().get(3).contains("no ssh response") && r.bad().get(3).contains("http"), r.bad().get(3));
        assertTrue(r.bad().get(4).contains("longer than"), r.bad().get(4));
        assertEquals(List.of("192.0.2.1:22", "192.0.2.2:22", "192.0.2.3:22"),
                r.results().stream().map(x -> x.target().toString()).toList());
        // an unreadable host key loses only the key, not the record
        assertEquals("classical-only", r.results().get(1).category());
        assertTrue(r.results().get(1).hostKeys().get(0).error().contains("unreadable"));
        assertEquals(KeyFingerprints.sha256(blob), r.results().get(0).hostKeys().get(0).fingerprint());
    }
}
