package io.pqssh.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.inventory.report.FailOn;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.store.History;
import io.pqssh.inventory.store.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pqssh inventory runs|diff|trend}: the history that {@code scan --store} and {@code audit --store} append to.
 * ({@code pqssh inventory} with anything else is {@code pqssh scan}.)
 */
@Command(name = "inventory", mixinStandardHelpOptions = true,
        subcommands = {InventoryCommand.Runs.class, InventoryCommand.Diff.class, InventoryCommand.Trend.class},
        description = {"The scan history in a store (scan/audit --store): runs, what changed, the trend.",
                "Exit: 0 ok, 2 usage or store error."})
public final class InventoryCommand implements Runnable {
    /** The subcommands; {@code pqssh inventory X} with another X is {@code pqssh scan X}. */
    static final List<String> NAMES = List.of("runs", "diff", "trend");

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "give runs, diff or trend");
    }

    abstract static class Base implements Callable<Integer> {
        @Option(names = "--store", required = true, paramLabel = "PATH|JDBC_URL",
                description = "the history database (a SQLite file or a jdbc:postgresql: URL)")
        String store;

        @Option(names = "--json", description = "JSON Lines on stdout: one object per line")
        boolean json;

        @Spec
        CommandSpec spec;

        final PrintStream out = System.out;

        @Override
        public Integer call() {
            String name = "pqssh inventory " + spec.name();
            if (!store.startsWith("jdbc:") && !java.nio.file.Files.isRegularFile(java.nio.file.Path.of(store))) {
                // reading must not create an empty database where the user mistyped a path
                System.err.println(name + ": no store " + store);
                return FailOn.EXIT_USAGE;
            }
            try (Store s = Store.open(store)) {
                return run(new History(s));
            } catch (Store.StoreException e) {
                System.err.println(name + ": " + e.getMessage());
                return FailOn.EXIT_USAGE;
            } catch (java.io.IOException e) {
                System.err.println(name + ": " + Errors.describe(e));
                return FailOn.EXIT_INTERNAL;
            } finally {
                out.flush();
            }
        }

        abstract int run(History h) throws Store.StoreException, java.io.IOException;

        JsonGenerator lines() throws java.io.IOException {
            JsonGenerator g = new ObjectMapper().getFactory().createGenerator(out);
            g.setPrettyPrinter(new MinimalPrettyPrinter("\n"));
            return g;
        }

        static String table(List<List<String>> rows) {
            int[] w = new int[rows.get(0).size()];
            for (List<String> r : rows) {
                for (int i = 0; i < r.size(); i++) {
                    w[i] = Math.max(w[i], r.get(i).length());
                }
            }
            StringBuilder b = new StringBuilder();
            for (List<String> r : rows) {
                for (int i = 0; i < r.size(); i++) {
                    b.append(i == r.size() - 1 ? r.get(i) : String.format(Locale.ROOT, "%-" + w[i] + "s  ", r.get(i)));
                }
                b.append('\n');
            }
            return b.toString();
        }
    }

    @Command(name = "runs", mixinStandardHelpOptions = true, description = "The runs in the store, oldest first.")
    static final class Runs extends Base {
        @Override
        int run(History h) throws Store.StoreException, java.io.IOException {
            List<History.Run> runs = h.runs();
            if (json) {
                try (JsonGenerator g = lines()) {
                    for (History.Run r : runs) {
                        g.writeStartObject();
                        g.writeNumberField("run", r.id());
                        g.writeStringField("kind", r.kind());
                        g.writeStringField("started", r.started());
                        g.writeStringField("finished", r.finished());
                        g.writeStringField("source", r.source());
                        if (r.total() == null) {
                            g.writeNullField("total");
                        } else {
                            g.writeNumberField("total", r.total());
                        }
                        g.writeObjectFieldStart("summary");
                        for (Map.Entry<String, Long> e : summary(r.summary()).entrySet()) {
                            g.writeNumberField(e.getKey(), e.getValue());
                        }
                        g.writeEndObject();
                        g.writeEndObject();
                    }
                    g.writeRaw('\n');
                }
                return 0;
            }
            List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("RUN", "KIND", "STARTED", "TOTAL", "SOURCE", "SUMMARY"));
            for (History.Run r : runs) {
                rows.add(List.of(Long.toString(r.id()), r.kind(), r.started(),
                        r.finished() == null ? "(unfinished)" : Long.toString(r.total()),
                        r.source() == null ? "" : r.source(), r.summary() == null ? "" : nonZero(r.summary())));
            }
            out.print(table(rows));
            return 0;
        }

        /** The summary without its zero counts, for the table (--json has them all). */
        static String nonZero(String s) {
            StringBuilder b = new StringBuilder();
            summary(s).forEach((k, v) -> {
                if (v != 0 && !k.equals("total")) {
                    b.append(b.isEmpty() ? "" : " ").append(k).append('=').append(v);
                }
            });
            return b.toString();
        }

        static Map<String, Long> summary(String s) {
            Map<String, Long> m = new LinkedHashMap<>();
            if (s != null && !s.isEmpty()) {
                for (String kv : s.split(",")) {
                    int eq = kv.indexOf('=');
                    m.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
                }
            }
            return m;
        }
    }

    @Command(name = "diff", mixinStandardHelpOptions = true,
            description = {"What changed between two scan runs (default: the last two; one RUN: from it to the last):",
                    "targets that became pq-ready, regressed, appeared, disappeared, changed category, changed keys."})
    static final class Diff extends Base {
        @Parameters(arity = "0..2", paramLabel = "RUN", description = "run numbers (pqssh inventory runs)")
        List<Long> runs = new ArrayList<>();

        @Override
        int run(History h) throws Store.StoreException, java.io.IOException {
            long a;
            long b;
            if (runs.size() == 2) {
                a = runs.get(0);
                b = runs.get(1);
            } else {
                List<Long> last = h.latestScans(2);
                if (runs.size() == 1) {
                    if (last.isEmpty()) {
                        throw new Store.StoreException("no scan runs in the store");
                    }
                    a = runs.get(0);
                    b = last.get(last.size() - 1);
                } else {
                    if (last.size() < 2) {
                        throw new Store.StoreException("diff needs two scan runs; the store has " + last.size());
                    }
                    a = last.get(0);
                    b = last.get(1);
                }
            }
            Map<String, Long> counts = new LinkedHashMap<>();
            History.CHANGES.forEach(c -> counts.put(c, 0L));
            if (json) {
                try (JsonGenerator g = lines()) {
                    h.diff(a, b, c -> {
                        counts.merge(c.change(), 1L, Long::sum);
                        g.writeStartObject();
                        g.writeStringField("target", c.target());
                        g.writeStringField("change", c.change());
                        g.writeStringField("before", c.before());
                        g.writeStringField("after", c.after());
                        g.writeNumberField("runBefore", a);
                        g.writeNumberField("runAfter", b);
                        strings(g, "keysAdded", c.keysAdded());
                        strings(g, "keysRemoved", c.keysRemoved());
                        g.writeEndObject();
                    });
                    g.writeRaw('\n');
                }
            } else {
                out.print(table(List.of(List.of("CHANGE", "TARGET", "BEFORE", "AFTER", "KEYS"))));
                h.diff(a, b, c -> {
                    counts.merge(c.change(), 1L, Long::sum);
                    String keys = (c.keysAdded().isEmpty() ? "" : "+" + String.join(" +", c.keysAdded()))
                            + (c.keysRemoved().isEmpty() ? "" : (c.keysAdded().isEmpty() ? "" : " ") + "-"
                                    + String.join(" -", c.keysRemoved()));
                    out.println(String.join("  ", c.change(), c.target(), c.before() == null ? "-" : c.before(),
                            c.after() == null ? "-" : c.after(), keys));
                });
                StringBuilder line = new StringBuilder("run " + a + " -> run " + b + ":");
                counts.forEach((k, v) -> line.append(' ').append(k).append(' ').append(v).append(','));
                line.setLength(line.length() - 1);
                out.println(line);
            }
            return 0;
        }

        private static void strings(JsonGenerator g, String field, List<String> l) throws java.io.IOException {
            g.writeArrayFieldStart(field);
            for (String s : l) {
                g.writeString(s);
            }
            g.writeEndArray();
        }
    }

    @Command(name = "trend", mixinStandardHelpOptions = true,
            description = "The share of targets in each category, per scan run.")
    static final class Trend extends Base {
        @Override
        int run(History h) throws Store.StoreException, java.io.IOException {
            List<History.Point> points = h.trend();
            if (json) {
                try (JsonGenerator g = lines()) {
                    for (History.Point p : points) {
                        g.writeStartObject();
                        g.writeNumberField("run", p.run());
                        g.writeStringField("started", p.started());
                        g.writeNumberField("total", p.total());
                        g.writeObjectFieldStart("counts");
                        for (String c : ScanResult.CATEGORIES) {
                            g.writeNumberField(c, p.counts().getOrDefault(c, 0L));
                        }
                        g.writeEndObject();
                        g.writeObjectFieldStart("shares");
                        for (String c : ScanResult.CATEGORIES) {
                            g.writeNumberField(c, Math.round(p.share(c) * 10000) / 10000.0);
                        }
                        g.writeEndObject();
                        g.writeEndObject();
                    }
                    g.writeRaw('\n');
                }
                return 0;
            }
            List<List<String>> rows = new ArrayList<>();
            List<String> head = new ArrayList<>(List.of("RUN", "STARTED", "TOTAL"));
            head.addAll(ScanResult.CATEGORIES);
            rows.add(head);
            for (History.Point p : points) {
                List<String> r = new ArrayList<>(List.of(Long.toString(p.run()), p.started(),
                        Long.toString(p.total())));
                for (String c : ScanResult.CATEGORIES) {
                    r.add(String.format(Locale.ROOT, "%.1f%%", 100 * p.share(c)));
                }
                rows.add(r);
            }
            out.print(table(rows));
            return 0;
        }
    }
}
