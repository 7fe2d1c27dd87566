package io.pqssh.inventory.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.ScanResult;

/** Counts for the summary line, the JSON {@code summary} object and the HTML chart. */
public final class Summary {
    private Summary() {
    }

    /** total, pq-ready, classical-only, not-ssh, unreachable, weak, strict-kex. */
    public static Map<String, Integer> ofScan(List<ScanResult> results) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("total", results.size());
        for (String c : List.of("pq-ready", "classical-only", "not-ssh", "unreachable")) {
            m.put(c, (int) results.stream().filter(r -> r.category().equals(c)).count());
        }
        m.put("weak", (int) results.stream().filter(r -> r.classification() != null
                && !r.classification().weak().isEmpty()).count());
        m.put("strict-kex", (int) results.stream().filter(r -> r.classification() != null
                && r.classification().strictKex()).count());
        m.put("pq-host-key", (int) results.stream().filter(r -> r.classification() != null
                && !r.classification().pqHostKeysOffered().isEmpty()).count());
        return m;
    }

    /** total and one count per rule. */
    public static Map<String, Integer> ofAudit(List<Finding> findings) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("total", findings.size());
        for (String r : List.of(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, Finding.Rules.WEAK_KEY,
                Finding.Rules.CLASSICAL_KEY, Finding.Rules.PQ_KEY, Finding.Rules.CLASSICAL_KEX_CONFIG,
                Finding.Rules.PQ_KEX_REMOVED, Finding.Rules.WEAK_ALGORITHM_CONFIG, Finding.Rules.UNREADABLE)) {
            m.put(r, (int) findings.stream().filter(f -> f.rule().equals(r)).count());
        }
        return m;
    }
}
