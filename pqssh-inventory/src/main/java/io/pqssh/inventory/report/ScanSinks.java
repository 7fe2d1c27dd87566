package io.pqssh.inventory.report;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;

import io.pqssh.inventory.scan.Algorithms;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.ScanResult;

/** The streaming scan reports: JSON document, JSON Lines, CSV, SARIF, HTML and the terminal table. */
public final class ScanSinks {
    static final JsonFactory JSON = JsonFactory.builder()
            .disable(com.fasterxml.jackson.core.StreamWriteFeature.AUTO_CLOSE_TARGET).build();

    private ScanSinks() {
    }

    /** The JSON document of schema {@value JsonReport#SCHEMA}: targets as they come, summary at the end. */
    public static ScanSink jsonDocument(OutputStream out) throws IOException {
        JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8);
        g.setPrettyPrinter(new DefaultPrettyPrinter());
        g.writeStartObject();
        g.writeStringField("schema", JsonReport.SCHEMA);
        g.writeStringField("kind", "scan");
        g.writeStringField("generated", Instant.now().toString());
        g.writeStringField("tool", "pqssh 0.1.0");
        g.writeArrayFieldStart("targets");
        return new ScanSink() {
            /** Why each flagged algorithm was flagged: once per document instead of once per target. */
            private final java.util.Map<String, Algorithms.Weakness> notes = new java.util.TreeMap<>();

            @Override
            public void accept(ScanResult r) throws IOException {
                TargetJson.write(g, r);
                if (r.kexInit() != null && r.classification() != null && notes.size() < MAX_NOTES) {
                    for (Algorithms.Weakness w : io.pqssh.inventory.scan.KexCache.of(r.kexInit()).weaknesses()) {
                        notes.putIfAbsent(w.kind() + ":" + w.name(), w);
                    }
                }
            }

            @Override
            public void finish(ScanCounters c) throws IOException {
                g.writeEndArray();
                g.writeObjectFieldStart("summary");
                for (var e : c.summary().entrySet()) {
                    g.writeNumberField(e.getKey(), e.getValue());
                }
                TargetJson.strings(g, "openssh10ClientKex", Algorithms.OPENSSH10_CLIENT_KEX);
                TargetJson.strings(g, "pqsshKex", Algorithms.PQSSH_KEX);
                g.writeEndObject();
                g.writeObjectFieldStart("algorithmNotes");
                for (var e : notes.entrySet()) {
                    g.writeObjectFieldStart(e.getKey());
                    g.writeStringField("severity", e.getValue().severity());
                    g.writeStringField("reason", e.getValue().reason());
                    g.writeEndObject();
                }
                g.writeEndObject();
                g.writeArrayFieldStart("badRecords");
                for (ScanCounters.BadRecord b : c.keptBadRecords()) {
                    g.writeStartObject();
                    g.writeStringField("source", b.source());
                    g.writeNumberField("line", b.line());
                    g.writeStringField("error", b.error());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
                g.writeRaw('\n');
                g.flush();
            }

            @Override
            public void close() throws IOException {
                g.close();
            }
        };
    }

