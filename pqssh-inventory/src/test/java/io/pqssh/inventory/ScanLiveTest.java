package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.inventory.report.CsvReport;
import io.pqssh.inventory.report.FailOn;
import io.pqssh.inventory.report.HtmlReport;
import io.pqssh.inventory.report.JsonReport;
import io.pqssh.inventory.report.SarifReport;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Scanner;
import io.pqssh.inventory.scan.Target;
import io.pqssh.server.PqsshServer;

/**
 * Scans real loopback servers: pqssh, Debian sshd 9.2 with defaults (sntrup761) and restricted to curve25519, a
 * closed port, garbage, a 16 MiB packet length, a silent and a slow-loris server; then checks every report format.
 */
class ScanLiveTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    static PqsshServer pqssh;
    static KeyPair pqsshHostKey;
    static io.pqssh.core.sig.SshSigningKey compositeHostKey;
    static LoopbackServers.Sshd sshdDefault;
    static LoopbackServers.Sshd sshdClassical;
    static Path sshdHostKey;
    static FakeSshServers fakes;
    static List<Target> targets;
    static List<ScanResult> results;
    static long scanMillis;

    @BeforeAll
    static void scanAll() throws Exception {
        LoopbackServers.requireOpenSsh();
        pqsshHostKey = LoopbackServers.ed25519();
        compositeHostKey = io.pqssh.core.sig.SshSigningKey.generate(
                io.pqssh.core.sig.SignatureKeyType.MLDSA44_ED25519, new java.security.SecureRandom());
        pqssh = LoopbackServers.pqsshServer(pqsshHostKey, io.pqssh.mina.keys.PqKeyPairs.keyPair(compositeHostKey));
        sshdHostKey = LoopbackServers.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "-t", "ed25519");
        sshdDefault = LoopbackServers.Sshd.start(dir, sshdHostKey, "");
        sshdClassical = LoopbackServers.Sshd.start(dir, sshdHostKey, "KexAlgorithms curve25519-sha256");
        fakes = new FakeSshServers();
        targets = List.of(
                new Target("127.0.0.1", pqssh.port()),
                new Target("127.0.0.1", sshdDefault.port),
                new Target("127.0.0.1", sshdClassical.port),
                new Target("127.0.0.1", LoopbackServers.closedPort()),
                new Target("127.0.0.1", fakes.start(FakeSshServers.garbage())),
                new Target("127.0.0.1", fakes.start(FakeSshServers.hugePacket())),
                new Target("127.0.0.1", fakes.start(FakeSshServers.silent())),
                new Target("127.0.0.1", fakes.start(FakeSshServers.dribble())));
        // the real servers get time-outs a loaded 2-core machine meets (CI once saw a host key miss 2.5 s); the
        // fake slow ones get short ones, which their tests are about
        Scanner.Options real = new Scanner.Options();
        real.connectTimeout = Duration.ofSeconds(10);
        real.readTimeout = Duration.ofSeconds(10);
        real.retries = 1;
        real.hostKeys = true;
        Scanner.Options o = new Scanner.Options();
        o.connectTimeout = Duration.ofSeconds(1);
        o.readTimeout = Duration.ofMillis(1500);
        o.retries = 1;
        o.hostKeys = true;
        List<ScanResult> all = new java.util.ArrayList<>(new Scanner(real).scan(targets.subList(0, 4), null));
        long t0 = System.nanoTime();
        all.addAll(new Scanner(o).scan(targets.subList(4, targets.size()), null));
        scanMillis = (System.nanoTime() - t0) / 1_000_000;
        results = List.copyOf(all);
        System.out.println(io.pqssh.inventory.report.TableReport.scan(results));
    }

    @AfterAll
    static void stopAll() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {pqssh, sshdDefault, sshdClassical, fakes}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private static ScanResult r(int i) {
        assertEquals(targets.get(i), results.get(i).target());
        return results.get(i);
    }

    @Test
    void cbomOfTheLiveScanIsValidAndHasTheCompositeHostKey() throws Exception {
        JsonNode bom = JSON.readTree(CbomTest.scanCbom(results));
        java.util.Map<String, JsonNode> refs = CbomTest.byRef(bom);
        CbomTest.dependencies(bom, refs);
        JsonNode composite = refs.get("crypto/hostkey/ssh-mldsa44-ed25519@openssh.com");
        assertEquals("signature", composite.at("/cryptoProperties/algorithmProperties/primitive").asText());
        assertEquals(2, composite.at("/cryptoProperties/algorithmProperties/nistQuantumSecurityLevel").asInt());
        String fp = r(0).hostKeys().stream().filter(h -> h.algorithm().equals("ssh-mldsa44-ed25519@openssh.com"))
                .findFirst().orElseThrow().fingerprint();
        JsonNode key = refs.get("ssh-host-key/" + r(0).target() + "#1/" + fp);
        assertEquals("crypto/hostkey/ssh-mldsa44-ed25519@openssh.com",
                key.at("/cryptoProperties/relatedCryptoMaterialProperties/algorithmRef").asText(), key.toString());
        assertEquals("ssh://" + r(0).target(), key.at("/evidence/occurrences/0/location").asText());
    }

    @Test
    void everyTargetIsClassified() throws Exception {
        ScanResult pq = r(0);
        assertEquals("pq-ready", pq.category(), pq.toString());
        assertEquals("mlkem768x25519-sha256", pq.classification().openssh10Negotiates());
        assertEquals("mlkem768x25519-sha256", pq.classification().pqsshNegotiates());
        assertTrue(pq.classification().pqKexOffered().contains("mlkem768x25519-sha256"));
        assertEquals(io.pqssh.mina.PqsshVersion.softwareVersion(), pq.software());
        ByteArrayBuffer buf = new ByteArrayBuffer();
        buf.putRawPublicKey(pqsshHostKey.getPublic());
        byte[] blob = buf.getCompactData();
        ScanResult.HostKey hk = pq.hostKeys().stream().filter(h -> h.algorithm().equals("ssh-ed25519")).findFirst()
                .orElseThrow();
        assertEquals(KeyFingerprints.sha256(blob), hk.fingerprint(), pq.hostKeys().toString());
        assertEquals(List.of("ssh-mldsa44-ed25519@openssh.com"), pq.classification().pqHostKeysOffered());
        ScanResult.HostKey composite = pq.hostKeys().stream()
                .filter(h -> h.algorithm().equals("ssh-mldsa44-ed25519@openssh.com")).findFirst().orElseThrow();
        assertEquals(compositeHostKey.publicKey().fingerprintSha256(), composite.fingerprint(),
                pq.hostKeys().toString());
        assertEquals("ssh-mldsa44-ed25519@openssh.com", composite.keyType());

        ScanResult deb = r(1);
        assertEquals("pq-ready", deb.category(), deb.toString());
        assertTrue(deb.software().startsWith("OpenSSH_9.2"), deb.software());
        // Debian 12's 9.2p1 offers both sntrup761 names; the RFC 9941 name comes first in both client lists
        assertEquals("sntrup761x25519-sha512", deb.classification().openssh10Negotiates());
        assertEquals("sntrup761x25519-sha512", deb.classification().pqsshNegotiates());
        assertTrue(deb.classification().pqKexOffered().contains("sntrup761x25519-sha512@openssh.com"));
        assertFalse(deb.classification().pqKexOffered().contains("mlkem768x25519-sha256"));
        assertTrue(deb.classification().strictKex(), "Debian 12's sshd has the Terrapin fix");
        String fp = PublicKeyLine.parse(Files.readString(Path.of(sshdHostKey + ".pub"))).fingerprint();
        assertTrue(deb.hostKeys().stream().anyMatch(h -> fp.equals(h.fingerprint())), deb.hostKeys().toString());

        ScanResult classical = r(2);
        assertEquals("classical-only", classical.category(), classical.toString());
        assertTrue(classical.classification().classicalOnly());
        assertEquals(List.of(), classical.classification().pqKexOffered());
        assertEquals("curve25519-sha256", classical.classification().openssh10Negotiates());
        assertEquals("curve25519-sha256", classical.classification().pqsshNegotiates());

        assertEquals("unreachable: connection refused", r(3).error());
        assertEquals(ScanResult.Status.UNREACHABLE, r(3).status());
        assertEquals(1, r(3).attempts(), "refusals are not retried");
        assertEquals("not-ssh", r(4).category());
        assertTrue(r(4).error().startsWith("not ssh:"), r(4).error());
        assertTrue(r(5).error().contains("packet length 16777216 exceeds 35000"), r(5).error());
        for (int i : new int[] {6, 7}) {
            assertEquals("not-ssh", r(i).category(), r(i).toString());
            assertTrue(r(i).error().contains("within 1500 ms"), r(i).error());
            assertEquals(2, r(i).attempts(), "timeouts are retried once");
            assertTrue(r(i).millis() < 2 * 1500 + 1500, "slow target held the worker " + r(i).millis() + " ms");
        }
        // the slow targets were scanned side by side: the scan took less than their times one after another
        long serial = results.subList(4, results.size()).stream().mapToLong(ScanResult::millis).sum();
        assertTrue(scanMillis < serial, "scan took " + scanMillis + " ms, the slow targets " + serial + " ms in all");

        assertEquals(List.of("classical-kex: 1 target(s)", "unreachable: 5 target(s)"),
                FailOn.check(List.of(FailOn.CLASSICAL_KEX, FailOn.UNREACHABLE), results));
    }

    /** ZGrab2 records carrying the same server KEXINITs give the same classes as the live scan. */
    @Test
    void zgrab2RecordsOfTheSameServersGiveTheSameClasses() throws Exception {
        StringBuilder jsonl = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            ScanResult r = r(i);
            if (r.kexInit() == null) {
                jsonl.append("{\"ip\":\"127.0.0.1\",\"data\":{\"ssh\":{\"status\":\"connection-refused\",\"port\":")
                        .append(r.target().port()).append("}}}\n");
                continue;
            }
            jsonl.append(Zgrab2ReaderTest.kexRecord("127.0.0.1", r.target().port(), r.software(), r.kexInit().kex(),
                    r.kexInit().hostKey(), r.hostKeys().get(0).publicKey().split(" ")[1])).append('\n');
        }
        Path f = dir.resolve("live.jsonl");
        Files.writeString(f, jsonl);
        List<String> zbad = new java.util.ArrayList<>();
        List<ScanResult> z = io.pqssh.inventory.scan.Zgrab2Reader.readAll(f, 22, zbad);
        assertEquals(List.of(), zbad);
        for (int i = 0; i < 4; i++) {
            assertEquals(r(i).target(), z.get(i).target());
            assertEquals(r(i).category(), z.get(i).category());
            if (r(i).classification() != null) {
                assertEquals(r(i).classification().pqKexOffered(), z.get(i).classification().pqKexOffered());
                assertEquals(r(i).classification().openssh10Negotiates(),
                        z.get(i).classification().openssh10Negotiates());
                assertEquals(r(i).classification().strictKex(), z.get(i).classification().strictKex());
                assertEquals(r(i).hostKeys().get(0).fingerprint(), z.get(i).hostKeys().get(0).fingerprint());
            }
        }
    }

    @Test
    void jsonReportParsesBackWithTheDocumentedFields() throws Exception {
        JsonNode root = JSON.readTree(JsonReport.scan(results));
        assertEquals(List.of(), SchemaCheck.validate(root));
        ((com.fasterxml.jackson.databind.node.ObjectNode) root.get("targets").get(0)).put("category", "quantum");
        assertEquals(List.of("$.targets[0].category: \"quantum\" not in [\"pq-ready\",\"non-standard-pq\","
                + "\"classical-only\",\"unknown\",\"not-ssh\",\"unreachable\",\"scan-error\"]"), SchemaCheck.validate(root), "the schema check must be able to fail");
        root = JSON.readTree(JsonReport.scan(results));
        java.nio.file.Files.writeString(dir.resolve("scan.json"), root.toString());
        assertEquals(JsonReport.SCHEMA, root.get("schema").asText());
        assertEquals("scan", root.get("kind").asText());
        JsonNode s = root.get("summary");
        assertEquals(8, s.get("total").asInt());
        assertEquals(2, s.get("pq-ready").asInt());
        assertEquals(1, s.get("classical-only").asInt());
        assertEquals(4, s.get("not-ssh").asInt());
        assertEquals(1, s.get("unreachable").asInt());
        JsonNode t = root.get("targets");
        assertEquals(8, t.size());
        for (String f : List.of("target", "host", "port", "category", "status", "error", "banner", "software",
                "attempts", "millis", "hostKeys")) {
            for (JsonNode x : t) {
                assertTrue(x.has(f), f + " missing in " + x);
            }
        }
        JsonNode deb = t.get(1);
        assertEquals("pq-ready", deb.get("category").asText());
        assertTrue(deb.get("strictKex").asBoolean());
        assertEquals("sntrup761x25519-sha512", deb.get("openssh10Negotiates").asText());
        assertTrue(deb.get("hostKeys").size() >= 1);
        assertTrue(deb.get("hostKeys").get(0).get("fingerprint").asText().startsWith("SHA256:"));
        assertEquals("classical-only", t.get(2).get("category").asText());
        assertTrue(t.get(2).get("classicalOnly").asBoolean());
        assertEquals("unreachable", t.get(3).get("status").asText());
        assertEquals("not-ssh", t.get(5).get("status").asText());
        assertFalse(t.get(3).has("kexAlgorithms"));
    }

    @Test
    void sarifIsStructurallyValid210() throws Exception {
        JsonNode root = JSON.readTree(SarifReport.scan(results));
        assertEquals("2.1.0", root.get("version").asText());
        assertEquals(SarifReport.SCHEMA_URI, root.get("$schema").asText());
        JsonNode run = root.get("runs").get(0);
        JsonNode rules = run.get("tool").get("driver").get("rules");
        assertEquals("pqssh", run.get("tool").get("driver").get("name").asText());
        List<String> ruleIds = new ArrayList<>();
        rules.forEach(x -> ruleIds.add(x.get("id").asText()));
        Map<String, Long> byRule = new java.util.HashMap<>();
        for (JsonNode res : run.get("results")) {
            String id = res.get("ruleId").asText();
            assertEquals(id, ruleIds.get(res.get("ruleIndex").asInt()));
            assertTrue(Set.of("error", "warning", "note").contains(res.get("level").asText()));
            assertFalse(res.get("message").get("text").asText().isEmpty());
            String uri = res.get("locations").get(0).get("physicalLocation").get("artifactLocation").get("uri")
                    .asText();
            assertTrue(java.net.URI.create(uri).getScheme().equals("ssh"), uri);
            byRule.merge(id, 1L, Long::sum);
        }
        assertEquals(1L, byRule.get("classical-kex"));
        assertEquals(5L, byRule.get("unreachable"));
        long noStrict = results.stream().filter(x -> x.classification() != null && !x.classification().strictKex())
                .count();
        assertEquals(noStrict, byRule.getOrDefault("no-strict-kex", 0L), byRule.toString());
        assertEquals(run.get("results").size(), byRule.values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void csvAndHtmlCarryTheSameClasses() {
        String csv = CsvReport.scan(results);
        List<String> lines = csv.lines().toList();
        assertEquals(9, lines.size());
        assertEquals(String.join(",", CsvReport.SCAN_COLUMNS), lines.get(0));
        Map<String, Long> classes = lines.stream().skip(1).map(l -> l.split(",", -1)[3])
                .collect(Collectors.groupingBy(x -> x, Collectors.counting()));
        assertEquals(Map.of("pq-ready", 2L, "classical-only", 1L, "not-ssh", 4L, "unreachable", 1L), classes);

        String html = HtmlReport.scan(results);
        assertTrue(html.contains("<svg"));
        assertTrue(html.contains("data-label=\"pq-ready\" data-count=\"2\""), html);
        assertTrue(html.contains("data-label=\"classical-only\" data-count=\"1\""));
        assertTrue(html.contains("data-label=\"unreachable\" data-count=\"1\""));
        assertTrue(html.contains("pq-ready: 2 (25.0%)"));
        assertFalse(html.contains("<script"));
        assertFalse(html.replace("http://www.w3.org/2000/svg", "").contains("http"), "external resource");
    }

    @Test
    void fiveHundredTargetsFinishInBudgetWithRightCountsAndNoThreadLeft() throws Exception {
        try (FakeSshServers many = new FakeSshServers()) {
            List<Target> list = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                List<String> kex = i % 2 == 0 ? List.of("mlkem768x25519-sha256", "curve25519-sha256")
                        : List.of("curve25519-sha256", "diffie-hellman-group14-sha1");
                list.add(new Target("127.0.0.1", many.start(FakeSshServers.ssh("Fake_" + i, kex,
                        List.of("ssh-ed25519"), List.of("aes128-ctr")))));
            }
            int closed = LoopbackServers.closedPort();
            for (int i = 0; i < 480; i++) {
                list.add(new Target("127.0." + (1 + i / 240) + "." + (1 + i % 240), closed));
            }
            Set<Target> distinct = new HashSet<>(list);
            assertEquals(500, distinct.size());
            Scanner.Options o = new Scanner.Options();
            o.ratePerSecond = 0;
            o.connectTimeout = Duration.ofSeconds(1);
            o.readTimeout = Duration.ofSeconds(2);
            long t0 = System.nanoTime();
            List<ScanResult> res = new Scanner(o).scan(new ArrayList<>(distinct), null);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            Map<String, Long> c = res.stream().collect(Collectors.groupingBy(ScanResult::category,
                    Collectors.counting()));
            assertEquals(distinct.size(), res.size());
            assertEquals(10L, c.get("pq-ready"), c.toString());
            assertEquals(10L, c.get("classical-only"), c.toString());
            assertEquals(distinct.size() - 20L, c.get("unreachable"), c.toString());
            assertEquals(10, res.stream().filter(x -> x.classification() != null
                    && x.classification().weak().contains("kex:diffie-hellman-group14-sha1")).count());
            assertTrue(ms < 15_000, "500 loopback targets took " + ms + " ms");
            System.out.println("scanned " + res.size() + " loopback targets in " + ms + " ms");
            Thread.sleep(100);
            List<String> left = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .filter(n -> n.startsWith("pqssh-scan-")).toList();
            assertEquals(List.of(), left, "scanner threads left behind");
        }
    }

    @Test
    void rateLimitSpacesConnections() throws Exception {
        int closed = LoopbackServers.closedPort();
        List<Target> list = new ArrayList<>();
        for (int i = 1; i <= 11; i++) {
            list.add(new Target("127.0.2." + i, closed));
        }
        Scanner.Options o = new Scanner.Options();
        o.ratePerSecond = 20; // 11 connections: >= 10 intervals of 50 ms
        long t0 = System.nanoTime();
        List<ScanResult> res = new Scanner(o).scan(list, null);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms >= 480 && ms < 3000, "11 connections at 20/s took " + ms + " ms");
        assertTrue(res.stream().allMatch(x -> "unreachable: connection refused".equals(x.error())));
        assertNull(res.get(0).classification());
        assertNotNull(res.get(0).target());
    }
}
