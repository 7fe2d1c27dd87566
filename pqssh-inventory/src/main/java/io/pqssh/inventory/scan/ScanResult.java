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
        Evidence evidence, List<String> policyFailures, UserAuth auth) {

    /** With no user authentication probe. */
    public ScanResult(Target target, Status status, String error, String banner, String software, KexInit kexInit,
            Classification classification, List<HostKey> hostKeys, int attempts, long millis, Evidence evidence,
            List<String> policyFailures) {
        this(target, status, error, banner, software, kexInit, classification, hostKeys, attempts, millis, evidence,
                policyFailures, null);
    }

    /**
     * What {@code --auth-probe} learnt: the methods the server lists after a {@code none} request, and the
     * {@code server-sig-algs} of its EXT_INFO (null: the server sent none).
     */
    public record UserAuth(List<String> methods, List<String> serverSigAlgs, String error) {
        /** pqssh's post-quantum user authentication methods (KEM proof, and the hybrid AND methods). */
        public static final List<String> PQ_METHODS = List.of("publickey-kem", "publickey-kem-and",
                "publickey-hybrid-and");

        public List<String> pqMethods() {
            return methods.stream().filter(PQ_METHODS::contains).toList();
        }

        /** Post-quantum signature algorithms the server accepts for user keys. */
        public List<String> pqSigAlgs() {
            return serverSigAlgs == null ? List.of() : serverSigAlgs.stream().filter(Algorithms::isPqHostKey).toList();
        }

        /** A PQ method is offered, or publickey with a PQ signature algorithm. */
        public boolean pq() {
            return error == null && (!pqMethods().isEmpty() || (methods.contains("publickey") && !pqSigAlgs().isEmpty()));
        }
    }

    /**
     * How far a target is: {@code none} (no post-quantum key exchange), {@code kex} (a PQ key exchange is
     * negotiated: recorded sessions are safe), {@code kex+host-key} or {@code kex+user-auth} (also PQ server or user
     * authentication), {@code full} (all three). User authentication counts only when probed ({@code --auth-probe}).
     * Null for targets that are not SSH.
     */
    public String readiness() {
        if (status != Status.SSH) {
            return null;
        }
        boolean kex = category().equals("pq-ready");
        if (!kex) {
            return "none";
        }
        boolean hostKey = classification != null && !classification.pqHostKeysOffered().isEmpty();
        boolean user = auth != null && auth.pq();
        return hostKey && user ? "full" : hostKey ? "kex+host-key" : user ? "kex+user-auth" : "kex";
    }

    /** The readiness levels, lowest first. */
    public static final List<String> READINESS = List.of("none", "kex", "kex+host-key", "kex+user-auth", "full");

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
     * @param certificate what a host certificate ({@code *-cert-v01@openssh.com}) says; null for a plain key
     */
    public record HostKey(String algorithm, String keyType, String fingerprint, String publicKey, String error,
            int bits, HostCertificate certificate) {
        /** With the size and the certificate read from the public key. */
        public HostKey(String algorithm, String keyType, String fingerprint, String publicKey, String error) {
            this(algorithm, keyType, fingerprint, publicKey, error, bitsOf(publicKey), certificateOf(publicKey));
        }

        /** With no certificate. */
        public HostKey(String algorithm, String keyType, String fingerprint, String publicKey, String error,
                int bits) {
            this(algorithm, keyType, fingerprint, publicKey, error, bits, null);
        }

        private static HostCertificate certificateOf(String publicKey) {
            byte[] blob = blobOf(publicKey);
            return blob == null ? null : HostCertificate.of(blob).orElse(null);
        }

        /** The blob of a {@code type base64} line; null when there is none. */
        private static byte[] blobOf(String publicKey) {
            if (publicKey == null || publicKey.indexOf(' ') < 0) {
                return null;
            }
            try {
                return java.util.Base64.getDecoder().decode(publicKey.substring(publicKey.indexOf(' ') + 1).strip());
            } catch (IllegalArgumentException e) {
                return null;
            }
        }

        private static int bitsOf(String publicKey) {
            byte[] blob = blobOf(publicKey);
            if (blob == null) {
                return 0;
            }
            try {
                return io.pqssh.inventory.audit.KeyInfo.of(blob).bits();
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
                attempts, millis, evidence, policyFailures, auth);
    }

    /** With the failed checks of a policy (empty: compliant). */
    public ScanResult withPolicy(List<String> failures) {
        return new ScanResult(target, status, error, banner, software, kexInit, classification, hostKeys, attempts,
                millis, evidence, List.copyOf(failures), auth);
    }

    /** With what the user authentication probe learnt. */
    public ScanResult withAuth(UserAuth a) {
        return new ScanResult(target, status, error, banner, software, kexInit, classification, hostKeys, attempts,
                millis, evidence, policyFailures, a);
    }
}
