package io.pqssh.inventory.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.report.ScanCounters;
import io.pqssh.inventory.report.ScanSink;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Target;

/** The scan history on SQLite and on a real PostgreSQL server: runs, one row per target per run, diff, trend. */
class StoreTest {
    static final KexInit PQ = kex(List.of("mlkem768x25519-sha256", "curve25519-sha256", "kex-strict-s-v00@openssh.com"));
    static final KexInit CLASSICAL = kex(List.of("curve25519-sha256", "diffie-hellman-group14-sha1"));

    static KexInit kex(List<String> kex) {
        return new KexInit(kex, List.of("ssh-ed25519"), List.of("aes128-ctr"), List.of("aes128-ctr"),
                List.of("hmac-sha2-256-etm@openssh.com"), List.of("hmac-sha2-256-etm@openssh.com"), List.of("none"),
                List.of("none"), List.of(), List.of(), false);
    }

    static ScanResult ssh(String host, KexInit k, String... fingerprints) {
        List<ScanResult.HostKey> keys = new ArrayList<>();
        for (String fp : fingerprints) {
            keys.add(new ScanResult.HostKey("ssh-ed25519", "ssh-ed25519", fp, null, null, 256));
        }
        return new ScanResult(new Target(host, 22), ScanResult.Status.SSH, null, "SSH-2.0-OpenSSH_10.0", "OpenSSH_10.0",
                k, Classification.of(k), keys, 1, 1);
    }

    static ScanResult unreachable(String host) {
        return new ScanResult(new Target(host, 22), ScanResult.Status.UNREACHABLE, "unreachable: connection refused",
                null, null, null, null, List.of(), 1, 1);
    }

    static long scan(Store store, List<ScanResult> results) throws Exception {
        ScanCounters c = new ScanCounters();
        try (ScanSink s = StoreSinks.scan(store, "test")) {
            for (ScanResult r : results) {
                c.add(r);
                s.accept(r);
            }
            s.finish(c);
        }
        History h = new History(store);
        return h.runs().get(h.runs().size() - 1).id();
    }

