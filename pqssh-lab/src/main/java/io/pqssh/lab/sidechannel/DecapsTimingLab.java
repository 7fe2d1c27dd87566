package io.pqssh.lab.sidechannel;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Statistics;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.pqssh.core.kem.KemAlgorithm;

/**
 * {@code pqssh lab decaps-timing}: JMH sample-time medians of the client's challenge answer for the eight ciphertext
 * classes, and of raw ML-KEM decapsulation for the six same-length ones; the spread is
 * {@code (max - min) / min} of the same-length medians, per path. The reference implementation saw < 0.5 %.
 */
public final class DecapsTimingLab {
    public static final double REFERENCE_SPREAD_PCT = 0.5;

    /**
     * Run settings; {@code forks == 0} runs in this JVM. Every case is measured once per round, in an order rotated
     * from round to round, and a class's median is the median of its round medians: load that drifts over minutes
     * (a shared machine) then spreads over all classes instead of favouring the ones measured in a quiet moment.
     */
    public record Settings(KemAlgorithm algorithm, int rounds, int forks, int warmupIterations, int warmupMillis,
            int iterations, int iterationMillis) {
        public static Settings standard(KemAlgorithm a) {
            return new Settings(a, 3, 1, 2, 1000, 3, 1000);
        }

        public static Settings quick(KemAlgorithm a) {
            return new Settings(a, 1, 0, 1, 100, 1, 150);
        }

        public Settings withForks(int f) {
            return new Settings(algorithm, rounds, f, warmupIterations, warmupMillis, iterations, iterationMillis);
        }

        public Settings withRounds(int r) {
            return new Settings(algorithm, r, forks, warmupIterations, warmupMillis, iterations, iterationMillis);
        }
    }

    /** One measured (path, class). Times in nanoseconds. */
    public record ClassTiming(String path, @JsonProperty("class") String ciphertextClass,
            @JsonProperty("ciphertext_bytes") int ciphertextBytes,
            @JsonProperty("same_length") boolean sameLength,
            @JsonProperty("median_ns") double medianNs, @JsonProperty("p90_ns") double p90Ns,
            @JsonProperty("mean_ns") double meanNs, long n,
            @JsonProperty("round_medians_ns") List<Double> roundMediansNs) {
    }

    /** The whole report, as written to decaps-timing.json. */
    public record Report(String algorithm, String jvm, int cpus, int rounds, int forks,
            @JsonProperty("warmup_iterations") int warmupIterations, @JsonProperty("warmup_ms") int warmupMillis,
            int iterations, @JsonProperty("iteration_ms") int iterationMillis, List<ClassTiming> results,
            @JsonProperty("client_same_length_spread_pct") double clientSpreadPct,
            @JsonProperty("raw_same_length_spread_pct") double rawSpreadPct,
            @JsonProperty("max_same_length_spread_pct") double maxSpreadPct,
            @JsonProperty("reference_spread_pct") double referenceSpreadPct) {
    }

    private DecapsTimingLab() {
    }

    /** The (path, class) pairs measured: client × 8 classes, raw × 6 same-length classes. */
    public static List<String[]> cases() {
        List<String[]> cs = new ArrayList<>();
        for (CiphertextClass c : CiphertextClass.values()) {
            cs.add(new String[] {DecapsTimingBenchmark.CLIENT, c.id()});
        }
        for (CiphertextClass c : CiphertextClass.values()) {
            if (c.sameLength()) {
                cs.add(new String[] {DecapsTimingBenchmark.RAW, c.id()});
            }
        }
        return cs;
    }

    public static Report run(Settings s, PrintStream progress) throws RunnerException {
        if (s.rounds() < 1 || s.forks() < 0 || s.iterations() < 1 || s.warmupIterations() < 0
                || s.iterationMillis() < 10) {
            throw new IllegalArgumentException("rounds >= 1, forks >= 0, iterations >= 1, iteration time >= 10 ms");
        }
        List<String[]> cases = cases();
        int k = cases.size();
        double[][] med = new double[k][s.rounds()];
        double[][] p90 = new double[k][s.rounds()];
        double[][] mean = new double[k][s.rounds()];
        long[] n = new long[k];
        int done = 0;
        for (int round = 0; round < s.rounds(); round++) {
            for (int j = 0; j < k; j++) {
                int idx = (j + round * (k / s.rounds() + 1)) % k; // rotated start each round
                String[] c = cases.get(idx);
                Statistics st = measure(s, c);
                med[idx][round] = st.getPercentile(50.0);
                p90[idx][round] = st.getPercentile(90.0);
                mean[idx][round] = st.getMean();
                n[idx] += st.getN();
                done++;
                if (progress != null) {
                    progress.printf(Locale.ROOT, "[%3d/%d] round %d %-6s %-17s median %10.0f ns (n=%d)%n", done,
                            k * s.rounds(), round + 1, c[0], c[1], med[idx][round], st.getN());
                }
            }
        }
        List<ClassTiming> out = new ArrayList<>();
        int ctBytes = s.algorithm().ciphertextBytes();
        for (int idx = 0; idx < k; idx++) {
            String[] c = cases.get(idx);
            CiphertextClass cls = CiphertextClass.parse(c[1]);
            int len = switch (cls) {
                case TRUNCATED -> ctBytes - 1;
                case EXTENDED -> ctBytes + 1;
                default -> ctBytes;
            };
            List<Double> rm = new ArrayList<>();
            for (double v : med[idx]) {
                rm.add(round(v));
            }
            out.add(new ClassTiming(c[0], c[1], len, cls.sameLength(), round(median(med[idx])),
                    round(median(p90[idx])), round(median(mean[idx])), n[idx], rm));
        }
        return report(s, out);
    }

