package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code pqssh scan --zgrab2 FILE|-}: streamed reports in every format from real-shaped ZGrab2 records (plain, gzip,
 * stdin), a bad record reported with its line while the rest goes on, progress on stderr, and exit codes 0/1/2/3.
 */
class ScanStreamingCliTest {
    static final Path FIXTURE = Path.of("../pqssh-inventory/src/test/resources/io/pqssh/inventory/zgrab2/"
            + "real-records.jsonl");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void everyFormatIsWrittenFromOneStreamedPass() throws Exception {
        Path json = dir.resolve("r.json");
        Path jsonl = dir.resolve("r.jsonl");
        Path csv = dir.resolve("r.csv");
        Path sarif = dir.resolve("r.sarif");
        Path html = dir.resolve("r.html");
        CliHarness.Result r = CliHarness.pqssh("scan", "--zgrab2", FIXTURE.toString(), "--json", json.toString(),
                "--jsonl", jsonl.toString(), "--csv", csv.toString(), "--sarif", sarif.toString(), "--html",
                html.toString(), "--progress", "never");
        assertEquals(0, r.rc(), r.all());
        assertTrue(r.err().contains("skipped bad record " + FIXTURE + ":9: not a ZGrab2 record"), r.all());
        assertTrue(r.err().contains("1 bad record(s) skipped"), r.all());
        assertTrue(r.out().contains("13 targets: 5 pq-ready, 2 non-standard-pq, 2 classical-only, 1 unknown, 0 not-ssh,"
                + " 2 unreachable, 1 scan-error"), r.all());
        assertTrue(r.out().contains("by banner only"), r.all());

        JsonNode doc = JSON.readTree(json.toFile());
        assertEquals(13, doc.get("targets").size());
        assertEquals(13, doc.get("summary").get("total").asInt());
        assertEquals(1, doc.get("summary").get("bad-records").asInt());
        assertEquals(3, doc.get("summary").get("evidence-banner").asInt());
        assertEquals(9, doc.get("badRecords").get(0).get("line").asInt());
        List<String> lines = Files.readAllLines(jsonl);
        assertEquals(13, lines.size());
        for (String l : lines) {
            assertTrue(JSON.readTree(l).has("category"), l);
        }
        assertEquals(doc.get("targets").get(0), JSON.readTree(lines.get(0)));
        assertEquals(14, Files.readAllLines(csv).size());
        assertTrue(Files.readAllLines(csv).get(0).endsWith(",evidence,host_certificates"),
                Files.readAllLines(csv).get(0));
        JsonNode s = JSON.readTree(sarif.toFile());
        assertEquals(13, s.get("runs").get(0).get("properties").get("total").asInt());
        String page = Files.readString(html);
        assertTrue(page.contains("<svg") && page.endsWith("</html>\n") && page.contains("198.51.100.22:22"), page);
    }

    @Test
    void gzipAndStdinGiveTheSameReport() throws Exception {
        Path gz = dir.resolve("records.gz");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            Files.copy(FIXTURE, o);
        }
        CliHarness.Result plain = CliHarness.pqssh("scan", "--zgrab2", FIXTURE.toString(), "--jsonl", "-");
        CliHarness.Result gzip = CliHarness.pqssh("scan", "--zgrab2", gz.toString(), "--jsonl", "-");
        CliHarness.Result stdin = CliHarness.pqsshWithStdin(Files.readAllBytes(gz), "scan", "--zgrab2", "-",
                "--jsonl", "-");
        assertEquals(0, plain.rc(), plain.all());
        assertEquals(13, plain.out().lines().count(), plain.all());
        assertEquals(strip(plain.out()), strip(gzip.out()));
        assertEquals(strip(plain.out()), strip(stdin.out()));
        assertTrue(stdin.err().contains("<stdin>:9:"), stdin.all());
    }

    /** Everything but the per-run timestamp-free fields (JSON Lines has none; kept simple). */
    private static String strip(String s) {
        return s.strip();
    }

    @Test
    void progressGoesToStderrAndFailOnSetsExitOne() throws Exception {
        CliHarness.Result r = CliHarness.pqssh("scan", "--zgrab2", FIXTURE.toString(), "-q", "--progress", "always",
                "--fail-on", "classical-kex,unreachable");
        assertEquals(1, r.rc(), r.all());
        assertTrue(r.err().contains("records/s") && r.err().contains("13 records"), r.all());
        assertTrue(r.err().contains("--fail-on classical-kex: 4 target(s)"), r.all());
        assertTrue(r.err().contains("--fail-on unreachable: 3 target(s)"), r.all());
        assertEquals("", r.out());
    }

    @Test
    void inputAndUsageErrorsExitTwoAndReportFailuresExitThree() throws Exception {
        CliHarness.Result missing = CliHarness.pqssh("scan", "--zgrab2", dir.resolve("nope.jsonl").toString());
        assertEquals(2, missing.rc(), missing.all());
        assertTrue(missing.err().contains("nope.jsonl"), missing.all());

        Path garbage = dir.resolve("garbage.jsonl");
        Files.writeString(garbage, "hello\nworld\n");
        CliHarness.Result none = CliHarness.pqssh("scan", "--zgrab2", garbage.toString());
        assertEquals(2, none.rc(), none.all());
        assertTrue(none.err().contains("no ZGrab2 record could be read"), none.all());

        Path gz = dir.resolve("cut.gz");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            for (int i = 0; i < 50; i++) {
                Files.copy(FIXTURE, o);
            }
        }
        byte[] all = Files.readAllBytes(gz);
        Files.write(gz, java.util.Arrays.copyOf(all, all.length - 40));
        CliHarness.Result cut = CliHarness.pqssh("scan", "--zgrab2", gz.toString(), "-q");
        assertEquals(2, cut.rc(), cut.all());
        assertTrue(cut.err().contains("corrupt gzip input"), cut.all());

        CliHarness.Result progress = CliHarness.pqssh("scan", "--zgrab2", FIXTURE.toString(), "--progress", "often");
        assertEquals(2, progress.rc(), progress.all());

        CliHarness.Result both = CliHarness.pqssh("scan", "--zgrab2", FIXTURE.toString(), "127.0.0.1");
        assertEquals(2, both.rc(), both.all());

        CliHarness.Result unwritable = CliHarness.pqssh("scan", "--zgrab2", FIXTURE.toString(), "--json",
                dir.resolve("no/such/dir/r.json").toString());
        assertEquals(3, unwritable.rc(), unwritable.all());
        assertTrue(unwritable.err().contains("cannot write --json"), unwritable.all());
    }
}
