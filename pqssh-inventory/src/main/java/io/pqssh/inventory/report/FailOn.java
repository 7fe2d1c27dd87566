package io.pqssh.inventory.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.scan.ScanResult;

/**
 * {@code --fail-on} conditions. Exit codes: 0 none matched, 1 a condition matched, 2 usage or input error, 3 internal
 * error (see docs/inventory.md).
 */
public enum FailOn {
    /** scan: an SSH server without post-quantum key exchange; audit: a config that pins or strips PQ KEX. */
    CLASSICAL_KEX,
    /** audit: a quantum-vulnerable key authorized, known or present; scan: a server with no PQ host key. */
    CLASSICAL_KEYS,
    /** scan: weak algorithms offered; audit: weak keys or weak algorithms enabled. */
    WEAK,
    /** scan: a target unreachable or not speaking SSH. */
    UNREACHABLE,
    /** scan: an SSH server that does not comply with the {@code --policy} (implied by {@code --policy}). */
    POLICY;

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAIL_ON = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_INTERNAL = 3;

    public static FailOn parse(String s) {
        try {
            return valueOf(s.strip().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown --fail-on '" + s
                    + "' (expected classical-kex, classical-keys, weak, unreachable, policy)");
        }
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Conditions met by a scan, as human-readable lines. */
    public static List<String> check(List<FailOn> conditions, List<ScanResult> results) {
        return check(conditions, ScanCounters.of(results));
    }

    /** Conditions met by a streamed scan, from its counters. */
    public static List<String> check(List<FailOn> conditions, ScanCounters counters) {
        List<String> hit = new ArrayList<>();
        for (FailOn c : conditions) {
            long n = counters.failOnCount(c);
            if (n > 0) {
                hit.add(c.cliName() + ": " + n + " target(s)");
            }
        }
        return hit;
    }

    public static List<String> checkAudit(List<FailOn> conditions, List<Finding> findings) {
        List<String> hit = new ArrayList<>();
        for (FailOn c : conditions) {
            long n = findings.stream().filter(f -> switch (c) {
                case CLASSICAL_KEX -> f.rule().equals(Finding.Rules.CLASSICAL_KEX_CONFIG)
                        || f.rule().equals(Finding.Rules.PQ_KEX_REMOVED);
                case CLASSICAL_KEYS -> f.classicalKey();
                case WEAK -> f.rule().equals(Finding.Rules.WEAK_KEY)
                        || f.rule().equals(Finding.Rules.WEAK_ALGORITHM_CONFIG)
                        || (f.classicalKey() && ("DSA".equals(f.family())
                                || ("RSA".equals(f.family()) && f.bits() != null && f.bits() < 2048)));
                case UNREACHABLE, POLICY -> false;
            }).count();
            if (n > 0) {
                hit.add(c.cliName() + ": " + n + " finding(s)");
            }
        }
        return hit;
    }
}