    static double median(double[] v) {
        double[] c = v.clone();
        java.util.Arrays.sort(c);
        int m = c.length / 2;
        return c.length % 2 == 1 ? c[m] : (c[m - 1] + c[m]) / 2.0;
    }

    private static Statistics measure(Settings s, String[] c) throws RunnerException {
        OptionsBuilder ob = new OptionsBuilder();
        ob.include(Pattern.quote(DecapsTimingBenchmark.class.getName() + ".run"))
                .param("algorithm", s.algorithm().sshName()).param("path", c[0]).param("ciphertextClass", c[1])
                .mode(Mode.SampleTime).timeUnit(TimeUnit.NANOSECONDS)
                .forks(s.forks()).warmupForks(0)
                .warmupIterations(s.warmupIterations()).warmupTime(TimeValue.milliseconds(s.warmupMillis()))
                .measurementIterations(s.iterations())
                .measurementTime(TimeValue.milliseconds(s.iterationMillis()))
                .threads(1).shouldFailOnError(true)
                .jvmArgsAppend("--sun-misc-unsafe-memory-access=allow").verbosity(VerboseMode.SILENT);
        Collection<RunResult> rr = new Runner(ob.build()).run();
        if (rr.isEmpty()) {
            throw new RunnerException("JMH produced no result for " + c[0] + "/" + c[1]);
        }
        return rr.iterator().next().getPrimaryResult().getStatistics();
    }

    static Report report(Settings s, List<ClassTiming> results) {
        double client = spread(results, DecapsTimingBenchmark.CLIENT);
        double raw = spread(results, DecapsTimingBenchmark.RAW);
        return new Report(s.algorithm().sshName(), System.getProperty("java.vm.name") + " "
                + System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), s.rounds(), s.forks(),
                s.warmupIterations(), s.warmupMillis(), s.iterations(), s.iterationMillis(), List.copyOf(results),
                client, raw, Math.max(client, raw), REFERENCE_SPREAD_PCT);
    }

    /** {@code (max - min) / min * 100} over the same-length medians of one path (3 decimals). */
    static double spread(List<ClassTiming> results, String path) {
        double min = Double.MAX_VALUE;
        double max = 0;
        int n = 0;
        for (ClassTiming t : results) {
            if (t.path().equals(path) && t.sameLength()) {
                min = Math.min(min, t.medianNs());
                max = Math.max(max, t.medianNs());
                n++;
            }
        }
        if (n < 2 || min <= 0) {
            throw new IllegalStateException("need at least two same-length classes on path " + path);
        }
        return round((max - min) / min * 100.0);
    }

    static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }

    /** Writes decaps-timing.json and decaps-timing.md into {@code dir}. */
    public static void write(Path dir, Report r) throws IOException {
        Files.createDirectories(dir);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(dir.resolve("decaps-timing.json").toFile(), r);
        Files.writeString(dir.resolve("decaps-timing.md"), markdown(r));
    }

    public static String markdown(Report r) {
        StringBuilder md = new StringBuilder("# Decapsulation timing by ciphertext class (pqssh lab decaps-timing)\n\n");
        md.append(String.format(Locale.ROOT, "%s, JMH sample time, %d round(s) (median of the round medians), %d fork(s) x %d x %d ms after %d x %d ms warm-up,"
                + " one thread, %s, %d CPUs. `client` = `KemAuthClient.respond` (checks + decapsulation + HMAC);"
                + " `raw` = `MlKem.decapsulate`. Times in microseconds.%n%n", r.algorithm(), r.rounds(), r.forks(),
                r.iterations(), r.iterationMillis(), r.warmupIterations(), r.warmupMillis(), r.jvm(), r.cpus()));
        md.append("| class | ct bytes | client median | client p90 | raw median | raw p90 |\n");
        md.append("|---|---:|---:|---:|---:|---:|\n");
        for (CiphertextClass c : CiphertextClass.values()) {
            ClassTiming cl = find(r, DecapsTimingBenchmark.CLIENT, c.id());
            ClassTiming raw = find(r, DecapsTimingBenchmark.RAW, c.id());
            md.append("| ").append(c.id()).append(" | ").append(cl != null ? cl.ciphertextBytes() : "")
                    .append(" | ").append(us(cl, true)).append(" | ").append(us(cl, false)).append(" | ")
                    .append(raw == null ? "rejected before decapsulation" : us(raw, true)).append(" | ")
                    .append(raw == null ? "" : us(raw, false)).append(" |\n");
        }
        md.append(String.format(Locale.ROOT, "%nMax spread of the medians between the six same-length classes: client"
                + " %.3f %%, raw %.3f %% (reference implementation: < %.1f %%).%n", r.clientSpreadPct(),
                r.rawSpreadPct(), r.referenceSpreadPct()));
        return md.toString();
    }

    private static ClassTiming find(Report r, String path, String cls) {
        return r.results().stream().filter(t -> t.path().equals(path) && t.ciphertextClass().equals(cls))
                .findFirst().orElse(null);
    }

    private static String us(ClassTiming t, boolean median) {
        return t == null ? "" : String.format(Locale.ROOT, "%.3f", (median ? t.medianNs() : t.p90Ns()) / 1000.0);
    }
}
