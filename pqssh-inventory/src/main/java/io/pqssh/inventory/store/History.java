package io.pqssh.inventory.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.pqssh.inventory.scan.ScanResult;

/** What the store says over time: the runs, what changed between two scans, the share of each category per run. */
public final class History {
    private final Store store;

    public History(Store store) {
        this.store = store;
    }

    public record Run(long id, String kind, String started, String finished, String source, Long total,
            String summary) {
    }

    public List<Run> runs() throws Store.StoreException {
        List<Run> out = new ArrayList<>();
        try (PreparedStatement p = c().prepareStatement(
                "SELECT id, kind, started, finished, source, total, summary FROM runs ORDER BY id");
                ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                long total = rs.getLong(6);
                out.add(new Run(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                        rs.wasNull() ? null : total, rs.getString(7)));
            }
        } catch (SQLException e) {
            throw fail(e);
        }
        return out;
    }

    /** The kinds of change {@link #diff} reports, in report order. */
    public static final List<String> CHANGES = List.of("became-pq-ready", "regressed", "appeared", "disappeared",
            "category-changed", "keys-changed");

    /**
     * One changed target: {@code before}/{@code after} are its categories (null when absent from that run);
     * {@code change} is the first that applies of {@link #CHANGES}.
     */
    public record Change(String target, String change, String before, String after, List<String> keysAdded,
            List<String> keysRemoved) {
    }

    public interface ChangeHandler {
        void change(Change c) throws java.io.IOException;
    }

    /**
     * Streams what changed between scan runs {@code a} and {@code b}: both runs are read ordered by target and merged,
     * so memory holds one target of each at a time.
     */
    public void diff(long a, long b, ChangeHandler out) throws Store.StoreException, java.io.IOException {
        for (long id : new long[] {a, b}) {
            Run r = run(id);
            if (r == null) {
                throw new Store.StoreException("no run " + id + " in store " + store.display());
            }
            if (!r.kind().equals("scan")) {
                throw new Store.StoreException("run " + id + " is an audit; diff compares scans");
            }
        }
        // the merge below compares with String.compareTo: both databases must order by code point, not by locale
        String binary = store.kind() == Store.Kind.POSTGRESQL ? " COLLATE \"C\"" : " COLLATE BINARY";
        String q = "SELECT t.target, t.category, k.fingerprint FROM targets t LEFT JOIN target_keys k"
                + " ON k.run_id = t.run_id AND k.seq = t.seq WHERE t.run_id = ? ORDER BY t.target" + binary
                + ", t.seq, k.fingerprint";
        try (PreparedStatement pa = c().prepareStatement(q); PreparedStatement pb = c().prepareStatement(q)) {
            pa.setFetchSize(1000);
            pb.setFetchSize(1000);
            pa.setLong(1, a);
            pb.setLong(1, b);
            try (ResultSet ra = pa.executeQuery(); ResultSet rb = pb.executeQuery()) {
                Cursor ca = new Cursor(ra);
                Cursor cb = new Cursor(rb);
                Entry x = ca.next();
                Entry y = cb.next();
                while (x != null || y != null) {
                    int cmp = x == null ? 1 : y == null ? -1 : x.target.compareTo(y.target);
                    if (cmp < 0) {
                        out.change(new Change(x.target, "disappeared", x.category, null, List.of(),
                                List.copyOf(x.keys)));
                        x = ca.next();
                    } else if (cmp > 0) {
                        out.change(new Change(y.target, "appeared", null, y.category, List.copyOf(y.keys),
                                List.of()));
                        y = cb.next();
                    } else {
                        Change ch = compare(x, y);
                        if (ch != null) {
                            out.change(ch);
                        }
                        x = ca.next();
                        y = cb.next();
                    }
                }
            }
        } catch (SQLException e) {
            throw fail(e);
        }
        try {
            c().commit(); // ends the read transaction
        } catch (SQLException e) {
            throw fail(e);
        }
    }

    private static Change compare(Entry x, Entry y) {
        Set<String> added = new TreeSet<>(y.keys);
        added.removeAll(x.keys);
        Set<String> removed = new TreeSet<>(x.keys);
        removed.removeAll(y.keys);
        String change;
        boolean wasReady = x.category.equals("pq-ready");
        boolean isReady = y.category.equals("pq-ready");
        if (!wasReady && isReady) {
            change = "became-pq-ready";
        } else if (wasReady && !isReady) {
            change = "regressed";
        } else if (!x.category.equals(y.category)) {
            change = "category-changed";
        } else if (!added.isEmpty() || !removed.isEmpty()) {
            change = "keys-changed";
        } else {
            return null;
        }
        return new Change(x.target, change, x.category, y.category, List.copyOf(added), List.copyOf(removed));
    }

    private record Entry(String target, String category, Set<String> keys) {
    }

    /** Groups the rows of one run by target (a target given twice in one run: its first row's category). */
    private static final class Cursor {
        private final ResultSet rs;
        private boolean more;

        Cursor(ResultSet rs) throws SQLException {
            this.rs = rs;
            this.more = rs.next();
        }

        Entry next() throws SQLException {
            if (!more) {
                return null;
            }
            String target = rs.getString(1);
            Entry e = new Entry(target, rs.getString(2), new TreeSet<>());
            while (more && rs.getString(1).equals(target)) {
                String fp = rs.getString(3);
                if (fp != null) {
                    e.keys.add(fp);
                }
                more = rs.next();
            }
            return e;
        }
    }

    /** The two latest scan runs, older first; fewer when the store has fewer. */
    public List<Long> latestScans(int n) throws Store.StoreException {
        List<Long> ids = new ArrayList<>();
        for (Run r : runs()) {
            if (r.kind().equals("scan")) {
                ids.add(r.id());
            }
        }
        return ids.subList(Math.max(0, ids.size() - n), ids.size());
    }

    public Run run(long id) throws Store.StoreException {
        for (Run r : runs()) {
            if (r.id() == id) {
                return r;
            }
        }
        return null;
    }

    /** One scan run's count per category ({@link ScanResult#CATEGORIES} order, zeros included). */
    public record Point(long run, String started, long total, Map<String, Long> counts) {
        public double share(String category) {
            return total == 0 ? 0 : (double) counts.getOrDefault(category, 0L) / total;
        }
    }

    public List<Point> trend() throws Store.StoreException {
        Map<Long, Point> points = new LinkedHashMap<>();
        try (PreparedStatement p = c().prepareStatement("SELECT r.id, r.started, t.category, COUNT(*) FROM runs r"
                + " JOIN targets t ON t.run_id = r.id WHERE r.kind = 'scan' GROUP BY r.id, r.started, t.category"
                + " ORDER BY r.id"); ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                long id = rs.getLong(1);
                Point pt = points.computeIfAbsent(id, x -> {
                    Map<String, Long> m = new LinkedHashMap<>();
                    ScanResult.CATEGORIES.forEach(cat -> m.put(cat, 0L));
                    try {
                        return new Point(x, rs.getString(2), 0, m);
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                pt.counts().merge(rs.getString(3), rs.getLong(4), Long::sum);
            }
            c().commit();
        } catch (SQLException e) {
            throw fail(e);
        }
        List<Point> out = new ArrayList<>();
        for (Point p : points.values()) {
            long total = p.counts().values().stream().mapToLong(Long::longValue).sum();
            out.add(new Point(p.run(), p.started(), total, p.counts()));
        }
        return out;
    }

    private Connection c() {
        return store.connection();
    }

    private Store.StoreException fail(SQLException e) {
        return new Store.StoreException("store " + store.display() + ": " + Store.firstLine(e.getMessage()), e);
    }
}
