package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code pqssh audit --osquery FILE|-}: osquery results in, the same reports and exit codes as a local audit. */
class AuditOsqueryCliTest {
    static final Path DIR = Path.of("../pqssh-inventory/src/test/resources/io/pqssh/inventory/osquery");

    @TempDir
    Path dir;

    @Test
    void resultsLogGivesPerHostFindingsAndFailOn() throws Exception {
        Path json = dir.resolve("audit.json");
        CliHarness.Result r = CliHarness.pqssh("audit", "--osquery", DIR.resolve("osqueryd.results.log").toString(),
                "--json", json.toString(), "--fail-on", "classical-keys");
        assertEquals(1, r.rc(), r.all());
        assertTrue(r.err().contains("from 3 host(s), 1 unusable"), r.all());
        assertTrue(r.err().contains("osqueryd.results.log:8"), r.all());
        assertTrue(r.out().contains("osquery://web-01/home/alice/.ssh/authorized_keys:2"), r.all());
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertEquals("audit", doc.get("kind").asText());
        assertTrue(doc.get("summary").get("classical-key-beside-pq").asInt() >= 1, doc.get("summary").toString());
    }

    @Test
    void stdinAndFleetExport() throws Exception {
        CliHarness.Result r = CliHarness.pqsshWithStdin(Files.readAllBytes(DIR.resolve("fleet-live-query.json")),
                "audit", "--osquery", "-", "--csv", "-");
        assertEquals(0, r.rc(), r.all());
        assertTrue(r.out().contains("classical-key-beside-pq") && r.out().contains("osquery://ops-01/home/ops"),
                r.all());
    }

    @Test
    void unusableInputIsExitTwo() throws Exception {
        Path junk = dir.resolve("junk.json");
        Files.writeString(junk, "{\"hello\":\"world\"}\n");
        CliHarness.Result r = CliHarness.pqssh("audit", "--osquery", junk.toString());
        assertEquals(2, r.rc(), r.all());
        CliHarness.Result missing = CliHarness.pqssh("audit", "--osquery", dir.resolve("none.json").toString());
        assertEquals(2, missing.rc(), missing.all());
        CliHarness.Result both = CliHarness.pqssh("audit", "--osquery", junk.toString(), dir.toString());
        assertEquals(2, both.rc(), both.all());
    }
}
