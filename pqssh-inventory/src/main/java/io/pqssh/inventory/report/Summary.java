package io.pqssh.inventory.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pqssh.inventory.audit.Finding;

/** Audit counts for the summary line, the JSON {@code summary} object and the HTML chart (scans: ScanCounters). */
public final class Summary {
    private Summary() {
    }

    /** total and one count per rule ({@link Finding.Rules#ALL}). */
    public static Map<String, Integer> ofAudit(List<Finding> findings) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("total", findings.size());
        for (String r : Finding.Rules.ALL) {
            m.put(r, 0);
        }
        for (Finding f : findings) {
            m.merge(f.rule(), 1, Integer::sum);
        }
        return m;
    }

    /** Human label of a rule, as the text summary and the HTML legend both print it. */
    public static String label(String rule) {
        return switch (rule) {
            case Finding.Rules.CLASSICAL_KEY_BESIDE_PQ -> "classical keys beside PQ";
            case Finding.Rules.CLASSICAL_CA -> "classical CAs of PQ keys";
            case Finding.Rules.WEAK_KEY -> "weak keys";
            case Finding.Rules.CLASSICAL_KEY -> "classical keys";
            case Finding.Rules.PQ_KEY -> "PQ credentials";
            case Finding.Rules.CLASSICAL_KEX_CONFIG -> "classical KEX configs";
            case Finding.Rules.PQ_KEX_REMOVED -> "PQ KEX removed";
            case Finding.Rules.WEAK_ALGORITHM_CONFIG -> "weak algorithm configs";
            case Finding.Rules.INVALID_CONFIG -> "invalid configs";
            case Finding.Rules.IGNORED_CONFIG -> "ignored config lines";
            case Finding.Rules.EXPIRED_KEY -> "expired keys";
            case Finding.Rules.UNREADABLE -> "unreadable";
            default -> rule;
        };
    }

    /** "N findings: a classical keys beside PQ, b weak keys, ..." with every rule, zero or not. */
    public static String auditLine(List<Finding> findings) {
        Map<String, Integer> s = ofAudit(findings);
        StringBuilder b = new StringBuilder().append(s.get("total")).append(" findings: ");
        boolean first = true;
        for (String r : Finding.Rules.ALL) {
            b.append(first ? "" : ", ").append(s.get(r)).append(' ').append(label(r));
            first = false;
        }
        return b.toString();
    }
}
