package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.inventory.store.PostgresServer;

/** {@code scan/audit --store}, {@code pqssh inventory runs|diff|trend}, and the HTML trend chart. */
class InventoryStoreCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    static String record(String ip, String kexJson) {
        return "{\"ip\":\"" + ip + "\",\"data\":{\"ssh\":{\"status\":\"success\",\"protocol\":\"ssh\",\"port\":22,"
                + "\"result\":{\"server_id\":{\"raw\":\"SSH-2.0-OpenSSH_9.9\",\"version\":\"2.0\",\"software\":"
                + "\"OpenSSH_9.9\"},\"server_key_exchange\":{\"cookie\":\"AAAAAAAAAAAAAAAAAAAAAA==\","
                + "\"kex_algorithms\":" + kexJson + ",\"host_key_algorithms\":[\"ssh-ed25519\"],"
                + "\"client_to_server_ciphers\":[\"aes128-ctr\"],\"server_to_client_ciphers\":[\"aes128-ctr\"],"
                + "\"client_to_server_macs\":[\"hmac-sha2-256\"],\"server_to_client_macs\":[\"hmac-sha2-256\"],"
                + "\"client_to_server_compression\":[\"none\"],\"server_to_client_compression\":[\"none\"],"
                + "\"first_kex_follows\":false,\"reserved\":0}}},\"timestamp\":\"2026-05-01T10:00:00Z\"}}";
    }

    static final String PQ = "[\"mlkem768x25519-sha256\",\"curve25519-sha256\"]";
    static final String CLASSICAL = "[\"curve25519-sha256\"]";

    Path zgrab(String name, String... lines) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, String.join("\n", lines) + "\n");
        return f;
    }

    /** Two scans and an audit into {@code store}; checks runs, diff (table and JSON), trend and the HTML chart. */
    void historyOf(String store) throws Exception {
        Path one = zgrab("one.jsonl", record("192.0.2.1", PQ), record("192.0.2.2", CLASSICAL),
                record("192.0.2.3", PQ));
        Path two = zgrab("two.jsonl", record("192.0.2.1", CLASSICAL), record("192.0.2.2", PQ),
                record("192.0.2.4", PQ));
        CliHarness.Result r = CliHarness.pqssh("scan", "--zgrab2", one.toString(), "--store", store, "-q");
        assertEquals(0, r.rc(), r.all());
        Path html = dir.resolve("two.html");
        r = CliHarness.pqssh("scan", "--zgrab2", two.toString(), "--store", store, "--html", html.toString(), "-q");
        assertEquals(0, r.rc(), r.all());
        Path ssh = Files.createDirectories(dir.resolve("empty/.ssh"));
        r = CliHarness.pqssh("audit", ssh.toString(), "--store", store, "-q");
        assertEquals(0, r.rc(), r.all());

        r = CliHarness.pqssh("inventory", "runs", "--store", store);
        assertEquals(0, r.rc(), r.all());
        assertTrue(r.out().startsWith("RUN"), r.out());
        assertEquals(4, r.out().lines().count(), r.out());
        assertTrue(r.out().contains("zgrab2 " + one) && r.out().contains("audit"), r.out());

        r = CliHarness.pqssh("inventory", "diff", "--store", store, "--json");
        assertEquals(0, r.rc(), r.all());
        Map<String, JsonNode> changes = new TreeMap<>();
        for (String line : r.out().lines().filter(l -> !l.isBlank()).toList()) {
            JsonNode c = JSON.readTree(line);
            changes.put(c.get("target").asText(), c);
        }
        assertEquals(List.of("192.0.2.1:22", "192.0.2.2:22", "192.0.2.3:22", "192.0.2.4:22"),
                List.copyOf(changes.keySet()), r.out());
        assertEquals("regressed", changes.get("192.0.2.1:22").get("change").asText());
        assertEquals("pq-ready", changes.get("192.0.2.1:22").get("before").asText());
        assertEquals("classical-only", changes.get("192.0.2.1:22").get("after").asText());
        assertEquals("became-pq-ready", changes.get("192.0.2.2:22").get("change").asText());
        assertEquals("disappeared", changes.get("192.0.2.3:22").get("change").asText());
        assertTrue(changes.get("192.0.2.3:22").get("after").isNull());
        assertEquals("appeared", changes.get("192.0.2.4:22").get("change").asText());

        r = CliHarness.pqssh("inventory", "diff", "--store", store);
        assertEquals(0, r.rc(), r.all());
        assertTrue(r.out().contains("regressed  192.0.2.1:22  pq-ready  classical-only"), r.out());
        assertTrue(r.out().contains("became-pq-ready 1, regressed 1, appeared 1, disappeared 1"), r.out());

        r = CliHarness.pqssh("inventory", "trend", "--store", store, "--json");
        assertEquals(0, r.rc(), r.all());
        List<JsonNode> trend = r.out().lines().filter(l -> !l.isBlank()).map(l -> {
            try {
                return JSON.readTree(l);
            } catch (Exception e) {
                throw new AssertionError(l, e);
            }
        }).toList();
        assertEquals(2, trend.size(), r.out());
        assertEquals(0.6667, trend.get(0).at("/shares/pq-ready").asDouble(), 1e-4);
        assertEquals(0.3333, trend.get(0).at("/shares/classical-only").asDouble(), 1e-4);
        assertEquals(3, trend.get(1).get("total").asInt());

        String page = Files.readString(html);
        assertTrue(page.contains("<h2>Trend</h2>"), "trend chart missing");
        long columns = page.lines().filter(l -> l.contains("class=\"trend\"")).map(l -> l.replaceAll(
                ".*data-run=\"([^\"]*)\".*", "$1")).distinct().count();
        assertEquals(2, columns, "one trend column per stored scan");
    }

    @Test
    void sqliteStoreKeepsTheHistory() throws Exception {
        historyOf(dir.resolve("inventory.db").toString());
    }

    @Test
    void postgresqlStoreKeepsTheHistory() throws Exception {
        try (PostgresServer pg = PostgresServer.start()) {
            historyOf(pg.url());
        }
    }

    @Test
    void storeErrorsAreClear() throws Exception {
        CliHarness.Result r = CliHarness.pqssh("inventory", "runs", "--store", dir.resolve("typo.db").toString());
        assertEquals(2, r.rc(), r.all());
        assertTrue(r.err().contains("no store " + dir.resolve("typo.db")), r.err());
        assertTrue(!Files.exists(dir.resolve("typo.db")), "reading must not create a database");
        r = CliHarness.pqssh("scan", "--zgrab2", zgrab("z.jsonl", record("192.0.2.9", PQ)).toString(), "--store",
                "jdbc:mysql://x/y", "-q");
        assertEquals(2, r.rc(), r.all());
        assertTrue(r.err().contains("give a file path (SQLite) or a jdbc:postgresql: URL"), r.err());
        r = CliHarness.pqssh("inventory", "diff", "--store", dir.resolve("one-run.db").toString());
        assertEquals(2, r.rc(), r.all());
        // inventory with anything else is still scan
        r = CliHarness.pqssh("inventory", "--zgrab2", dir.resolve("z.jsonl").toString(), "--store",
                dir.resolve("one-run.db").toString(), "-q");
        assertEquals(0, r.rc(), r.all());
        r = CliHarness.pqssh("inventory", "diff", "--store", dir.resolve("one-run.db").toString());
        assertEquals(2, r.rc(), r.all());
        assertTrue(r.err().contains("diff needs two scan runs; the store has 1"), r.err());
    }
}
