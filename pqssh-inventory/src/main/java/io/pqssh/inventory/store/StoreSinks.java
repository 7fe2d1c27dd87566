package io.pqssh.inventory.store;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.report.ScanCounters;
import io.pqssh.inventory.report.ScanSink;
import io.pqssh.inventory.scan.Algorithms;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexCache;
import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.ScanResult;

/** Writes a scan (streamed) or an audit into a {@link Store} as one new run. */
public final class StoreSinks {
    private StoreSinks() {
    }

    /**
     * A scan run: a row per target, its host keys (each key once in {@code keys}) and its flagged algorithms, in
     * transactions of {@value Store#BATCH} records. The run row gets its end time and summary at {@code finish}; a
     * run that did not finish keeps {@code finished} empty (and is listed so).
     */
    public static ScanSink scan(Store store, String source) throws IOException {
        Connection c = store.connection();
        try {
            long run = store.beginRun("scan", source);
            PreparedStatement t = c.prepareStatement("INSERT INTO targets (run_id, seq, target, host, port, category,"
                    + " status, evidence, software, error, openssh10_kex, pqssh_kex, pq_kex_offered,"
                    + " pq_host_keys_offered, strict_kex, profile_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
            PreparedStatement k = c.prepareStatement(
                    "INSERT INTO keys (fingerprint, key_type, bits) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
            PreparedStatement tk = c.prepareStatement(
                    "INSERT INTO target_keys (run_id, seq, fingerprint, algorithm) VALUES (?, ?, ?, ?)");
            PreparedStatement pr = c.prepareStatement("INSERT INTO profiles (id, kex, host_keys, ciphers, macs)"
                    + " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
            PreparedStatement f = c.prepareStatement(
                    "INSERT INTO profile_flags (profile_id, algorithm, severity) VALUES (?, ?, ?)");
            return new ScanSink() {
                private long seq;
                private int pending;
                private boolean keys;
                /** Profiles known to be stored, the most recent {@value #PROFILES}: most fleets have few offers. */
                private final java.util.Map<KexInit, String> profiles = new java.util.LinkedHashMap<>(256, 0.75f,
                        true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(java.util.Map.Entry<KexInit, String> e) {
                        return size() > PROFILES;
                    }
                };

                /**
                 * Fingerprints this run has written to {@code keys} (or found there), the most recent
                 * {@value #PROFILES}: a key seen again needs no {@code INSERT ... ON CONFLICT DO NOTHING}.
                 */
                private final java.util.Map<String, Boolean> keysWritten = new java.util.LinkedHashMap<>(256,
                        0.75f, true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(java.util.Map.Entry<String, Boolean> e) {
                        return size() > PROFILES;
                    }
                };
                /** The last classification's joined lists (results of one KEXINIT share one Classification). */
                private Classification joined;
                private String pqKex;
                private String pqHostKeys;
                /** The last KEXINIT's profile: the reader hands equal KEXINITs on as one object. */
                private KexInit lastKexInit;
                private String lastProfile;

                private String profile(KexInit k) throws SQLException {
                    if (k == lastKexInit) {
                        return lastProfile;
                    }
                    String id = profiles.get(k);
                    if (id == null) {
                        id = newProfile(k);
                    }
                    lastKexInit = k;
                    lastProfile = id;
                    return id;
                }

                private String newProfile(KexInit k) throws SQLException {
                    String id;
                    String kex = String.join(",", k.kex());
                    String hk = String.join(",", k.hostKey());
                    String ciphers = String.join(",", k.ciphersC2S()) + ";" + String.join(",", k.ciphersS2C());
                    String macs = String.join(",", k.macsC2S()) + ";" + String.join(",", k.macsS2C());
                    id = sha256(kex + "\n" + hk + "\n" + ciphers + "\n" + macs);
                    pr.setString(1, id);
                    pr.setString(2, kex);
                    pr.setString(3, hk);
                    pr.setString(4, ciphers);
                    pr.setString(5, macs);
                    if (pr.executeUpdate() == 1) {
                        for (Algorithms.Weakness w : KexCache.of(k).weaknesses()) {
                            f.setString(1, id);
                            f.setString(2, w.kind() + ":" + w.name());
                            f.setString(3, w.severity());
                            f.addBatch();
                        }
                        f.executeBatch();
                    }
                    profiles.put(k, id);
                    return id;
                }

                private void join(Classification cl) {
                    if (cl != joined) {
                        joined = cl;
                        pqKex = String.join(",", cl.pqKexOffered());
                        pqHostKeys = String.join(",", cl.pqHostKeysOffered());
                    }
                }

                @Override
                public void accept(ScanResult r) throws IOException {
                    try {
                        seq++;
                        t.setLong(1, run);
                        t.setLong(2, seq);
                        t.setString(3, r.target().toString());
                        t.setString(4, r.target().host());
                        t.setInt(5, r.target().port());
                        t.setString(6, r.category());
                        t.setString(7, r.status().jsonName());
                        t.setString(8, r.evidence().jsonName());
                        t.setString(9, r.software());
                        t.setString(10, r.error());
                        Classification cl = r.classification();
                        t.setString(11, cl == null ? null : cl.openssh10Negotiates());
                        t.setString(12, cl == null ? null : cl.pqsshNegotiates());
                        if (cl != null) {
                            join(cl);
                        }
                        t.setString(13, cl == null ? null : pqKex);
                        t.setString(14, cl == null ? null : pqHostKeys);
                        if (cl == null) {
                            t.setNull(15, java.sql.Types.BOOLEAN);
                        } else {
                            t.setBoolean(15, cl.strictKex());
                        }
                        t.setString(16, r.kexInit() == null ? null : profile(r.kexInit()));
                        t.addBatch();
                        for (ScanResult.HostKey h : r.hostKeys()) {
                            if (h.error() != null || h.fingerprint() == null) {
                                continue;
                            }
                            if (keysWritten.put(h.fingerprint(), Boolean.TRUE) == null) {
                                k.setString(1, h.fingerprint());
                                k.setString(2, h.keyType() == null ? h.algorithm() : h.keyType());
                                if (h.bits() > 0) {
                                    k.setInt(3, h.bits());
                                } else {
                                    k.setNull(3, java.sql.Types.INTEGER);
                                }
                                k.addBatch();
                            }
                            tk.setLong(1, run);
                            tk.setLong(2, seq);
                            tk.setString(3, h.fingerprint());
                            tk.setString(4, h.algorithm() == null ? h.keyType() : h.algorithm());
                            tk.addBatch();
                            keys = true;
                        }
                        if (++pending >= Store.BATCH) {
                            flush();
                        }
                    } catch (SQLException e) {
                        throw failure(store, e);
                    }
                }

                private void flush() throws SQLException {
                    t.executeBatch();
                    if (keys) {
                        k.executeBatch();
                        tk.executeBatch();
                    }
                    c.commit();
                    pending = 0;
                    keys = false;
                }

                @Override
                public void finish(ScanCounters counters) throws IOException {
                    try {
                        flush();
                        store.endRun(run, seq, summary(counters.summary()));
                    } catch (SQLException e) {
                        throw failure(store, e);
                    }
                }

                @Override
                public void close() throws IOException {
                    try {
                        for (PreparedStatement p : List.of(t, k, tk, pr, f)) {
                            p.close();
                        }
                        c.rollback();
                    } catch (SQLException e) {
                        throw failure(store, e);
                    }
                }
            };
        } catch (SQLException e) {
            throw failure(store, e);
        }
    }

    /** An audit run: a row per finding; key findings point at their key in {@code keys}. */
    public static void audit(Store store, List<Finding> findings, String source) throws IOException {
        Connection c = store.connection();
        try {
            long run = store.beginRun("audit", source);
            try (PreparedStatement k = c.prepareStatement(
                    "INSERT INTO keys (fingerprint, key_type, bits) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
                    PreparedStatement f = c.prepareStatement("INSERT INTO findings (run_id, seq, rule, severity, file,"
                            + " line, message, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                long seq = 0;
                for (Finding x : findings) {
                    seq++;
                    if (x.fingerprint() != null) {
                        k.setString(1, x.fingerprint());
                        k.setString(2, x.keyType() == null ? "unknown" : x.keyType());
                        if (x.bits() != null) {
                            k.setInt(3, x.bits());
                        } else {
                            k.setNull(3, java.sql.Types.INTEGER);
                        }
                        k.executeUpdate();
                    }
                    f.setLong(1, run);
                    f.setLong(2, seq);
                    f.setString(3, x.rule());
                    f.setString(4, x.severity());
                    f.setString(5, x.file());
                    f.setInt(6, x.line());
                    f.setString(7, x.message());
                    f.setString(8, x.fingerprint());
                    f.addBatch();
                }
                f.executeBatch();
            }
            c.commit();
            java.util.Map<String, Long> counts = new java.util.LinkedHashMap<>();
            io.pqssh.inventory.report.Summary.ofAudit(findings).forEach((r, n) -> counts.put(r, (long) n));
            store.endRun(run, findings.size(), summary(counts));
        } catch (SQLException e) {
            throw failure(store, e);
        }
    }

    static final int PROFILES = 4096;

    static String sha256(String s) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String summary(java.util.Map<String, Long> m) {
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) -> b.append(b.isEmpty() ? "" : ",").append(k).append('=').append(v));
        return b.toString();
    }

    static IOException failure(Store store, SQLException e) {
        return new IOException("store " + store.display() + ": " + Store.firstLine(e.getMessage()), e);
    }
}
