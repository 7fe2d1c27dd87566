package io.pqssh.inventory.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.ScanResult;

/** The human table for the terminal. */
public final class TableReport {
    private TableReport() {
    }

    public static String scan(List<ScanResult> results) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("TARGET", "CLASS", "OPENSSH10", "PQSSH", "PQ-KEX-OFFERED", "PQ-HOSTKEY", "STRICT", "WEAK",
                "SOFTWARE/ERROR"));
        for (ScanResult r : results) {
            var c = r.classification();
            rows.add(List.of(r.target().toString(), r.category(), c == null ? "-" : dash(c.openssh10Negotiates()),
                    c == null ? "-" : dash(c.pqsshNegotiates()),
                    c == null ? "-" : dash(String.join(",", c.pqKexOffered())),
                    c == null ? "-" : dash(String.join(",", c.pqHostKeysOffered())),
                    c == null ? "-" : (c.strictKex() ? "yes" : "no"),
                    c == null ? "-" : String.valueOf(c.weak().size()),
                    r.software() != null ? r.software() : dash(r.error())));
            for (ScanResult.HostKey h : r.hostKeys()) {
                rows.add(List.of("  hostkey", h.algorithm(), h.fingerprint() != null ? h.fingerprint() : dash(h.error()),
                        "", "", "", "", "", ""));
            }
        }
        Map<String, Integer> s = Summary.ofScan(results);
        return format(rows) + String.format("%d targets: %d pq-ready, %d classical-only, %d not-ssh, %d unreachable%n",
                s.get("total"), s.get("pq-ready"), s.get("classical-only"), s.get("not-ssh"), s.get("unreachable"));
    }

    public static String audit(List<Finding> findings) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("SEVERITY", "RULE", "LOCATION", "TYPE", "FINGERPRINT", "MESSAGE"));
        for (Finding f : findings) {
            rows.add(List.of(f.severity(), f.rule(), f.file() + (f.line() > 0 ? ":" + f.line() : ""),
                    dash(f.keyType()), dash(f.fingerprint()), f.message()));
        }
        Map<String, Integer> s = Summary.ofAudit(findings);
        return format(rows) + String.format("%d findings: %d classical keys beside PQ, %d weak keys, %d classical keys,"
                + " %d PQ credentials, %d KEX config%n", s.get("total"), s.get(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ),
                s.get(Finding.Rules.WEAK_KEY), s.get(Finding.Rules.CLASSICAL_KEY), s.get(Finding.Rules.PQ_KEY),
                s.get(Finding.Rules.CLASSICAL_KEX_CONFIG) + s.get(Finding.Rules.PQ_KEX_REMOVED));
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    static String format(List<List<String>> rows) {
        int cols = rows.get(0).size();
        int[] w = new int[cols];
        for (List<String> r : rows) {
            for (int i = 0; i < cols - 1; i++) {
                w[i] = Math.min(100, Math.max(w[i], r.get(i).length()));
            }
        }
        StringBuilder b = new StringBuilder();
        for (List<String> r : rows) {
            for (int i = 0; i < cols; i++) {
                String c = r.get(i);
                if (i < cols - 1) {
                    b.append(c.length() > w[i] ? c.substring(0, w[i] - 1) + "~" : c);
                    b.append(" ".repeat(w[i] - Math.min(c.length(), w[i]) + 2));
                } else {
                    b.append(c);
                }
            }
            b.append('\n');
        }
        return b.toString().replaceAll("(?m)[ ]+$", "");
    }
}
