package io.pqssh.inventory.report;

import java.util.ArrayList;
import java.util.List;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.ScanResult;

/** The human table for the terminal. */
public final class TableReport {
    static final List<String> SCAN_HEADER = List.of("TARGET", "CLASS", "OPENSSH10", "PQSSH", "PQ-KEX-OFFERED",
            "PQ-HOSTKEY", "STRICT", "WEAK", "SOFTWARE/ERROR");

    private TableReport() {
    }

    public static String scan(List<ScanResult> results) {
        return ScanSinks.render(results, ScanSinks::table);
    }

    /** The row of one target, and one row per collected host key. */
    static List<List<String>> scanRows(ScanResult r) {
        List<List<String>> rows = new ArrayList<>(1 + r.hostKeys().size());
        var c = r.classification();
        String cls = r.category() + (r.evidence() == ScanResult.Evidence.BANNER ? " (banner)"
                : r.evidence() == ScanResult.Evidence.ERROR_TEXT ? " (zgrab2 error)" : "");
        rows.add(List.of(r.target().toString(), cls, c == null ? "-" : dash(c.openssh10Negotiates()),
                c == null ? "-" : dash(c.pqsshNegotiates()),
                c == null ? "-" : dash(String.join(",", c.pqKexOffered())),
                c == null ? "-" : dash(String.join(",", c.pqHostKeysOffered())),
                c == null ? "-" : (c.strictKex() ? "yes" : "no"),
                c == null ? "-" : String.valueOf(c.weak().size()),
                r.software() != null ? r.software() : dash(r.error())));
        for (ScanResult.HostKey h : r.hostKeys()) {
            rows.add(List.of("  hostkey", h.algorithm() + (h.bits() > 0 ? " " + h.bits() : ""),
                    h.fingerprint() != null ? h.fingerprint() : dash(h.error()), "", "", "", "", "", ""));
            if (h.certificate() != null) {
                rows.add(List.of("  certificate", h.certificate().caFamily() + " CA" + (h.certificate().classicalCa()
                        ? " (classical-ca)" : ""), h.certificate().caFingerprint(), "", "", "", "", "",
                        h.certificate().summary()));
            }
        }
        return rows;
    }

    public static String audit(List<Finding> findings) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("SEVERITY", "RULE", "LOCATION", "TYPE", "FINGERPRINT", "MESSAGE"));
        for (Finding f : findings) {
            rows.add(List.of(f.severity(), f.rule(), f.file() + (f.line() > 0 ? ":" + f.line() : ""),
                    dash(f.keyType()), dash(f.fingerprint()), f.message()));
        }
        return format(rows) + Summary.auditLine(findings) + "\n";
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    static int[] widths(List<List<String>> rows) {
        int cols = rows.get(0).size();
        int[] w = new int[cols];
        for (List<String> r : rows) {
            for (int i = 0; i < cols - 1; i++) {
                w[i] = Math.min(100, Math.max(w[i], r.get(i).length()));
            }
        }
        return w;
    }

    static String line(List<String> r, int[] w) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < w.length; i++) {
            String c = r.get(i);
            if (i < w.length - 1) {
                b.append(c.length() > w[i] ? c.substring(0, Math.max(0, w[i] - 1)) + "~" : c);
                b.append(" ".repeat(w[i] - Math.min(c.length(), w[i]) + 2));
            } else {
                b.append(c);
            }
        }
        int end = b.length();
        while (end > 0 && b.charAt(end - 1) == ' ') {
            end--;
        }
        b.setLength(end);
        return b.append('\n').toString();
    }

    static String format(List<List<String>> rows) {
        int[] w = widths(rows);
        StringBuilder b = new StringBuilder();
        for (List<String> r : rows) {
            b.append(line(r, w));
        }
        return b.toString();
    }
}
