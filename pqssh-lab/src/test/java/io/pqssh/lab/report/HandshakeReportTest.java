package io.pqssh.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.Range;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Plots and tables of the handshake report: a series with a single x value (one RTT, or loopback mode, where every
 * setting is 0) gets a readable axis range and drawn points, not JFreeChart's empty frame with ±5E-9 ticks; the
 * Markdown tables come out sorted by suite, configuration, peer and initcwnd, not in run order.
 */
class HandshakeReportTest {
    private static final double NAN = Double.NaN;

    private static Map<String, Object> row(String config, String peer, double rtt, int iw, double p50,
            double bytes) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("suite", "fig5");
        m.put("config", config);
        m.put("peer", peer);
        m.put("rtt_ms", rtt);
        m.put("loss_pct", 0.0);
        m.put("initcwnd", iw);
        m.put("n", 10);
        Map<String, Double> total = Map.of("p5", p50 - 1, "p50", p50, "p95", p50 + 1, "p99", p50 + 1, "mean", p50);
        m.put("auth_ms", total);
        m.put("total_ms", total);
        m.put("bytes_c2s", bytes);
        m.put("bytes_s2c", bytes);
        m.put("round_trips", 6.0);
        m.put("retransmissions", 0.0);
        m.put("errors", 0);
        m.put("link_ms", Map.of("p5", NAN, "p50", Double.isNaN(bytes) ? NAN : p50, "p95", NAN, "p99", NAN,
                "mean", NAN));
        Map<String, Double> wire = new LinkedHashMap<>();
        for (String c : io.pqssh.lab.handshake.SshWire.columns()) {
            wire.put(c, Double.isNaN(bytes) ? NAN : bytes / 16);
        }
        m.put("wire_bytes", wire);
        m.put("published_p50_ms", null);
        return m;
    }

    @Test
    void aSingleValueSeriesHasAReadableRangeAndDrawnPoints() {
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        series.put("ed25519", List.of(new double[] {67, 420.5}));
        series.put("md65 (openssh)", List.of(new double[] {67, 1114.4}));
        JFreeChart chart = HandshakeReport.xyChart("t", "RTT (ms)", series);
        XYPlot plot = chart.getXYPlot();
        Range x = plot.getDomainAxis().getRange();
        assertTrue(x.getLength() >= 2 && x.contains(67) && x.getLowerBound() < 67 - 1e-3
                && x.getUpperBound() > 67 + 1e-3, "x range " + x);
        Range y = plot.getRangeAxis().getRange();
        assertEquals(0, y.getLowerBound());
        assertTrue(y.getUpperBound() > 1114.4 && y.getUpperBound() < 2000, "y range " + y);
        assertTrue(plot.getRenderer() instanceof XYLineAndShapeRenderer r && r.getDefaultShapesVisible(),
                "points must be drawn: a single point has no line");

        // loopback: every x is 0
        Range zero = HandshakeReport.xyChart("t", "RTT (ms)", Map.of("a", List.of(new double[] {0, 12})))
                .getXYPlot().getDomainAxis().getRange();
        assertTrue(zero.getLength() >= 2 && zero.contains(0), "x range " + zero);

        String svg = Svg.lines("t", "RTT (ms)", "ms", series);
        List<double[]> circles = new ArrayList<>();
        Matcher c = Pattern.compile("<circle cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"").matcher(svg);
        while (c.find()) {
            circles.add(new double[] {Double.parseDouble(c.group(1)), Double.parseDouble(c.group(2))});
        }
        assertEquals(2, circles.size(), svg);
        for (double[] p : circles) {
            // inside the plot area (x 80..640, y 40..460), the single x value in the middle, not on an edge
            assertTrue(p[0] > 300 && p[0] < 420 && p[1] > 40 && p[1] < 460, svg);
        }
        assertTrue(circles.get(0)[1] > circles.get(1)[1], "420 ms plotted below 1114 ms");
        Matcher ticks = Pattern.compile("text-anchor=\"middle\">([-0-9.]+)</text>").matcher(svg);
        List<String> xTicks = new ArrayList<>();
        while (ticks.find()) {
            xTicks.add(ticks.group(1));
        }
        assertTrue(xTicks.contains("67") && xTicks.stream().distinct().count() == xTicks.size(), xTicks.toString());
    }

    @Test
    void tablesAreSortedByConfigurationPeerAndInitcwnd() {
        List<Map<String, Object>> runOrder = List.of(
                row("mk768+md65", "pqssh", 67, 40, 421, 5204), row("ed25519+ed25519", "pqssh", 67, 10, 420, 3968),
                row("mk768+md65", "pqssh", 67, 3, 430, 5204), row("ed25519+ed25519", "openssh", 67, 5, 1114, 4173),
                row("ed25519+ed25519", "pqssh", 67, 3, 419, 3968), row("mk768+md65", "pqssh", 67, 10, 420, 5204));
        String md = HandshakeReport.markdown(runOrder, List.of(), false);
        List<String> rows = new ArrayList<>();
        for (String line : md.split("\n")) {
            if (line.startsWith("| fig5 |")) {
                String[] f = line.split("\\s*\\|\\s*");
                rows.add(f[2] + " " + f[3] + " " + f[6]);
            }
        }
        assertEquals(List.of("ed25519+ed25519 openssh 5", "ed25519+ed25519 pqssh 3", "ed25519+ed25519 pqssh 10",
                "mk768+md65 pqssh 3", "mk768+md65 pqssh 10", "mk768+md65 pqssh 40"), rows, md);
        // Figure 5 layout: numeric IW order (3 before 10), configurations sorted
        int iw3 = md.indexOf("| pqssh RTT 67.0, loss 0.0, IW 3 |");
        int iw10 = md.indexOf("| pqssh RTT 67.0, loss 0.0, IW 10 |");
        int iw40 = md.indexOf("| pqssh RTT 67.0, loss 0.0, IW 40 |");
        assertTrue(iw3 > 0 && iw3 < iw10 && iw10 < iw40, md);
        assertTrue(md.contains("| setting | ed25519+ed25519 | mk768+md65 |"), md);
    }

    @Test
    void rewriteFromSummaryJsonWritesEveryPlotAndSaysWhyLoopbackHasNoBytes(@TempDir Path dir) throws Exception {
        List<Map<String, Object>> loopback = List.of(row("ed25519", "pqssh", 0, 10, 12.5, NAN),
                row("md65", "pqssh", 0, 10, 14.0, NAN));
        new ObjectMapper().writeValue(dir.resolve("summary.json").toFile(), loopback);
        HandshakeReport.rewrite(dir);
        for (String f : List.of("report.md", "latency-vs-rtt.png", "latency-vs-rtt.svg", "latency-vs-initcwnd.png",
                "latency-vs-loss.svg", "bytes.png", "bytes.svg")) {
            assertTrue(Files.size(dir.resolve(f)) > 100, f);
        }
        assertTrue(Files.readString(dir.resolve("report.md")).startsWith("# pqssh handshake lab\n\nLoopback mode"));
        assertTrue(Files.readString(dir.resolve("bytes.svg")).contains(HandshakeReport.NO_BYTES));
        Range y = HandshakeReport.bytesChart(HandshakeReport.byteBars(loopback)).getCategoryPlot().getRangeAxis()
                .getRange();
        assertEquals(new Range(0, 1), y);
        assertTrue(Files.readString(dir.resolve("latency-vs-rtt.svg")).contains("<circle"));
    }
}
