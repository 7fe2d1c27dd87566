package io.pqssh.inventory.report;

import java.util.ArrayList;
import java.util.List;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.ScanResult;

/** RFC 4180 CSV, one row per target or finding; lists inside a cell are separated by {@code ;}. */
public final class CsvReport {
    public static final List<String> SCAN_COLUMNS = List.of("target", "host", "port", "category", "error",
            "software", "pq_kex_offered", "openssh10_negotiates", "pqssh_negotiates", "pq_host_keys", "strict_kex",
            "weak", "host_key_fingerprints", "evidence", "host_certificates");
    public static final List<String> AUDIT_COLUMNS = List.of("rule", "severity", "file", "line", "key_type",
            "family", "bits", "curve", "certificate", "comment", "fingerprint", "expiry", "from", "host", "owner",
            "message");

    private CsvReport() {
    }

    public static String scan(List<ScanResult> results) {
        return ScanSinks.render(results, ScanSinks::csv);
    }

    static List<String> scanCells(ScanResult r) {
        Classification c = r.classification();
        List<String> cells = new ArrayList<>(SCAN_COLUMNS.size());
        cells.add(r.target().toString());
        cells.add(r.target().host());
        cells.add(String.valueOf(r.target().port()));
        cells.add(r.category());
        cells.add(r.error());
        cells.add(r.software());
        cells.add(c == null ? null : String.join(";", c.pqKexOffered()));
        cells.add(c == null ? null : c.openssh10Negotiates());
        cells.add(c == null ? null : c.pqsshNegotiates());
        cells.add(c == null ? null : String.join(";", c.pqHostKeysOffered()));
        cells.add(c == null ? null : String.valueOf(c.strictKex()));
        cells.add(c == null ? null : String.join(";", c.weak()));
        cells.add(String.join(";", r.hostKeys().stream().filter(h -> h.fingerprint() != null)
                .map(h -> h.keyType() + "=" + h.fingerprint()).toList()));
        cells.add(r.evidence().jsonName());
        cells.add(String.join(";", r.hostKeys().stream().filter(h -> h.certificate() != null)
                .map(h -> h.keyType() + "=" + h.certificate().summary()
                        + (h.certificate().classicalCa() ? " (classical-ca)" : "")).toList()));
        return cells;
    }

    public static String audit(List<Finding> findings) {
        StringBuilder b = new StringBuilder();
        row(b, AUDIT_COLUMNS);
        for (Finding f : findings) {
            row(b, java.util.Arrays.asList(f.rule(), f.severity(), f.file(), String.valueOf(f.line()), f.keyType(),
                    f.family(), str(f.bits()), f.curve(), str(f.certificate()), f.comment(), f.fingerprint(),
                    f.expiry(), f.from(), f.host(), f.owner(), f.message()));
        }
        return b.toString();
    }

    private static String str(Object o) {
        return o == null ? null : o.toString();
    }

    static void row(StringBuilder b, List<String> cells) {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(cell(cells.get(i)));
        }
        b.append("\r\n");
    }

    static String cell(String s) {
        if (s == null) {
            return "";
        }
        // a leading =,+,-,@ would be a formula in spreadsheets: quote and prefix
        String v = !s.isEmpty() && "=+-@".indexOf(s.charAt(0)) >= 0 ? "'" + s : s;
        if (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0
                || !v.equals(s)) {
            return "\"" + v.replace("\"", "\"\"") + "\"";
        }
        return v;
    }
}
