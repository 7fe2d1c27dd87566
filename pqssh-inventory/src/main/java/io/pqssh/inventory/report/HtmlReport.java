package io.pqssh.inventory.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.ScanResult;

/**
 * A self-contained HTML page (no scripts, no external resources) with an inline SVG summary chart, the text summary
 * line and a table. It fits a 1280 px wide window: the chart scales to the page width, the table has a fixed layout
 * and long cells (algorithm lists, fingerprints) wrap. The legend has one entry per category or rule with the same
 * counts and labels as the text summary line printed under it.
 */
public final class HtmlReport {
    record Slice(String label, long count, String color) {
    }

    static final List<String> SCAN_HEAD = List.of("target", "class", "software / error", "OpenSSH 10 negotiates",
            "pqssh negotiates", "PQ KEX offered", "PQ host keys", "strict KEX", "weak", "readiness",
            "host certificates");
    static final List<String> AUDIT_HEAD = List.of("severity", "rule", "location", "type", "bits", "fingerprint",
            "comment", "host", "message");
    static final String TAIL = "</tbody></table>\n</body></html>\n";

    private static final Map<String, String> SCAN_COLORS = Map.of("pq-ready", "#2e7d32", "non-standard-pq",
            "#f9a825", "classical-only", "#c62828", "unknown", "#5c6bc0", "not-ssh", "#8d6e63", "unreachable",
            "#9e9e9e", "scan-error", "#212121");
    private static final Map<String, String> AUDIT_COLORS = Map.ofEntries(
            Map.entry(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, "#b71c1c"), Map.entry(Finding.Rules.CLASSICAL_CA, "#880e4f"),
            Map.entry(Finding.Rules.WEAK_KEY, "#e65100"),
            Map.entry(Finding.Rules.CLASSICAL_KEY, "#ef5350"), Map.entry(Finding.Rules.PQ_KEY, "#2e7d32"),
            Map.entry(Finding.Rules.CLASSICAL_KEX_CONFIG, "#6a1b9a"), Map.entry(Finding.Rules.PQ_KEX_REMOVED, "#8e24aa"),
            Map.entry(Finding.Rules.WEAK_ALGORITHM_CONFIG, "#ab47bc"), Map.entry(Finding.Rules.INVALID_CONFIG, "#37474f"),
            Map.entry(Finding.Rules.IGNORED_CONFIG, "#cfd8dc"), Map.entry(Finding.Rules.EXPIRED_KEY, "#90a4ae"),
            Map.entry(Finding.Rules.UNREADABLE, "#bdbdbd"));

    private HtmlReport() {
    }

    public static String scan(List<ScanResult> results) {
        return ScanSinks.render(results, ScanSinks::html);
    }

    static List<Slice> scanSlices(ScanCounters c) {
        List<Slice> s = new ArrayList<>();
        for (String cat : ScanResult.CATEGORIES) {
            s.add(new Slice(cat, c.category(cat), SCAN_COLORS.get(cat)));
        }
        return s;
    }

    static List<String> scanCells(ScanResult r) {
        var c = r.classification();
        String evidence = r.evidence() == ScanResult.Evidence.BANNER ? " (banner only)"
                : r.evidence() == ScanResult.Evidence.ERROR_TEXT ? " (from zgrab2 error)" : "";
        return List.of(r.target().toString(), r.category() + evidence,
                r.software() != null ? r.software() : ScanSinks.nz(r.error()),
                c == null ? "" : ScanSinks.nz(c.openssh10Negotiates()), c == null ? "" : ScanSinks.nz(c.pqsshNegotiates()),
                c == null ? "" : String.join(", ", c.pqKexOffered()),
                c == null ? "" : String.join(", ", c.pqHostKeysOffered()),
                c == null ? "" : (c.strictKex() ? "yes" : "no"), c == null ? "" : String.join(", ", c.weak()),
                readiness(r), String.join("; ", r.hostKeys().stream().filter(h -> h.certificate() != null)
                        .map(h -> h.certificate().summary() + (h.certificate().classicalCa()
                                ? " (classical-ca: a quantum-vulnerable CA vouches for a post-quantum key)" : ""))
                        .toList()));
    }

    /** The readiness level, and what the user authentication probe found when it ran. */
    static String readiness(ScanResult r) {
        if (r.readiness() == null) {
            return "";
        }
        if (r.auth() == null) {
            return r.readiness();
        }
        ScanResult.UserAuth a = r.auth();
        return r.readiness() + (a.error() != null ? " (auth probe: " + a.error() + ")"
                : " (user auth: " + String.join(", ", a.methods())
                        + (a.pqSigAlgs().isEmpty() ? "" : "; PQ signatures " + String.join(", ", a.pqSigAlgs())) + ")");
    }

