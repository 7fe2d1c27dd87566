package io.pqssh.lab.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.pqssh.lab.handshake.HandshakeConfig;
import io.pqssh.lab.handshake.Published;
import io.pqssh.lab.handshake.Sample;
import io.pqssh.lab.handshake.SshWire;

/** Writes raw.csv, summary.json, report.md and the plots (PNG via jfreechart, SVG via {@link Svg}). */
public final class HandshakeReport {
    /** Output file names. */
    public static final List<String> FILES = List.of("raw.csv", "summary.json", "report.md",
            "latency-vs-rtt.png", "latency-vs-rtt.svg", "latency-vs-initcwnd.png", "latency-vs-initcwnd.svg",
            "latency-vs-loss.png", "latency-vs-loss.svg", "bytes.png", "bytes.svg");
    private static final List<String> STACKS = List.of("version lines", "KEXINIT", "KEX init (c→s)",
            "KEX reply: host key, signature (s→c)", "NEWKEYS", "other plaintext", "encrypted to auth (userauth …)",
            "encrypted after auth (channel, true, close)");

    private HandshakeReport() {
    }

    public static void write(Path dir, List<Sample> all, List<HandshakeConfig> configs, boolean loopback)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(dir);
        writeCsv(dir.resolve("raw.csv"), all);
        List<Map<String, Object>> summary = summary(all);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("summary.json").toFile(),
                summary);
        Files.writeString(dir.resolve("report.md"), markdown(summary, configs, loopback), StandardCharsets.UTF_8);
        plots(dir, summary);
    }

    /**
     * Writes report.md and the plots again from a directory's summary.json (e.g. a run committed under
     * docs/results), with this version's tables and plots; raw.csv and summary.json are left as they are.
     */
    public static void rewrite(Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Path file = dir.resolve("summary.json");
        if (!Files.isRegularFile(file)) {
            throw new IOException("no summary.json in " + dir + " (a lab handshake output directory)");
        }
        ObjectMapper json = new ObjectMapper().enable(
                com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS.mappedFeature());
        List<Map<String, Object>> summary = json.readValue(file.toFile(),
                new com.fasterxml.jackson.core.type.TypeReference<List<Map<String, Object>>>() { });
        // loopback runs measure no link: link times are NaN throughout
        boolean loopback = !summary.isEmpty() && summary.stream().allMatch(m -> Double.isNaN(p(m, "link_ms", "p50")));
        Files.writeString(dir.resolve("report.md"), markdown(summary, List.of(), loopback), StandardCharsets.UTF_8);
        plots(dir, summary);
    }

    /** Table order: suite, configuration, peer, initcwnd, RTT, loss (not run order). */
    static final java.util.Comparator<Map<String, Object>> TABLE_ORDER = java.util.Comparator
            .<Map<String, Object>, String>comparing(m -> String.valueOf(m.get("suite")))
            .thenComparing(m -> String.valueOf(m.get("config")))
            .thenComparing(m -> String.valueOf(m.get("peer")))
            .thenComparingDouble(m -> num(m, "initcwnd"))
            .thenComparingDouble(m -> num(m, "rtt_ms"))
            .thenComparingDouble(m -> num(m, "loss_pct"));

    static String csv(Object o) {
        String s = o instanceof Double d ? (d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString(d.longValue())
                : String.format(Locale.ROOT, "%.3f", d)) : String.valueOf(o);
        return s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    private static void writeCsv(Path file, List<Sample> all) throws IOException {
        StringBuilder b = new StringBuilder(String.join(",", Sample.COLUMNS)).append('\n');
        for (Sample s : all) {
            Object[] v = s.values();
            for (int i = 0; i < v.length; i++) {
                b.append(i == 0 ? "" : ",").append(csv(v[i]));
            }
            b.append('\n');
        }
        Files.writeString(file, b, StandardCharsets.UTF_8);
    }

    private static double[] col(List<Sample> s, ToDoubleFunction<Sample> f) {
        return s.stream().mapToDouble(f).toArray();
    }

    /** One object per configuration × network setting × peer (counted, successful samples). */
    public static List<Map<String, Object>> summary(List<Sample> all) {
        Map<String, List<Sample>> groups = new LinkedHashMap<>();
        Map<String, Integer> errors = new LinkedHashMap<>();
        for (Sample s : all) {
            if (s.warmup()) {
                continue;
            }
            groups.computeIfAbsent(s.key(), k -> new ArrayList<>());
            if (s.ok()) {
                groups.get(s.key()).add(s);
            } else {
                errors.merge(s.key(), 1, Integer::sum);
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map.Entry<String, List<Sample>> e : groups.entrySet()) {
            List<Sample> g = e.getValue();
            Sample f = all.stream().filter(s -> s.key().equals(e.getKey())).findFirst().orElseThrow();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("suite", f.suite());
            m.put("config", f.config());
            m.put("peer", f.peer());
            m.put("rtt_ms", f.rttMs());
            m.put("loss_pct", f.lossPct());
            m.put("initcwnd", f.initcwnd());
            m.put("n", g.size());
            m.put("auth_ms", Stats.summary(col(g, Sample::authMs)));
            m.put("total_ms", Stats.summary(col(g, Sample::totalMs)));
            m.put("bytes_c2s", Stats.median(col(g, s -> s.bytesC2s())));
            m.put("bytes_s2c", Stats.median(col(g, s -> s.bytesS2c())));
            m.put("round_trips", Stats.median(col(g, s -> s.roundTrips())));
            m.put("retransmissions", Stats.round(g.stream().mapToLong(Sample::retransmissions).average().orElse(0)));
            m.put("errors", errors.getOrDefault(e.getKey(), 0));
            m.put("link_ms", Stats.summary(col(g, Sample::linkMs)));
            m.put("client_auth_ms", Stats.summary(col(g, Sample::clientAuthMs)));
            m.put("bytes_c2s_auth", Stats.median(col(g, s -> s.bytesC2sAuth())));
            m.put("bytes_s2c_auth", Stats.median(col(g, s -> s.bytesS2cAuth())));
            m.put("packets_c2s", Stats.median(col(g, s -> s.packetsC2s())));
            m.put("packets_s2c", Stats.median(col(g, s -> s.packetsS2c())));
            m.put("round_trips_auth", Stats.median(col(g, s -> s.roundTripsAuth())));
            m.put("kex", g.isEmpty() ? "" : g.get(0).kex());
            m.put("hostkey_type", g.isEmpty() ? "" : g.get(0).hostKeyType());
            m.put("method", f.method());
            Map<String, Double> wire = new LinkedHashMap<>();
            String[] wc = SshWire.columns();
            for (int i = 0; i < wc.length; i++) {
                int k = i;
                wire.put(wc[i], Stats.median(g.stream().filter(x -> x.wire() != null).mapToDouble(x -> x.wire()[k])
                        .toArray()));
            }
            m.put("wire_bytes", wire);
            m.put("published_p50_ms", Published.p50(f.suite(), f.config(), f.rttMs(), f.lossPct(), f.initcwnd()));
            out.add(m);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static double p(Map<String, Object> m, String key, String stat) {
        return number(((Map<String, Object>) m.get(key)).get(stat));
    }

    /** A number of a summary row; Jackson writes NaN as the string "NaN". */
    private static double num(Map<String, Object> m, String key) {
        return number(m.get(key));
    }

    private static double number(Object v) {
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        if (v instanceof String s) {
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }

    private static String bytes(double d) {
        return Double.isNaN(d) ? "–" : Long.toString(Math.round(d));
    }

    private static String fmt(double d) {
        return Double.isNaN(d) ? "–" : String.format(Locale.ROOT, "%.1f", d);
    }

    static String markdown(List<Map<String, Object>> runOrder, List<HandshakeConfig> configs, boolean loopback) {
        List<Map<String, Object>> summary = runOrder.stream().sorted(TABLE_ORDER).toList();
        StringBuilder b = new StringBuilder("# pqssh handshake lab\n\n");
        b.append(loopback ? "Loopback mode: no emulated link; times are the client's own clock (connect() to auth "
                + "success / end of `true`), bytes are not measured.\n\n"
                : "Times: from the link emulator's timestamp of the connection's first SYN to the client's auth "
                + "success (auth) and to the end of `true` (total), on one CLOCK_MONOTONIC; percentiles by nearest "
                + "rank. Published: the KEMUAuth paper's P50 of a whole `ssh … true` process (OQS-OpenSSH, "
                + "netem on loopback), so it includes process start-up and differs in machine and emulation.\n\n");
        b.append("| suite | config | peer | RTT | loss % | IW | n | auth P50 | total P5 | total P50 | total P95 | published P50 "
                + "| bytes c→s | bytes s→c | round trips | retx/conn |\n");
        b.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map<String, Object> m : summary) {
            Object pub = m.get("published_p50_ms");
            b.append("| ").append(m.get("suite")).append(" | ").append(m.get("config")).append(" | ")
                    .append(m.get("peer")).append(" | ").append(fmt(num(m, "rtt_ms"))).append(" | ").append(m.get("loss_pct")).append(" | ")
                    .append(m.get("initcwnd")).append(" | ").append(m.get("n")).append(" | ")
                    .append(fmt(p(m, "auth_ms", "p50"))).append(" | ").append(fmt(p(m, "total_ms", "p5"))).append(" | ")
                    .append(fmt(p(m, "total_ms", "p50"))).append(" | ").append(fmt(p(m, "total_ms", "p95")))
                    .append(" | ").append(pub instanceof Number n ? fmt(n.doubleValue()) : "–").append(" | ")
                    .append(bytes(num(m, "bytes_c2s"))).append(" | ").append(bytes(num(m, "bytes_s2c"))).append(" | ")
                    .append(fmt(num(m, "round_trips"))).append(" | ").append(m.get("retransmissions")).append(" |\n");
        }
        b.append("\n## Where the bytes go (TCP payload, median; first setting per configuration)\n\n")
                .append("| config | peer | version c→s/s→c | KEXINIT c→s/s→c | KEX init c→s | KEX reply s→c "
                        + "| encrypted to auth c→s/s→c | after auth c→s/s→c |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Map<String, Object> m : summary) {
            if (!seen.add(m.get("config") + "/" + m.get("peer"))) {
                continue;
            }
            java.util.function.Function<String, String> v = k -> {
                double d = wire(m, k);
                return Double.isNaN(d) || d < 0 ? "–" : Long.toString(Math.round(d));
            };
            b.append("| ").append(m.get("config")).append(" | ").append(m.get("peer")).append(" | ")
                    .append(v.apply("version_c2s")).append('/').append(v.apply("version_s2c")).append(" | ")
                    .append(v.apply("kexinit_c2s")).append('/').append(v.apply("kexinit_s2c")).append(" | ")
                    .append(v.apply("kex_init_c2s")).append(" | ").append(v.apply("kex_reply_s2c")).append(" | ")
                    .append(v.apply("enc_to_auth_c2s")).append('/').append(v.apply("enc_to_auth_s2c")).append(" | ")
                    .append(v.apply("enc_after_auth_c2s")).append('/').append(v.apply("enc_after_auth_s2c"))
                    .append(" |\n");
        }
        // Figure 5 layout: rows initcwnd, columns configurations, P5/P50/P95 (published P50)
        List<Map<String, Object>> fig5 = summary.stream().filter(m -> "fig5".equals(m.get("suite"))).toList();
        if (!fig5.isEmpty()) {
            List<String> names = fig5.stream().map(m -> (String) m.get("config")).distinct().sorted().toList();
            // rows in numeric order of the setting (a string key would put IW 10 before IW 3)
            Map<String, Map<String, String>> rows = new LinkedHashMap<>();
            List<Map<String, Object>> byRow = fig5.stream().sorted(java.util.Comparator
                    .<Map<String, Object>, String>comparing(m -> String.valueOf(m.get("peer")))
                    .thenComparingDouble(m -> num(m, "rtt_ms")).thenComparingDouble(m -> num(m, "loss_pct"))
                    .thenComparingDouble(m -> num(m, "initcwnd"))).toList();
            for (Map<String, Object> m : byRow) {
                String row = String.format(Locale.ROOT, "%s RTT %s, loss %s, IW %d", m.get("peer"),
                        fmt(num(m, "rtt_ms")), m.get("loss_pct"), (int) num(m, "initcwnd"));
                Object pub = m.get("published_p50_ms");
                rows.computeIfAbsent(row, k -> new LinkedHashMap<>()).put((String) m.get("config"),
                        fmt(p(m, "total_ms", "p5")) + "/" + fmt(p(m, "total_ms", "p50")) + "/"
                                + fmt(p(m, "total_ms", "p95"))
                                + (pub instanceof Number n ? " (" + fmt(n.doubleValue()) + ")" : "")
                                + ", " + fmt(num(m, "round_trips")) + " RT");
            }
            b.append("\n## Figure 5 layout (total P5/P50/P95 ms, published P50 in parentheses, round trips)\n\n| setting |");
            names.forEach(n -> b.append(' ').append(n).append(" |"));
            b.append("\n|---|").append("---|".repeat(names.size())).append('\n');
            for (Map.Entry<String, Map<String, String>> r : rows.entrySet()) {
                b.append("| ").append(r.getKey().replaceAll("\\s+", " ")).append(" |");
                names.forEach(n -> b.append(' ').append(r.getValue().getOrDefault(n, "–")).append(" |"));
                b.append('\n');
            }
        }
        List<HandshakeConfig> skipped = configs.stream().filter(c -> !c.supported()).toList();
        if (!skipped.isEmpty()) {
            b.append("\n## Not run\n\n");
            skipped.forEach(c -> b.append("- ").append(c.name()).append(": unsupported: ").append(c.unsupported())
                    .append('\n'));
        }
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static double wire(Map<String, Object> m, String column) {
        Object w = m.get("wire_bytes");
        return number(w instanceof Map<?, ?> map ? ((Map<String, Object>) map).get(column) : null);
    }

    private static void plots(Path dir, List<Map<String, Object>> runOrder) throws IOException {
        List<Map<String, Object>> summary = runOrder.stream().sorted(TABLE_ORDER).toList();
        xy(dir, "latency-vs-rtt", "Handshake latency vs RTT (P50, total)", "RTT (ms)", summary, "rtt_ms");
        xy(dir, "latency-vs-initcwnd", "Handshake latency vs initcwnd (P50, total)", "initcwnd (MSS)", summary,
                "initcwnd");
        xy(dir, "latency-vs-loss", "Handshake latency vs loss (P50, total)", "loss (%)", summary, "loss_pct");
        Map<String, double[]> bars = byteBars(summary);
        JFreeChart chart = bytesChart(bars);
        ChartUtils.saveChartAsPNG(dir.resolve("bytes.png").toFile(), chart, 1000, 560);
        Files.writeString(dir.resolve("bytes.svg"), Svg.stackedBars("SSH bytes per configuration by message (median)",
                "bytes", STACKS, bars, bars.values().stream().allMatch(HandshakeReport::allZero) ? NO_BYTES : null));
    }

    static final String NO_BYTES = "no byte counts: loopback mode measures none";

    private static boolean allZero(double[] v) {
        return java.util.Arrays.stream(v).allMatch(x -> x == 0);
    }

    /** TCP payload bytes per configuration (and peer), stacked by SSH message type; the first network setting. */
    static Map<String, double[]> byteBars(List<Map<String, Object>> summary) {
        Map<String, double[]> bars = new LinkedHashMap<>();
        int parts = SshWire.PARTS.size();
        for (Map<String, Object> m : summary) {
            String c = seriesLabel(m);
            if (bars.containsKey(c)) {
                continue;
            }
            double[] v = new double[parts];
            String[] wc = SshWire.columns();
            for (int i = 0; i < parts; i++) {
                double a = wire(m, wc[i]);
                double b = wire(m, wc[parts + i]);
                v[i] = (Double.isNaN(a) || a < 0 ? 0 : a) + (Double.isNaN(b) || b < 0 ? 0 : b);
            }
            bars.put(c, v);
        }
        return bars;
    }

    static JFreeChart bytesChart(Map<String, double[]> bars) {
        DefaultCategoryDataset ds = new DefaultCategoryDataset();
        bars.forEach((c, v) -> {
            for (int i = 0; i < v.length; i++) {
                ds.addValue(v[i], STACKS.get(i), c);
            }
        });
        JFreeChart chart = ChartFactory.createStackedBarChart("SSH bytes per configuration by message (median)",
                "configuration", "bytes", ds, PlotOrientation.VERTICAL, true, false, false);
        org.jfree.chart.plot.CategoryPlot plot = chart.getCategoryPlot();
        readable(plot);
        plot.getDomainAxis().setCategoryLabelPositions(org.jfree.chart.axis.CategoryLabelPositions.UP_45);
        double max = bars.values().stream().mapToDouble(v -> java.util.Arrays.stream(v).sum()).max().orElse(0);
        // all zero (loopback: nothing measured) would leave a degenerate axis; say why the bars are missing
        plot.getRangeAxis().setRange(0, max > 0 ? max * 1.1 : 1);
        if (max <= 0) {
            chart.addSubtitle(new org.jfree.chart.title.TextTitle(NO_BYTES));
        }
        return chart;
    }

    /** A summary row's configuration, with the peer unless it is pqssh → pqssh. */
    static String seriesLabel(Map<String, Object> m) {
        return m.get("config") + ("pqssh".equals(m.get("peer")) ? "" : " (" + m.get("peer") + ")");
    }

    /** Series label → points {x, y} (median of y per x: other settings than x vary too), NaN y left out. */
    static Map<String, List<double[]>> series(List<Map<String, Object>> summary, String xKey) {
        Map<String, Map<Double, List<Double>>> byLabel = new LinkedHashMap<>();
        for (Map<String, Object> m : summary) {
            double y = p(m, "total_ms", "p50");
            if (Double.isNaN(y)) {
                continue;
            }
            // one line per configuration and peer: a median over peers would mix pqssh's and OpenSSH's times
            byLabel.computeIfAbsent(seriesLabel(m), k -> new TreeMap<>())
                    .computeIfAbsent(num(m, xKey), k -> new ArrayList<>()).add(y);
        }
        Map<String, List<double[]>> out = new LinkedHashMap<>();
        byLabel.forEach((label, byX) -> {
            List<double[]> pts = new ArrayList<>();
            byX.forEach((x, ys) -> pts.add(new double[] {x, Stats.median(ys.stream().mapToDouble(Double::doubleValue)
                    .toArray())}));
            out.put(label, pts);
        });
        return out;
    }

    /**
     * An axis range that shows every value: a single value (one RTT, or loopback's zeros) sits in the middle of a
     * range of ±max(1, 25 %) instead of JFreeChart's ±5E-9 around it.
     */
    static double[] axisRange(double min, double max, boolean fromZero) {
        if (min > max) {
            return new double[] {0, 1};
        }
        if (fromZero && min >= 0) {
            return new double[] {0, max > 0 ? max * 1.1 : 1};
        }
        if (max == min) {
            double pad = Math.max(1, Math.abs(min) * 0.25);
            return new double[] {min - pad, max + pad};
        }
        double pad = (max - min) * 0.05;
        return new double[] {min - pad, max + pad};
    }

    static JFreeChart xyChart(String title, String xLabel, Map<String, List<double[]>> series) {
        XYSeriesCollection ds = new XYSeriesCollection();
        double xMin = Double.MAX_VALUE;
        double xMax = -Double.MAX_VALUE;
        double yMax = -Double.MAX_VALUE;
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            XYSeries s = new XYSeries(e.getKey());
            for (double[] pt : e.getValue()) {
                s.add(pt[0], pt[1]);
                xMin = Math.min(xMin, pt[0]);
                xMax = Math.max(xMax, pt[0]);
                yMax = Math.max(yMax, pt[1]);
            }
            ds.addSeries(s);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, "ms", ds, PlotOrientation.VERTICAL, true,
                false, false);
        org.jfree.chart.plot.XYPlot plot = chart.getXYPlot();
        readable(plot);
        // points drawn, not only lines: a series with one x value has no line to draw
        org.jfree.chart.renderer.xy.XYLineAndShapeRenderer r = new org.jfree.chart.renderer.xy.XYLineAndShapeRenderer(
                true, true);
        plot.setRenderer(r);
        double[] x = axisRange(xMin, xMax, false);
        double[] y = axisRange(0, yMax, true);
        plot.getDomainAxis().setRange(x[0], x[1]);
        plot.getRangeAxis().setRange(y[0], y[1]);
        return chart;
    }

    private static void readable(org.jfree.chart.plot.Plot plot) {
        plot.setBackgroundPaint(java.awt.Color.WHITE);
        if (plot instanceof org.jfree.chart.plot.XYPlot xy) {
            xy.setDomainGridlinePaint(java.awt.Color.LIGHT_GRAY);
            xy.setRangeGridlinePaint(java.awt.Color.LIGHT_GRAY);
        } else if (plot instanceof org.jfree.chart.plot.CategoryPlot c) {
            c.setRangeGridlinePaint(java.awt.Color.LIGHT_GRAY);
        }
    }

    private static void xy(Path dir, String name, String title, String xLabel, List<Map<String, Object>> summary,
            String xKey) throws IOException {
        Map<String, List<double[]>> series = series(summary, xKey);
        ChartUtils.saveChartAsPNG(dir.resolve(name + ".png").toFile(), xyChart(title, xLabel, series), 1000, 560);
        Files.writeString(dir.resolve(name + ".svg"), Svg.lines(title, xLabel, "ms", series));
    }
}
