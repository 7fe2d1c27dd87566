package io.pqssh.inventory.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.ScanResult;

/** A self-contained HTML page (no scripts, no external resources) with an inline SVG summary chart and a table. */
public final class HtmlReport {
    private record Slice(String label, int count, String color) {
    }

    private HtmlReport() {
    }

    public static String scan(List<ScanResult> results) {
        Map<String, Integer> s = Summary.ofScan(results);
        List<Slice> slices = List.of(new Slice("pq-ready", s.get("pq-ready"), "#2e7d32"),
                new Slice("classical-only", s.get("classical-only"), "#c62828"),
                new Slice("not-ssh", s.get("not-ssh"), "#8d6e63"),
                new Slice("unreachable", s.get("unreachable"), "#9e9e9e"));
        List<List<String>> rows = new ArrayList<>();
        for (ScanResult r : results) {
            var c = r.classification();
            rows.add(List.of(r.target().toString(), r.category(),
                    r.software() != null ? r.software() : nz(r.error()),
                    c == null ? "" : nz(c.openssh10Negotiates()), c == null ? "" : nz(c.pqsshNegotiates()),
                    c == null ? "" : String.join(", ", c.pqKexOffered()),
                    c == null ? "" : String.join(", ", c.pqHostKeysOffered()),
                    c == null ? "" : (c.strictKex() ? "yes" : "no"), c == null ? "" : String.join(", ", c.weak())));
        }
        return page("pqssh scan: " + results.size() + " targets", slices, List.of("target", "class", "software / error",
                "OpenSSH 10 negotiates", "pqssh negotiates", "PQ KEX offered", "PQ host keys", "strict KEX", "weak"),
                rows, 1);
    }

    public static String audit(List<Finding> findings) {
        Map<String, Integer> s = Summary.ofAudit(findings);
        List<Slice> slices = List.of(
                new Slice("classical key beside PQ", s.get(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ), "#b71c1c"),
                new Slice("weak key", s.get(Finding.Rules.WEAK_KEY), "#e65100"),
                new Slice("classical key", s.get(Finding.Rules.CLASSICAL_KEY), "#c62828"),
                new Slice("PQ credential", s.get(Finding.Rules.PQ_KEY), "#2e7d32"),
                new Slice("config", s.get(Finding.Rules.CLASSICAL_KEX_CONFIG) + s.get(Finding.Rules.PQ_KEX_REMOVED)
                        + s.get(Finding.Rules.WEAK_ALGORITHM_CONFIG), "#6a1b9a"));
        List<List<String>> rows = new ArrayList<>();
        for (Finding f : findings) {
            rows.add(List.of(f.severity(), f.rule(), f.file() + (f.line() > 0 ? ":" + f.line() : ""), nz(f.keyType()),
                    f.bits() == null ? "" : f.bits().toString(), nz(f.fingerprint()), nz(f.comment()),
                    nz(f.host()), f.message()));
        }
        return page("pqssh audit: " + findings.size() + " findings", slices, List.of("severity", "rule", "location",
                "type", "bits", "fingerprint", "comment", "host", "message"), rows, 1);
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    private static String page(String title, List<Slice> slices, List<String> head, List<List<String>> rows,
            int classColumn) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").append(esc(title))
                .append("</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px;text-align:left}"
                        + "th{background:#eee}.pq-ready{color:#2e7d32}.classical-only{color:#c62828}</style>"
                        + "</head><body>\n<h1>").append(esc(title)).append("</h1>\n");
        b.append(chart(slices));
        b.append("<table><thead><tr>");
        for (String h : head) {
            b.append("<th>").append(esc(h)).append("</th>");
        }
        b.append("</tr></thead><tbody>\n");
        for (List<String> r : rows) {
            b.append("<tr>");
            for (int i = 0; i < r.size(); i++) {
                b.append(i == classColumn ? "<td class=\"" + esc(r.get(i)) + "\">" : "<td>").append(esc(r.get(i)))
                        .append("</td>");
            }
            b.append("</tr>\n");
        }
        b.append("</tbody></table>\n</body></html>\n");
        return b.toString();
    }

    /** A stacked horizontal bar with a legend giving counts and shares. */
    static String chart(List<Slice> slices) {
        int total = slices.stream().mapToInt(Slice::count).sum();
        int width = 600;
        StringBuilder b = new StringBuilder();
        b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width + 20).append("\" height=\"")
                .append(60 + 22 * slices.size()).append("\" role=\"img\" aria-label=\"summary\">\n");
        double x = 10;
        for (Slice s : slices) {
            double w = total == 0 ? 0 : (double) width * s.count() / total;
            if (w > 0) {
                b.append(String.format(Locale.ROOT,
                        "<rect class=\"slice\" data-label=\"%s\" data-count=\"%d\" x=\"%.1f\" y=\"10\" width=\"%.1f\""
                                + " height=\"30\" fill=\"%s\"/>\n", esc(s.label()), s.count(), x, w, s.color()));
            }
            x += w;
        }
        int y = 60;
        for (Slice s : slices) {
            double pct = total == 0 ? 0 : 100.0 * s.count() / total;
            b.append(String.format(Locale.ROOT, "<rect x=\"10\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
                    + "<text x=\"30\" y=\"%d\" font-size=\"13\">%s: %d (%.1f%%)</text>\n", y, s.color(), y + 12,
                    esc(s.label()), s.count(), pct));
            y += 22;
        }
        b.append("</svg>\n");
        return b.toString();
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }
}
