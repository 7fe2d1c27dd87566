package io.pqssh.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.pqssh.inventory.report.ScanCounters;
import io.pqssh.inventory.report.ScanSink;
import io.pqssh.inventory.report.ScanSinks;
import io.pqssh.inventory.scan.ScanResult;
import picocli.CommandLine.Option;

/** The report outputs shared by {@code pqssh scan} and {@code pqssh audit} (a picocli mixin). */
final class ReportOptions {
    @Option(names = "--json", paramLabel = "FILE", description = "JSON report (- for stdout)")
    String json;

    @Option(names = "--jsonl", paramLabel = "FILE", description = "JSON Lines: one target per line (- for stdout)")
    String jsonl;

    @Option(names = "--csv", paramLabel = "FILE", description = "CSV report (- for stdout)")
    String csv;

    @Option(names = "--sarif", paramLabel = "FILE", description = "SARIF 2.1.0 report (- for stdout)")
    String sarif;

    @Option(names = "--html", paramLabel = "FILE", description = "self-contained HTML report (- for stdout)")
    String html;

    @Option(names = "--cbom", paramLabel = "FILE",
            description = "CycloneDX 1.6 CBOM: algorithms, keys and SSH use per target (- for stdout)")
    String cbom;

    @Option(names = "--store", paramLabel = "PATH|JDBC_URL",
            description = "append this run to a history database: a SQLite file, or a jdbc:postgresql: URL")
    String store;

    @Option(names = {"-q", "--quiet"}, description = "no table on stdout")
    boolean quiet;

    /** The terminal table is printed unless asked not to or a report goes to stdout. */
    boolean printTable() {
        boolean stdoutTaken = "-".equals(json) || "-".equals(jsonl) || "-".equals(csv) || "-".equals(sarif)
                || "-".equals(html) || "-".equals(cbom);
        return !quiet && !stdoutTaken;
    }

    /** Writes each requested report; the suppliers run only for the formats asked for. */
    void write(Supplier<String> jsonReport, Supplier<String> csvReport, Supplier<String> sarifReport,
            Supplier<String> htmlReport, Supplier<String> cbomReport) throws IOException {
        if (jsonl != null) {
            throw new IllegalArgumentException("--jsonl is for scans; use --json");
        }
        write(json, jsonReport);
        write(csv, csvReport);
        write(sarif, sarifReport);
        write(html, htmlReport);
        write(cbom, cbomReport);
    }

