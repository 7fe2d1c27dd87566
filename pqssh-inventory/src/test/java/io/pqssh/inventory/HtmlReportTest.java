package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.report.HtmlReport;
import io.pqssh.inventory.report.Summary;
import io.pqssh.inventory.report.TableReport;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Zgrab2Reader;

/** The HTML report's legend says what the text summary says, and its layout is bounded to the page width. */
class HtmlReportTest {
    private static final Pattern LEGEND = Pattern.compile(
            "<text class=\"legend\" data-label=\"([^\"]+)\" data-count=\"(\\d+)\"");

    static Map<String, Long> legend(String html) {
        Map<String, Long> m = new LinkedHashMap<>();
        Matcher x = LEGEND.matcher(html);
        while (x.find()) {
            m.put(x.group(1), Long.parseLong(x.group(2)));
        }
        return m;
    }

    @Test
    void auditLegendAgreesWithTheTextSummary() {
        List<Finding> f = new ArrayList<>();
        f.add(Finding.config(Finding.Rules.WEAK_ALGORITHM_CONFIG, "warning", "/etc/ssh/sshd_config", 3, "weak"));
        f.add(Finding.config(Finding.Rules.UNREADABLE, "note", "/x", 0, "cannot read"));
        f.add(Finding.config(Finding.Rules.INVALID_CONFIG, "error", "/etc/ssh/sshd_config", 5, "invalid"));
        f.add(Finding.config(Finding.Rules.CLASSICAL_KEX_CONFIG, "error", "/etc/ssh/sshd_config", 1, "pin"));
        String html = HtmlReport.audit(f);
        Map<String, Long> legend = legend(html);
        assertEquals(Finding.Rules.ALL.size(), legend.size(), legend.toString());
        assertEquals(f.size(), legend.values().stream().mapToLong(Long::longValue).sum(),
                "every finding is in exactly one legend entry (the shares add up to the total)");
        String text = TableReport.audit(f);
        String line = text.lines().reduce((a, b) -> b).orElseThrow();
        assertEquals(Summary.auditLine(f), line);
        for (Map.Entry<String, Long> e : legend.entrySet()) {
            assertTrue(line.contains(e.getValue() + " " + e.getKey()), e + " not in the text summary: " + line);
        }
        assertTrue(html.contains("<p class=\"summary\">" + line + "</p>"), "the page prints the same line");
    }

    @Test
    void scanLegendAgreesWithTheTextSummary() throws Exception {
        List<ScanResult> rs;
        try (InputStream in = getClass().getResourceAsStream(Zgrab2ReaderTest.FIXTURE)) {
            rs = Zgrab2ReaderTest.read(in).results();
        }
        String html = HtmlReport.scan(rs);
        Map<String, Long> legend = legend(html);
        assertEquals(ScanResult.CATEGORIES, List.copyOf(legend.keySet()));
        assertEquals(rs.size(), legend.values().stream().mapToLong(Long::longValue).sum());
        String line = TableReport.scan(rs).lines().reduce((a, b) -> b).orElseThrow();
        for (Map.Entry<String, Long> e : legend.entrySet()) {
            if (e.getValue() > 0) {
                assertTrue(line.contains(e.getValue() + " " + e.getKey()), e + " not in: " + line);
            }
        }
        assertTrue(html.contains(line.replace("&", "&amp;")), "the page prints the same line");
    }

    @Test
    void layoutIsBoundedToThePageWidth() {
        String html = HtmlReport.audit(List.of(Finding.config(Finding.Rules.UNREADABLE, "note",
                "/" + "very-long-path-segment/".repeat(40) + "authorized_keys", 1, "x".repeat(2000))));
        assertTrue(html.contains("max-width:1248px") && html.contains("table-layout:fixed")
                && html.contains("overflow-wrap:anywhere") && html.contains("svg{max-width:100%"), html);
        assertTrue(html.contains("viewBox=\"0 0 1020 "), "the chart scales instead of overflowing");
    }
}
