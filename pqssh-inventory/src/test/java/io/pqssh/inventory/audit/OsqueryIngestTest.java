package io.pqssh.inventory.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/** osquery results (fixtures: src/test/resources/io/pqssh/inventory/osquery/README.md) give per-host findings. */
class OsqueryIngestTest {
    static OsqueryIngest.Result read(String resource) throws Exception {
        try (InputStream in = OsqueryIngestTest.class.getResourceAsStream("/io/pqssh/inventory/osquery/" + resource)) {
            assertNotNull(in, resource);
            Auditor.Options o = new Auditor.Options();
            o.passwd = null;
            o.sshdConfig = null;
            return OsqueryIngest.read(in, resource, o);
        }
    }

    static Finding one(OsqueryIngest.Result r, String file, String comment) {
        List<Finding> l = r.findings().stream().filter(f -> f.file().equals(file) && comment.equals(f.comment()))
                .toList();
        assertEquals(1, l.size(), file + " " + comment + " in " + r.findings());
        return l.get(0);
    }

    @Test
    void resultsLogInEventSnapshotAndBatchFormat() throws Exception {
        OsqueryIngest.Result r = read("osqueryd.results.log");
        assertEquals(List.of("web-01", "db-01", "build-01"), r.hosts());
        assertEquals(1, r.badRows().size(), r.badRows().toString());
        assertTrue(r.badRows().get(0).contains("osqueryd.results.log:8"), r.badRows().toString());

        String alice = "osquery://web-01/home/alice/.ssh/authorized_keys";
        assertEquals(Finding.Rules.PQ_KEY, one(r, alice, "alice@pq").rule());
        Finding old = one(r, alice, "alice@old-laptop");
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, old.rule());
        assertEquals("10.0.0.0/8", old.from());
        assertTrue(old.message().contains("web-01 user alice"), old.message());
        assertEquals("alice", old.owner());
        Finding bob = one(r, "osquery://web-01/home/bob/.ssh/authorized_keys", "bob@ancient");
        assertEquals(Finding.Rules.WEAK_KEY, bob.rule());
        assertEquals(1024, bob.bits());
        assertTrue(r.findings().stream().noneMatch(f -> "bob@gone".equals(f.comment())), "a removed row is no key");

        String cfg = "osquery://web-01/etc/ssh/ssh_config";
        assertTrue(r.findings().stream().anyMatch(f -> f.file().equals(cfg)
                && f.rule().equals(Finding.Rules.WEAK_ALGORITHM_CONFIG)), r.findings().toString());
        assertTrue(r.findings().stream().anyMatch(f -> f.file().equals(cfg)
                && f.rule().equals(Finding.Rules.CLASSICAL_KEX_CONFIG) && f.message().contains("host legacy")),
                r.findings().toString());

        String carol = "osquery://db-01/home/carol/.ssh/authorized_keys";
        assertTrue(one(r, carol, "carol@composite").message().contains("not usable"));
        assertEquals(Finding.Rules.CLASSICAL_KEY, one(r, carol, "carol@laptop").rule(),
                "the OpenSSH composite is no working credential under OpenSSH 10.5's defaults");
        String dave = "osquery://db-01/home/dave/.ssh/authorized_keys";
        assertEquals(Finding.Rules.EXPIRED_KEY, one(r, dave, "dave@expired").rule());
        assertEquals(Finding.Rules.CLASSICAL_KEY, one(r, "osquery://build-01/home/ci/.ssh/authorized_keys",
                "ci@runner").rule());
        assertTrue(r.findings().stream().noneMatch(f -> "ci@old".equals(f.comment())));
        // the same key file path on two hosts is two logins
        assertEquals(2, one(r, alice, "alice@old-laptop").line());
    }

    @Test
    void fleetExportAndOsqueryiArrays() throws Exception {
        OsqueryIngest.Result r = read("fleet-live-query.json");
        assertEquals(List.of("ops-01"), r.hosts());
        assertEquals(List.of(), r.badRows());
        assertEquals(Finding.Rules.CLASSICAL_KEY, one(r, "osquery://ops-01/root/.ssh/authorized_keys", "root@jump")
                .rule(), "root has no PQ credential: its key is not beside one");
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ,
                one(r, "osquery://ops-01/home/ops/.ssh/authorized_keys", "ops@old").rule());
    }

    @Test
    void rowsThatAreNotKeysAreReportedNotDropped() throws Exception {
        String in = "{\"hostIdentifier\":\"x\",\"columns\":{\"name\":\"bash\"},\"action\":\"added\"}\n"
                + "{\"columns\":{\"key_file\":\"/k\",\"algorithm\":\"ssh-ed25519\",\"key\":\"AAAA\"}}\n"
                + "{\"hostIdentifier\":\"x\",\"columns\":{\"key_file\":\"/root/.ssh/authorized_keys\",\"algorithm\":"
                + "\"ssh-ed25519\",\"key\":\"notbase64!!\"},\"action\":\"added\"}\n";
        Auditor.Options o = new Auditor.Options();
        o.passwd = null;
        o.sshdConfig = null;
        OsqueryIngest.Result r = OsqueryIngest.read(new ByteArrayInputStream(in.getBytes(StandardCharsets.UTF_8)),
                "in", o);
        assertEquals(2, r.badRows().size(), r.badRows().toString());
        assertTrue(r.badRows().get(0).contains("neither an authorized_keys nor an ssh_configs row"));
        assertTrue(r.badRows().get(1).contains("without a host"));
        assertTrue(r.findings().stream().anyMatch(f -> f.rule().equals(Finding.Rules.UNREADABLE)
                && f.file().equals("osquery://x/root/.ssh/authorized_keys")), r.findings().toString());
    }
}
