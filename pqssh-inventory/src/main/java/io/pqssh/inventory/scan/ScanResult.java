package io.pqssh.inventory.scan;

import java.util.List;

/**
 * The outcome for one target. Exactly one of: {@link Status#SSH} with banner, KEXINIT and classification; or
 * {@link Status#UNREACHABLE} / {@link Status#NOT_SSH} with {@link #error()} ("unreachable: connection refused",
 * "not ssh: ...").
 */
public record ScanResult(Target target, Status status, String error, String banner, String software,
        KexInit kexInit, Classification classification, List<HostKey> hostKeys, int attempts, long millis) {

    public enum Status { SSH, UNREACHABLE, NOT_SSH }

    /** A host key collected with a completed key exchange, or why it could not be. */
    public record HostKey(String algorithm, String keyType, String fingerprint, String publicKey, String error) {
    }

    /** pq-ready, classical-only, not-ssh or unreachable. */
    public String category() {
        return switch (status) {
            case UNREACHABLE -> "unreachable";
            case NOT_SSH -> "not-ssh";
            case SSH -> classification.pqReady() ? "pq-ready" : "classical-only";
        };
    }

    public ScanResult withHostKeys(List<HostKey> keys) {
        return new ScanResult(target, status, error, banner, software, kexInit, classification, List.copyOf(keys),
                attempts, millis);
    }
}