    /** The same checks on either database. */
    static void exercise(Store store) throws Exception {
        long a = scan(store, List.of(ssh("10.0.0.1", CLASSICAL, "SHA256:a1"), ssh("10.0.0.2", PQ, "SHA256:b1"),
                ssh("10.0.0.3", PQ, "SHA256:c1"), ssh("10.0.0.5", PQ, "SHA256:e1"), unreachable("10.0.0.6")));
        long b = scan(store, List.of(ssh("10.0.0.1", PQ, "SHA256:a1"), ssh("10.0.0.2", CLASSICAL, "SHA256:b1"),
                ssh("10.0.0.4", PQ, "SHA256:d1"), ssh("10.0.0.5", PQ, "SHA256:e2"), unreachable("10.0.0.6")));
        StoreSinks.audit(store, List.of(new Finding("classical-key", "warning", "/home/a/.ssh/authorized_keys", 1,
                "quantum-vulnerable key", "ssh-ed25519", "ED25519", 256, null, false, null, "SHA256:a1", null, null,
                null, null)), "test");
        History h = new History(store);
        List<History.Run> runs = h.runs();
        assertEquals(3, runs.size());
        assertEquals(List.of("scan", "scan", "audit"), runs.stream().map(History.Run::kind).toList());
        assertEquals(5L, runs.get(0).total());
        assertTrue(runs.get(0).finished() != null && runs.get(0).summary().contains("pq-ready=3"),
                runs.get(0).toString());
        assertEquals(List.of(a, b), h.latestScans(2));

        try (Statement s = store.connection().createStatement()) {
            assertEquals(5, count(s, "SELECT COUNT(*) FROM targets WHERE run_id = " + a), "one row per target");
            // keys once each, however many targets and runs hold them (a1 in both scans and the audit)
            assertEquals(6, count(s, "SELECT COUNT(*) FROM keys"));
            assertEquals(8, count(s, "SELECT COUNT(*) FROM target_keys"));
            assertEquals(1, count(s, "SELECT COUNT(*) FROM findings WHERE fingerprint = 'SHA256:a1'"));
            // two distinct offers in ten SSH targets: two profiles, their flags once each
            assertEquals(2, count(s, "SELECT COUNT(*) FROM profiles"));
            assertEquals(1, count(s, "SELECT COUNT(*) FROM profile_flags f JOIN targets t ON t.profile_id ="
                    + " f.profile_id WHERE t.run_id = " + a + " AND t.target = '10.0.0.1:22'"
                    + " AND f.algorithm = 'kex:diffie-hellman-group14-sha1' AND f.severity = 'fail'"));
            assertEquals(0, count(s, "SELECT COUNT(*) FROM targets WHERE status = 'ssh' AND profile_id IS NULL"));
            assertEquals(2, count(s, "SELECT COUNT(*) FROM flyway_schema_history WHERE version IN ('1', '2')"
                    + " AND success" + (store.kind() == Store.Kind.SQLITE ? " = 1" : "")));
        }
        store.connection().commit();

        Map<String, History.Change> changes = new TreeMap<>();
        h.diff(a, b, c -> changes.put(c.target(), c));
        assertEquals(List.of("10.0.0.1:22", "10.0.0.2:22", "10.0.0.3:22", "10.0.0.4:22", "10.0.0.5:22"),
                List.copyOf(changes.keySet()), changes.toString());
        assertEquals(new History.Change("10.0.0.1:22", "became-pq-ready", "classical-only", "pq-ready", List.of(),
                List.of()), changes.get("10.0.0.1:22"));
        assertEquals("regressed", changes.get("10.0.0.2:22").change());
        assertEquals("disappeared", changes.get("10.0.0.3:22").change());
        assertNull(changes.get("10.0.0.3:22").after());
        assertEquals("appeared", changes.get("10.0.0.4:22").change());
        assertEquals(List.of("SHA256:d1"), changes.get("10.0.0.4:22").keysAdded());
        assertEquals(new History.Change("10.0.0.5:22", "keys-changed", "pq-ready", "pq-ready", List.of("SHA256:e2"),
                List.of("SHA256:e1")), changes.get("10.0.0.5:22"));

        List<History.Point> trend = h.trend();
        assertEquals(2, trend.size());
        assertEquals(0.6, trend.get(0).share("pq-ready"), 1e-9);
        assertEquals(0.2, trend.get(0).share("classical-only"), 1e-9);
        assertEquals(0.6, trend.get(1).share("pq-ready"), 1e-9);
        assertEquals(0.2, trend.get(1).share("unreachable"), 1e-9);
        assertEquals(0.0, trend.get(1).share("not-ssh"), 1e-9);

        Store.StoreException e = assertThrows(Store.StoreException.class, () -> h.diff(a, 99, c -> { }));
        assertTrue(e.getMessage().contains("no run 99"), e.getMessage());
        e = assertThrows(Store.StoreException.class, () -> h.diff(a, runs.get(2).id(), c -> { }));
        assertTrue(e.getMessage().contains("is an audit"), e.getMessage());
    }

    static long count(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void sqliteFileKeepsRunsAndAnswersDiffAndTrend(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("inventory.db");
        try (Store s = Store.open(db.toString())) {
            assertEquals(Store.Kind.SQLITE, s.kind());
            exercise(s);
        }
        assertTrue(Files.size(db) > 0);
        // reopening migrates nothing and keeps the history
        try (Store s = Store.open(db.toString())) {
            assertEquals(3, new History(s).runs().size());
        }
    }

    @Test
    void postgresqlServerKeepsRunsAndAnswersDiffAndTrend() throws Exception {
        try (PostgresServer pg = PostgresServer.start(); Store s = Store.open(pg.url())) {
            assertEquals(Store.Kind.POSTGRESQL, s.kind());
            exercise(s);
        }
    }

    @Test
    void badStoresAreClearErrors(@TempDir Path dir) {
        Store.StoreException e = assertThrows(Store.StoreException.class,
                () -> Store.open("jdbc:mysql://db/inventory"));
        assertTrue(e.getMessage().contains("give a file path (SQLite) or a jdbc:postgresql: URL"), e.getMessage());
        e = assertThrows(Store.StoreException.class, () -> Store.open(dir.resolve("no/such/dir/x.db").toString()));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
        e = assertThrows(Store.StoreException.class, () -> Store.open(dir.toString()));
        assertTrue(e.getMessage().contains("is a directory"), e.getMessage());
    }
}