    public static String audit(List<Finding> findings) {
        Map<String, Integer> s = Summary.ofAudit(findings);
        List<Slice> slices = new ArrayList<>();
        for (String r : Finding.Rules.ALL) {
            slices.add(new Slice(Summary.label(r), s.get(r), AUDIT_COLORS.get(r)));
        }
        StringBuilder b = new StringBuilder(head("pqssh audit: " + findings.size() + " findings", slices,
                Summary.auditLine(findings), AUDIT_HEAD));
        for (Finding f : findings) {
            row(b, List.of(f.severity(), f.rule(), f.file() + (f.line() > 0 ? ":" + f.line() : ""),
                    ScanSinks.nz(f.keyType()), f.bits() == null ? "" : f.bits().toString(),
                    ScanSinks.nz(f.fingerprint()), ScanSinks.nz(f.comment()), ScanSinks.nz(f.host()), f.message()), 1);
        }
        return b.append(TAIL).toString();
    }

    /** Everything before the table rows: title, chart, summary line, table head. */
    static String head(String title, List<Slice> slices, String summaryLine, List<String> head) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width\"><title>").append(esc(title))
                .append("</title>\n<style>body{font-family:sans-serif;margin:16px;max-width:1248px}"
                        + "svg{max-width:100%;height:auto}"
                        + "table{border-collapse:collapse;table-layout:fixed;width:100%}"
                        + "td,th{border:1px solid #ccc;padding:3px 5px;font-size:12px;text-align:left;"
                        + "vertical-align:top;overflow-wrap:anywhere;word-break:break-word}"
                        + "th{background:#eee}.pq-ready{color:#2e7d32}.classical-only{color:#c62828}"
                        + "p.summary{font-size:14px}</style>"
                        + "</head><body>\n<h1>").append(esc(title)).append("</h1>\n");
        b.append(chart(slices));
        b.append("<p class=\"summary\">").append(esc(summaryLine)).append("</p>\n");
        b.append("<table><thead><tr>");
        for (String h : head) {
            b.append("<th>").append(esc(h)).append("</th>");
        }
        b.append("</tr></thead><tbody>\n");
        return b.toString();
    }

    static void row(StringBuilder b, List<String> r, int classColumn) {
        b.append("<tr>");
        for (int i = 0; i < r.size(); i++) {
            b.append(i == classColumn ? "<td class=\"" + esc(r.get(i)) + "\">" : "<td>").append(esc(r.get(i)))
                    .append("</td>");
        }
        b.append("</tr>\n");
    }

    /** A stacked horizontal bar with a legend giving every slice's count and share (zero ones too). */
    static String chart(List<Slice> slices) {
        long total = slices.stream().mapToLong(Slice::count).sum();
        int width = 1000;
        int height = 60 + 22 * slices.size();
        StringBuilder b = new StringBuilder();
        b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width + 20).append("\" height=\"")
                .append(height).append("\" viewBox=\"0 0 ").append(width + 20).append(' ').append(height)
                .append("\" role=\"img\" aria-label=\"summary\">\n");
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
                    + "<text class=\"legend\" data-label=\"%s\" data-count=\"%d\" x=\"30\" y=\"%d\" font-size=\"13\">"
                    + "%s: %d (%.1f%%)</text>\n", y, s.color(), esc(s.label()), s.count(), y + 12, esc(s.label()),
                    s.count(), pct));
            y += 22;
        }
        b.append("</svg>\n");
        return b.toString();
    }

    /** One run of the trend chart: its label (run number and date) and its count per scan category. */
    public record TrendRun(String label, Map<String, Long> counts) {
        long total() {
            return counts.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * The trend of a fleet (the runs in a store): one 100 % stacked column per run, the scan categories in report
     * order, the pq-ready share written above each column. The last {@value #TREND_RUNS} runs.
     */
    static String trendChart(List<TrendRun> all) {
        List<TrendRun> runs = all.subList(Math.max(0, all.size() - TREND_RUNS), all.size());
        int barH = 200;
        int colW = Math.max(24, Math.min(80, 960 / Math.max(1, runs.size())));
        int width = 40 + colW * runs.size() + 20;
        int height = barH + 80;
        StringBuilder b = new StringBuilder();
        b.append("<h2>Trend</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width)
                .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(width).append(' ')
                .append(height).append("\" role=\"img\" aria-label=\"trend\">\n");
        for (int i = 0; i < runs.size(); i++) {
            TrendRun r = runs.get(i);
            long total = r.total();
            double x = 40 + i * colW;
            double y = 30 + barH;
            for (String cat : ScanResult.CATEGORIES) {
                long n = r.counts().getOrDefault(cat, 0L);
                double h = total == 0 ? 0 : (double) barH * n / total;
                if (h > 0) {
                    y -= h;
                    b.append(String.format(Locale.ROOT, "<rect class=\"trend\" data-run=\"%s\" data-label=\"%s\""
                            + " data-count=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>\n",
                            esc(r.label()), esc(cat), n, x, y, colW - 6, h, SCAN_COLORS.get(cat)));
                }
            }
            double ready = total == 0 ? 0 : 100.0 * r.counts().getOrDefault("pq-ready", 0L) / total;
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"24\" font-size=\"11\">%.0f%%</text>\n", x,
                    ready));
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%s</text>\n", x,
                    barH + 48, esc(r.label())));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"%d\" font-size=\"11\">pq-ready share above each"
                + " run; colours as the chart above</text>\n", barH + 70));
        b.append("</svg>\n");
        return b.toString();
    }

    static final int TREND_RUNS = 24;

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }
}
