package io.pqssh.inventory.audit;

/**
 * One audit finding. Key fields are null for config findings; {@code host} is null for hashed known_hosts entries
 * (the host stays hidden) and for files that are not known_hosts.
 *
 * @param rule one of {@link Rules}
 * @param severity {@code error}, {@code warning} or {@code note}
 */
public record Finding(String rule, String severity, String file, int line, String message, String keyType,
        String family, Integer bits, String curve, Boolean certificate, String comment, String fingerprint,
        String expiry, String from, String host, String owner) {

    /** Rule identifiers, also SARIF rule ids. */
    public static final class Rules {
        public static final String CLASSICAL_KEY_BESIDE_PQ = "classical-key-beside-pq";
        /** A quantum-vulnerable CA certifies a post-quantum key: forging the CA's signature forges the login. */
        public static final String CLASSICAL_CA = "classical-ca";
        public static final String WEAK_KEY = "weak-key";
        public static final String CLASSICAL_KEY = "classical-key";
        public static final String PQ_KEY = "pq-key";
        public static final String CLASSICAL_KEX_CONFIG = "classical-kex-config";
        public static final String PQ_KEX_REMOVED = "pq-kex-removed";
        public static final String WEAK_ALGORITHM_CONFIG = "weak-algorithm-config";
        public static final String INVALID_CONFIG = "invalid-config";
        public static final String IGNORED_CONFIG = "ignored-config";
        public static final String EXPIRED_KEY = "expired-key";
        public static final String UNREADABLE = "unreadable";

        /** All rules, in report order (the summary, the chart legend and the table's summary line use it). */
        public static final java.util.List<String> ALL = java.util.List.of(CLASSICAL_KEY_BESIDE_PQ, CLASSICAL_CA, WEAK_KEY,
                CLASSICAL_KEY, PQ_KEY, CLASSICAL_KEX_CONFIG, PQ_KEX_REMOVED, WEAK_ALGORITHM_CONFIG, INVALID_CONFIG,
                IGNORED_CONFIG, EXPIRED_KEY, UNREADABLE);

        private Rules() {
        }
    }

    public static Finding config(String rule, String severity, String file, int line, String message) {
        return new Finding(rule, severity, file, line, message, null, null, null, null, null, null, null, null, null,
                null, null);
    }

    /** A key is classical (quantum-vulnerable). */
    public boolean classicalKey() {
        return rule.equals(Rules.CLASSICAL_KEY) || rule.equals(Rules.CLASSICAL_KEY_BESIDE_PQ)
                || rule.equals(Rules.WEAK_KEY) || rule.equals(Rules.CLASSICAL_CA);
    }
}
