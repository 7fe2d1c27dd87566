package io.pqssh.inventory.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pqssh.inventory.scan.ScanResult;

/**
 * Aggregate counts of a scan, updated per result as it streams by: all that the summary, the HTML chart and
 * {@code --fail-on} need, so no result has to be kept. Also the first {@value #KEPT_BAD_RECORDS} bad input records
 * (file:line and why); later ones are only counted. Thread-safe.
 */
public final class ScanCounters {
    public static final int KEPT_BAD_RECORDS = 100;

    /** One input record that could not be read; the rest of the input went on. */
    public record BadRecord(String source, long line, String error) {
        @Override
        public String toString() {
            return source + ":" + line + ": " + error;
        }
    }

    private long total;
    private final Map<String, Long> categories = new LinkedHashMap<>();
    private long weak;
    private long strictKex;
    private long pqHostKey;
    private long noPqHostKey;
    private long byBanner;
    private long byErrorText;
    private long badRecords;
    private long policyChecked;
    private long policyFailed;
    private final List<BadRecord> kept = new ArrayList<>();

    public ScanCounters() {
        for (String c : ScanResult.CATEGORIES) {
            categories.put(c, 0L);
        }
    }

    public static ScanCounters of(List<ScanResult> results) {
        ScanCounters c = new ScanCounters();
        results.forEach(c::add);
        return c;
    }

    public synchronized void add(ScanResult r) {
        total++;
        categories.merge(r.category(), 1L, Long::sum);
        var c = r.classification();
        if (c != null) {
            if (!c.weak().isEmpty()) {
                weak++;
            }
            if (c.strictKex()) {
                strictKex++;
            }
            if (!c.pqHostKeysOffered().isEmpty()) {
                pqHostKey++;
            } else if (r.kexInit() != null && !r.kexInit().hostKey().isEmpty()) {
                noPqHostKey++;
            }
        }
        if (r.policyFailures() != null && r.status() == ScanResult.Status.SSH) {
            policyChecked++;
            if (!r.policyFailures().isEmpty()) {
                policyFailed++;
            }
        }
        switch (r.evidence()) {
            case BANNER -> byBanner++;
            case ERROR_TEXT -> byErrorText++;
            default -> {
                // counted by category
            }
        }
    }

    public synchronized void badRecord(BadRecord b) {
        badRecords++;
        if (kept.size() < KEPT_BAD_RECORDS) {
            kept.add(b);
        }
    }

    public synchronized long total() {
        return total;
    }

    public synchronized long category(String c) {
        return categories.getOrDefault(c, 0L);
    }

    public synchronized long badRecords() {
        return badRecords;
    }

    public synchronized List<BadRecord> keptBadRecords() {
        return Collections.unmodifiableList(new ArrayList<>(kept));
    }

    /** Targets a {@code --fail-on} condition counts. */
    public synchronized long failOnCount(FailOn f) {
        return switch (f) {
            // non-standard PQ names are not negotiated: clients fall back to a classical exchange
            case CLASSICAL_KEX -> category("classical-only") + category("non-standard-pq");
            case CLASSICAL_KEYS -> noPqHostKey;
            case WEAK -> weak;
            case UNREACHABLE -> category("unreachable") + category("not-ssh") + category("scan-error");
            case POLICY -> policyFailed;
        };
    }

    /**
     * The summary object: total, one count per category, weak, strict-kex, pq-host-key, evidence-banner (hello-only
     * records classified by the software version), evidence-error-text, bad-records.
     */
    public synchronized Map<String, Long> summary() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("total", total);
        m.putAll(categories);
        m.put("weak", weak);
        m.put("strict-kex", strictKex);
        m.put("pq-host-key", pqHostKey);
        m.put("evidence-banner", byBanner);
        m.put("evidence-error-text", byErrorText);
        m.put("bad-records", badRecords);
        if (policyChecked > 0) {
            m.put("policy-checked", policyChecked);
            m.put("policy-failed", policyFailed);
        }
        return m;
    }

    /** "N targets: a pq-ready, b non-standard-pq, ..." (categories with a zero count after classical-only omitted). */
    public synchronized String line() {
        StringBuilder b = new StringBuilder().append(total).append(" targets: ");
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, Long> e : categories.entrySet()) {
            boolean always = List.of("pq-ready", "classical-only", "not-ssh", "unreachable").contains(e.getKey());
            if (always || e.getValue() > 0) {
                parts.add(e.getValue() + " " + e.getKey());
            }
        }
        b.append(String.join(", ", parts));
        if (byBanner > 0) {
            b.append("; ").append(byBanner).append(" by banner only (hello-only)");
        }
        if (policyChecked > 0) {
            b.append("; policy: ").append(policyChecked - policyFailed).append(" of ").append(policyChecked)
                    .append(" SSH servers comply");
        }
        if (badRecords > 0) {
            b.append("; ").append(badRecords).append(" bad input record(s) skipped");
        }
        return b.toString();
    }
}
