package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.wire.SshWriter;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Zgrab2Reader;

/** ZGrab2 ssh module output (fixture written from its zschema: data.ssh.result.server_key_exchange etc.). */
class Zgrab2ReaderTest {
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

    @Test
    void recordsClassifyLikeALiveScan() throws Exception {
        byte[] blob = new SshWriter().putString("ssh-ed25519").putString(new byte[32]).toByteArray();
        String raw = Base64.getEncoder().encodeToString(blob);
        Path f = dir.resolve("zgrab2.jsonl");
        Files.writeString(f, String.join("\n",
                kexRecord("192.0.2.1", 22, "OpenSSH_9.9", List.of("mlkem768x25519-sha256", "sntrup761x25519-sha512",
                        "curve25519-sha256", "ext-info-s", "kex-strict-s-v00@openssh.com"), List.of("ssh-ed25519"), raw),
                kexRecord("192.0.2.2", 2222, "OpenSSH_7.4", List.of("curve25519-sha256",
                        "diffie-hellman-group14-sha1"), List.of("ssh-rsa", "ssh-ed25519"), raw),
                "{\"ip\":\"192.0.2.3\",\"data\":{\"ssh\":{\"status\":\"connection-refused\",\"protocol\":\"ssh\","
                        + "\"error\":\"dial tcp 192.0.2.3:22: connect: connection refused\"}}}",
                "",
                "{\"ip\":\"192.0.2.4\",\"data\":{\"ssh\":{\"status\":\"io-timeout\",\"protocol\":\"ssh\"}}}",
                ""));
        List<ScanResult> r = Zgrab2Reader.read(f, 22);
        assertEquals(4, r.size());
        assertEquals("pq-ready", r.get(0).category());
        assertEquals("mlkem768x25519-sha256", r.get(0).classification().openssh10Negotiates());
        assertTrue(r.get(0).classification().strictKex());
        assertEquals(KeyFingerprints.sha256(blob), r.get(0).hostKeys().get(0).fingerprint());
        assertEquals("OpenSSH_9.9", r.get(0).software());
        assertEquals("classical-only", r.get(1).category());
        assertEquals(2222, r.get(1).target().port());
        assertEquals(List.of("kex:diffie-hellman-group14-sha1", "hostkey:ssh-rsa"), r.get(1).classification().weak());
        assertEquals("unreachable", r.get(2).category());
        assertTrue(r.get(2).error().contains("connection refused"), r.get(2).error());
        assertEquals("not-ssh", r.get(3).category());

        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, kexRecord("192.0.2.1", 22, "x", List.of("curve25519-sha256"), List.of("ssh-ed25519"),
                raw) + "\n{\"ip\":\"192.0.2.9\"}\n");
        IOException e = assertThrows(IOException.class, () -> Zgrab2Reader.read(bad, 22));
        assertTrue(e.getMessage().contains("bad.jsonl:2") && e.getMessage().contains("data.ssh"), e.getMessage());
    }
}
