import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;

/**
 * Which embedded database takes a scan's rows faster: SQLite or DuckDB through JDBC, on the store's row shape (one
 * target row, one host key row, one target-key link per record), batched prepared statements in transactions of
 * 10,000 records; DuckDB also with its Appender. Run by store-bench.sh; prints records/s and the file size.
 */
public class StoreBench {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        Path dir = Path.of(a[1]);
        run("sqlite", "jdbc:sqlite:" + dir.resolve("b.sqlite"), n, false, dir.resolve("b.sqlite"));
        // DuckDB takes JDBC batches row by row (about 1,000 records/s here): a hundredth of the records is enough to see it
        run("duckdb", "jdbc:duckdb:" + dir.resolve("b.duckdb"), Math.max(1, n / 100), false, dir.resolve("b.duckdb"));
        run("duckdb-appender", "jdbc:duckdb:" + dir.resolve("c.duckdb"), n, true, dir.resolve("c.duckdb"));
    }

    static void run(String name, String url, int n, boolean appender, Path file) throws Exception {
        try (Connection c = DriverManager.getConnection(url)) {
            try (Statement s = c.createStatement()) {
                if (name.equals("sqlite")) {
                    s.execute("PRAGMA journal_mode=WAL");
                    s.execute("PRAGMA synchronous=NORMAL");
                }
                s.execute("CREATE TABLE targets (run_id INTEGER NOT NULL, seq INTEGER NOT NULL, target TEXT NOT NULL,"
                        + " category TEXT NOT NULL, status TEXT NOT NULL, evidence TEXT NOT NULL, software TEXT,"
                        + " error TEXT, openssh10_kex TEXT, pqssh_kex TEXT, strict_kex BOOLEAN,"
                        + " weak TEXT, PRIMARY KEY (run_id, seq))");
                s.execute("CREATE TABLE keys (fingerprint TEXT PRIMARY KEY, key_type TEXT, bits INTEGER)");
                s.execute("CREATE TABLE target_keys (run_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
                        + " fingerprint TEXT NOT NULL, algorithm TEXT)");
            }
            c.setAutoCommit(false);
            long t0 = System.nanoTime();
            if (appender) {
                var dc = (org.duckdb.DuckDBConnection) c;
                try (var t = dc.createAppender("main", "targets"); var k = dc.createAppender("main", "target_keys")) {
                    for (int i = 0; i < n; i++) {
                        t.beginRow();
                        t.append(1);
                        t.append(i);
                        t.append("198.51." + (i >> 16 & 255) + "." + (i & 255) + ":22");
                        t.append(i % 8 == 0 ? "pq-ready" : "classical-only");
                        t.append("ssh");
                        t.append("kexinit");
                        t.append("OpenSSH_9.6p1");
                        t.append((String) null);
                        t.append("curve25519-sha256");
                        t.append("curve25519-sha256");
                        t.append(true);
                        t.append("mac:hmac-sha1");
                        t.endRow();
                        k.beginRow();
                        k.append(1);
                        k.append(i);
                        k.append("SHA256:" + Integer.toHexString(i % 50000));
                        k.append("ssh-ed25519");
                        k.endRow();
                    }
                }
                // keys deduplicated afterwards, as an appender cannot ignore conflicts
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO keys SELECT DISTINCT fingerprint, 'ssh-ed25519', 256 FROM target_keys"
                            + " ON CONFLICT DO NOTHING");
                }
            } else {
                String ignore = name.equals("sqlite") ? "INSERT OR IGNORE INTO keys VALUES (?,?,?)"
                        : "INSERT INTO keys VALUES (?,?,?) ON CONFLICT DO NOTHING";
                try (PreparedStatement t = c.prepareStatement("INSERT INTO targets VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
                        PreparedStatement k = c.prepareStatement(ignore);
                        PreparedStatement l = c.prepareStatement("INSERT INTO target_keys VALUES (?,?,?,?)")) {
                    for (int i = 0; i < n; i++) {
                        t.setInt(1, 1);
                        t.setInt(2, i);
                        t.setString(3, "198.51." + (i >> 16 & 255) + "." + (i & 255) + ":22");
                        t.setString(4, i % 8 == 0 ? "pq-ready" : "classical-only");
                        t.setString(5, "ssh");
                        t.setString(6, "kexinit");
                        t.setString(7, "OpenSSH_9.6p1");
                        t.setString(8, null);
                        t.setString(9, "curve25519-sha256");
                        t.setString(10, "curve25519-sha256");
                        t.setBoolean(11, true);
                        t.setString(12, "mac:hmac-sha1");
                        t.addBatch();
                        String fp = "SHA256:" + Integer.toHexString(i % 50000);
                        k.setString(1, fp);
                        k.setString(2, "ssh-ed25519");
                        k.setInt(3, 256);
                        k.addBatch();
                        l.setInt(1, 1);
                        l.setInt(2, i);
                        l.setString(3, fp);
                        l.setString(4, "ssh-ed25519");
                        l.addBatch();
                        if (i % 10_000 == 9_999) {
                            t.executeBatch();
                            k.executeBatch();
                            l.executeBatch();
                            c.commit();
                        }
                    }
                    t.executeBatch();
                    k.executeBatch();
                    l.executeBatch();
                }
            }
            c.commit();
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("%-16s %,d records in %.1f s = %,.0f records/s; file %,d MB%n", name, n, s, n / s,
                    Files.size(file) / 1_000_000);
            System.out.flush();
        }
    }
}
