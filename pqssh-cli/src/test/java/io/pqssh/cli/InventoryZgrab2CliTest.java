package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code pqssh inventory --zgrab2 FILE} (the spelling of {@code scan --zgrab2}) classifies ZGrab2 output. */
class InventoryZgrab2CliTest {
    private static String record(String ip, String software, String kexJson) {
        return "{\"ip\":\"" + ip + "\",\"data\":{\"ssh\":{\"status\":\"success\",\"protocol\":\"ssh\",\"port\":22,"
                + "\"result\":{\"server_id\":{\"raw\":\"SSH-2.0-" + software + "\",\"version\":\"2.0\",\"software\":\""
                + software + "\"},\"server_key_exchange\":{\"cookie\":\"AAAAAAAAAAAAAAAAAAAAAA==\","
                + "\"kex_algorithms\":" + kexJson + ",\"host_key_algorithms\":[\"ssh-ed25519\"],"
                + "\"client_to_server_ciphers\":[\"aes128-ctr\"],\"server_to_client_ciphers\":[\"aes128-ctr\"],"
                + "\"client_to_server_macs\":[\"hmac-sha2-256\"],\"server_to_client_macs\":[\"hmac-sha2-256\"],"
                + "\"client_to_server_compression\":[\"none\"],\"server_to_client_compression\":[\"none\"],"
                + "\"first_kex_follows\":false,\"reserved\":0}}},\"timestamp\":\"2026-05-01T10:00:00Z\"}}";
    }

    @Test
    void inventoryAliasReadsZgrab2AndGatesOnClassicalKex(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("zgrab2.jsonl");
        Files.writeString(f, record("192.0.2.10", "OpenSSH_10.0", "[\"mlkem768x25519-sha256\",\"curve25519-sha256\"]")
                + "\n" + record("192.0.2.11", "OpenSSH_8.4", "[\"curve25519-sha256\",\"ecdh-sha2-nistp256\"]") + "\n");
        Path json = dir.resolve("out.json");
        PrintStream oldOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            rc = Main.run("inventory", "--zgrab2", f.toString(), "--json", json.toString(), "--fail-on",
                    "classical-kex");
        } finally {
            System.setOut(oldOut);
        }
        assertEquals(1, rc, out.toString(StandardCharsets.UTF_8));
        JsonNode targets = new ObjectMapper().readTree(json.toFile()).get("targets");
        assertEquals(2, targets.size());
        String all = targets.toString();
        assertTrue(all.contains("pq-ready") && all.contains("classical-only"), all);
    }
}
