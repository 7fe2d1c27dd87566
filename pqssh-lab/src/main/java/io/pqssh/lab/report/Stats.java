package io.pqssh.lab.report;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** Percentiles by nearest rank (index ceil(p·n), as the KEMUAuth artifact) and the mean. */
public final class Stats {
    private Stats() {
    }

    public static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
    }

    /** {p5, p50, p95, p99, mean}. */
    public static Map<String, Double> summary(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("p5", round(percentile(v, 0.05)));
        m.put("p50", round(percentile(v, 0.50)));
        m.put("p95", round(percentile(v, 0.95)));
        m.put("p99", round(percentile(v, 0.99)));
        m.put("mean", round(v.length == 0 ? Double.NaN : Arrays.stream(v).average().orElse(Double.NaN)));
        return m;
    }

    static double round(double x) {
        return Double.isNaN(x) ? x : Math.round(x * 1000.0) / 1000.0;
    }

    public static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return percentile(v, 0.5);
    }
}