    private static void write(String dest, Supplier<String> content) throws IOException {
        if (dest == null) {
            return;
        }
        String text = content.get();
        if (dest.equals("-")) {
            System.out.print(text);
        } else {
            try {
                Files.writeString(Path.of(dest), text, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new OutputFailure(dest, e);
            }
        }
    }

    /** A report file could not be written: not the input's fault (exit 3). */
    static final class OutputFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OutputFailure(String what, IOException e) {
            super("cannot write " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * The streaming scan reports asked for, each writing as results arrive: one sink feeding all of them, plus the
     * terminal table when {@link #printTable()}.
     */
    Streaming openScan(String source) throws IOException, io.pqssh.inventory.store.Store.StoreException {
        Streaming s = new Streaming();
        try {
            java.util.function.Supplier<List<io.pqssh.inventory.report.HtmlReport.TrendRun>> trend = null;
            if (store != null) {
                io.pqssh.inventory.store.Store st = io.pqssh.inventory.store.Store.open(store);
                s.store = st;
                // first, so that the run is stored when the HTML report asks for the trend
                s.add("-", "--store " + st.display(), o -> io.pqssh.inventory.store.StoreSinks.scan(st, source),
                        false);
                trend = () -> trend(st);
            }
            s.add(json, "--json", ScanSinks::jsonDocument);
            s.add(jsonl, "--jsonl", ScanSinks::jsonLines);
            s.add(csv, "--csv", ScanSinks::csv);
            s.add(sarif, "--sarif", ScanSinks::sarif);
            java.util.function.Supplier<List<io.pqssh.inventory.report.HtmlReport.TrendRun>> t = trend;
            s.add(html, "--html", o -> ScanSinks.html(o, t));
            s.add(cbom, "--cbom", io.pqssh.inventory.cbom.Cboms::scan);
            if (printTable()) {
                s.add("-", "the table", o -> ScanSinks.table(o));
            }
        } catch (IOException | RuntimeException | io.pqssh.inventory.store.Store.StoreException e) {
            s.close();
            throw e;
        }
        return s;
    }

    static List<io.pqssh.inventory.report.HtmlReport.TrendRun> trend(io.pqssh.inventory.store.Store st) {
        try {
            List<io.pqssh.inventory.report.HtmlReport.TrendRun> out = new ArrayList<>();
            for (io.pqssh.inventory.store.History.Point p : new io.pqssh.inventory.store.History(st).trend()) {
                out.add(new io.pqssh.inventory.report.HtmlReport.TrendRun("#" + p.run() + " "
                        + p.started().substring(0, Math.min(10, p.started().length())), p.counts()));
            }
            return out;
        } catch (io.pqssh.inventory.store.Store.StoreException e) {
            throw new OutputFailure("--html trend", new IOException(e.getMessage(), e));
        }
    }

    /** Appends an audit to the store, when one is given. */
    void storeAudit(List<io.pqssh.inventory.audit.Finding> findings, String source)
            throws io.pqssh.inventory.store.Store.StoreException {
        if (store == null) {
            return;
        }
        try (io.pqssh.inventory.store.Store st = io.pqssh.inventory.store.Store.open(store)) {
            try {
                io.pqssh.inventory.store.StoreSinks.audit(st, findings, source);
            } catch (IOException e) {
                throw new OutputFailure("--store " + st.display(), e);
            }
        }
    }

    interface Opener {
        ScanSink open(OutputStream o) throws IOException;
    }

    /** All open scan reports. */
    static final class Streaming implements AutoCloseable {
        private final List<ScanSink> sinks = new ArrayList<>();
        private final List<String> names = new ArrayList<>();
        private final List<OutputStream> owned = new ArrayList<>();
        private io.pqssh.inventory.store.Store store;

        private void add(String dest, String what, Opener opener) throws IOException {
            add(dest, what, opener, true);
        }

        private void add(String dest, String what, Opener opener, boolean isFile) throws IOException {
            if (dest == null) {
                return;
            }
            if (!isFile) {
                sinks.add(opener.open(null));
                names.add(what);
                return;
            }
            OutputStream o;
            if (dest.equals("-")) {
                o = System.out;
            } else {
                try {
                    o = new BufferedOutputStream(Files.newOutputStream(Path.of(dest)), 1 << 16);
                } catch (IOException e) {
                    throw new OutputFailure(what + " " + dest, e);
                }
                owned.add(o);
            }
            sinks.add(opener.open(o));
            names.add(what + (dest.equals("-") ? "" : " " + dest));
        }

        void accept(ScanResult r) {
            for (int i = 0; i < sinks.size(); i++) {
                try {
                    sinks.get(i).accept(r);
                } catch (IOException e) {
                    throw new OutputFailure(names.get(i), e);
                }
            }
        }

        void finish(ScanCounters c) {
            for (int i = 0; i < sinks.size(); i++) {
                try {
                    sinks.get(i).finish(c);
                } catch (IOException e) {
                    throw new OutputFailure(names.get(i), e);
                }
            }
            for (OutputStream o : owned) {
                try {
                    o.flush();
                } catch (IOException e) {
                    throw new OutputFailure("a report", e);
                }
            }
        }

        @Override
        public void close() {
            for (ScanSink s : sinks) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // reported by finish when it mattered
                }
            }
            for (OutputStream o : owned) {
                try {
                    o.close();
                } catch (IOException ignored) {
                    // as above
                }
            }
            if (store != null) {
                try {
                    store.close();
                } catch (io.pqssh.inventory.store.Store.StoreException ignored) {
                    // the run was committed at finish, or it failed and said so
                }
            }
            System.out.flush();
        }
    }
}
