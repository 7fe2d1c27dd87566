package io.pqssh.inventory.scan;

import java.util.List;

/**
 * The outcome for one target. Exactly one of: {@link Status#SSH} with banner and (unless only the banner or an error
 * text was seen, see {@link Evidence}) KEXINIT and classification; {@link Status#UNREACHABLE} / {@link Status#NOT_SSH}
 * with {@link #error()} ("unreachable: connection refused", "not ssh: ..."); or {@link Status#SCAN_ERROR} when the
 * scanner that produced the record failed (a ZGrab2 module panic).
 */
public record ScanResult(Target target, Status status, String error, String banner, String software,
        KexInit kexInit, Classification classification, List<HostKey> hostKeys, int attempts, long millis,
        Evidence evidence, List<String> policyFailures) {

    public enum Status {
        SSH, UNREACHABLE, NOT_SSH, SCAN_ERROR;

        public String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /** What the classification rests on. */
    public enum Evidence {
        /** the server's complete KEXINIT (live probe, or ZGrab2 {@code server_key_exchange}) */
        KEXINIT("kexinit"),
        /** only the server's KEX list, from ZGrab2's "no common algorithm" handshake error */
        ERROR_TEXT("zgrab2-error-text"),
        /** only the identification line (ZGrab2 {@code --hello-only}): inferred from the software version */
        BANNER("banner"),
        /** not SSH, unreachable, or the scan failed */
        NONE("none");

        private final String jsonName;

        Evidence(String jsonName) {
            this.jsonName = jsonName;
        }

        public String jsonName() {
            return jsonName;
        }
    }

    /**
     * A host key collected with a completed key exchange, or why it could not be.
     *
     * @param bits RSA modulus / DSA size, curve size for ECDSA and EdDSA, 0 when not known or post-quantum
     */
    public record HostKey(String algorithm, String keyType, String fingerprint, String publicKey, String error,
            int bits) {
        /** With the size read from the public key. */
        public HostKey(String algorithm, String keyType, String fingerprint, String publicKey, String error) {
            this(algorithm, keyType, fingerprint, publicKey, error, bitsOf(publicKey));
        }

        private static int bitsOf(String publicKey) {
            if (publicKey == null || publicKey.indexOf(' ') < 0) {
                return 0;
            }
            try {
                return io.pqssh.inventory.audit.KeyInfo.of(java.util.Base64.getDecoder().decode(
                        publicKey.substring(publicKey.indexOf(' ') + 1).strip())).bits();
            } catch (IllegalArgumentException | io.pqssh.core.wire.MalformedMessageException e) {
                return 0;
            }
        }
    }

    /** Not checked against a policy. */
    public ScanResult(Target target, Status status, String error, String banner, String software, KexInit kexInit,
            Classification classification, List<HostKey> hostKeys, int attempts, long millis, Evidence evidence) {
        this(target, status, error, banner, software, kexInit, classification, hostKeys, attempts, millis, evidence,
                null);
    }

    /** Evidence {@link Evidence#KEXINIT} for SSH results, {@link Evidence#NONE} otherwise. */
    public ScanResult(Target target, Status status, String error, String banner, String software, KexInit kexInit,
            Classification classification, List<HostKey> hostKeys, int attempts, long millis) {
        this(target, status, error, banner, software, kexInit, classification, hostKeys, attempts, millis,
                status == Status.SSH ? Evidence.KEXINIT : Evidence.NONE);
    }

    /** The categories, in report order. */
    public static final List<String> CATEGORIES = List.of("pq-ready", "non-standard-pq", "classical-only", "unknown",
            "not-ssh", "unreachable", "scan-error");

    /**
     * pq-ready, non-standard-pq (only withdrawn/vendor PQ names that neither OpenSSH 10 nor pqssh negotiates),
     * classical-only, unknown (SSH, but a banner that says nothing), not-ssh, unreachable or scan-error.
     */
    public String category() {
        return switch (status) {
            case UNREACHABLE -> "unreachable";
            case NOT_SSH -> "not-ssh";
            case SCAN_ERROR -> "scan-error";
            case SSH -> classification != null ? classification.category() : BannerInference.category(software);
        };
    }

    public ScanResult withHostKeys(List<HostKey> keys) {
        return new ScanResult(target, status, error, banner, software, kexInit, classification, List.copyOf(keys),
                attempts, millis, evidence, policyFailures);
    }

    /** With the failed checks of a policy (empty: compliant). */
    public ScanResult withPolicy(List<String> failures) {
        return new ScanResult(target, status, error, banner, software, kexInit, classification, hostKeys, attempts,
                millis, evidence, List.copyOf(failures));
    }
}