    /** JSON Lines: one TARGET object per line, written as each result arrives. */
    public static ScanSink jsonLines(OutputStream out) throws IOException {
        JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8);
        g.setPrettyPrinter(new MinimalPrettyPrinter("\n"));
        return new ScanSink() {
            @Override
            public void accept(ScanResult r) throws IOException {
                TargetJson.write(g, r);
            }

            @Override
            public void finish(ScanCounters c) throws IOException {
                g.writeRaw('\n');
                g.flush();
            }

            @Override
            public void close() throws IOException {
                g.close();
            }
        };
    }

    /** RFC 4180 CSV, header first. */
    public static ScanSink csv(OutputStream out) throws IOException {
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        StringBuilder b = new StringBuilder();
        CsvReport.row(b, CsvReport.SCAN_COLUMNS);
        w.write(b.toString());
        return new ScanSink() {
            private final StringBuilder sb = new StringBuilder(512);

            @Override
            public void accept(ScanResult r) throws IOException {
                sb.setLength(0);
                CsvReport.row(sb, CsvReport.scanCells(r));
                w.write(sb.toString());
            }

            @Override
            public void finish(ScanCounters c) throws IOException {
                w.flush();
            }

            @Override
            public void close() throws IOException {
                w.flush();
            }
        };
    }

    /** SARIF 2.1.0: the rules first, results as they come, the summary in the run's properties at the end. */
    public static ScanSink sarif(OutputStream out) throws IOException {
        JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8);
        g.setPrettyPrinter(new DefaultPrettyPrinter());
        SarifReport.Streaming s = SarifReport.begin(g, SarifReport.SCAN_RULES);
        return new ScanSink() {
            @Override
            public void accept(ScanResult r) throws IOException {
                for (SarifReport.Item i : SarifReport.scanItems(r)) {
                    s.result(i);
                }
            }

            @Override
            public void finish(ScanCounters c) throws IOException {
                s.end(c.summary());
                g.writeRaw('\n');
                g.flush();
            }

            @Override
            public void close() throws IOException {
                g.close();
            }
        };
    }

    /**
     * The self-contained HTML page. The chart and summary depend on the totals, so the table rows go to a temporary
     * file first and are copied after the chart at the end: memory stays constant, disk holds the rows once.
     */
    public static ScanSink html(OutputStream out) throws IOException {
        return html(out, null);
    }

    /**
     * The HTML page with a trend chart after the summary: {@code trend} is asked at the end (after the store has the
     * run), null for none.
     */
    public static ScanSink html(OutputStream out, java.util.function.Supplier<List<HtmlReport.TrendRun>> trend)
            throws IOException {
        Path rows = Files.createTempFile("pqssh-scan-rows", ".html");
        Writer tmp = Files.newBufferedWriter(rows, StandardCharsets.UTF_8);
        return new ScanSink() {
            private final StringBuilder sb = new StringBuilder(512);

            @Override
            public void accept(ScanResult r) throws IOException {
                sb.setLength(0);
                HtmlReport.row(sb, HtmlReport.scanCells(r), 1);
                tmp.write(sb.toString());
            }

            @Override
            public void finish(ScanCounters c) throws IOException {
                tmp.close();
                Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
                String head = HtmlReport.head("pqssh scan: " + c.total() + " targets", HtmlReport.scanSlices(c),
                        c.line(), HtmlReport.SCAN_HEAD);
                if (trend != null) {
                    int table = head.indexOf("<table>");
                    head = head.substring(0, table) + HtmlReport.trendChart(trend.get()) + head.substring(table);
                }
                w.write(head);
                w.flush();
                Files.copy(rows, out);
                w.write(HtmlReport.TAIL);
                w.flush();
            }

            @Override
            public void close() throws IOException {
                tmp.close();
                Files.deleteIfExists(rows);
            }
        };
    }

    /**
     * The terminal table. Column widths come from the first {@value #WIDTH_SAMPLE} rows (buffered); later rows use
     * them, cells cut with {@code ~}. The summary line ends it.
     */
    public static ScanSink table(OutputStream out) {
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        return new ScanSink() {
            private final List<List<String>> sample = new ArrayList<>();
            private int[] widths;

            @Override
            public void accept(ScanResult r) throws IOException {
                for (List<String> row : TableReport.scanRows(r)) {
                    if (widths == null) {
                        sample.add(row);
                        if (sample.size() >= WIDTH_SAMPLE) {
                            flushSample();
                        }
                    } else {
                        w.write(TableReport.line(row, widths));
                    }
                }
            }

            private void flushSample() throws IOException {
                List<List<String>> all = new ArrayList<>();
                all.add(TableReport.SCAN_HEADER);
                all.addAll(sample);
                widths = TableReport.widths(all);
                for (List<String> row : all) {
                    w.write(TableReport.line(row, widths));
                }
                sample.clear();
            }

            @Override
            public void finish(ScanCounters c) throws IOException {
                if (widths == null) {
                    flushSample();
                }
                w.write(c.line() + "\n");
                w.flush();
            }

            @Override
            public void close() throws IOException {
                w.flush();
            }
        };
    }

    static final int WIDTH_SAMPLE = 1000;
    /** Distinct flagged algorithm names explained in a JSON document (hostile servers can invent names). */
    static final int MAX_NOTES = 4096;

    /** Runs results through a sink and returns what it wrote (for the list-based report methods). */
    static String render(List<ScanResult> results, SinkFactory f) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        try (ScanSink s = f.open(o)) {
            ScanCounters c = new ScanCounters();
            for (ScanResult r : results) {
                c.add(r);
                s.accept(r);
            }
            s.finish(c);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return o.toString(StandardCharsets.UTF_8);
    }

    interface SinkFactory {
        ScanSink open(OutputStream o) throws IOException;
    }

    static String nz(String s) {
        return s == null ? "" : s;
    }

    static Classification c(ScanResult r) {
        return r.classification();
    }
}
