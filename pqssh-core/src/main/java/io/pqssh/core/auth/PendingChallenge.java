package io.pqssh.core.auth;

import java.security.MessageDigest;
import java.util.Arrays;

/**
 * What the server keeps between challenge and response: the expected response and what it was issued for. The
 * shared secret is gone by then. The expected value is single use: the first {@link #verify} consumes and wipes it
 * whatever the outcome, so a response can never be tried twice.
 */
public final class PendingChallenge {
    private final KemAuthMethod method;
    private final String alg;
    private final byte[] expected;
    private final long issuedAtNanos;
    private boolean consumed;

    PendingChallenge(KemAuthMethod method, String alg, byte[] expected, long issuedAtNanos) {
        if (expected.length != KemResponse.RESPONSE_BYTES) {
            throw new IllegalArgumentException("expected response must be 32 bytes");
        }
        this.method = method;
        this.alg = alg;
        this.expected = expected;
        this.issuedAtNanos = issuedAtNanos;
    }

    public KemAuthMethod method() {
        return method;
    }

    public String alg() {
        return alg;
    }

    public long issuedAtNanos() {
        return issuedAtNanos;
    }

    public synchronized boolean isConsumed() {
        return consumed;
    }

    /**
     * Compares in constant time; any length other than 32 fails without comparing. Consumes the challenge.
     */
    public synchronized boolean verify(byte[] response) {
        if (consumed) {
            return false;
        }
        try {
            if (response == null || response.length != KemResponse.RESPONSE_BYTES) {
                return false;
            }
            // MessageDigest.isEqual is constant time for equal-length inputs (JDK-6863503)
            return MessageDigest.isEqual(expected, response);
        } finally {
            wipe();
        }
    }

    /** Drops the state without a comparison (new request, timeout, disconnect). */
    public synchronized void cancel() {
        wipe();
    }

    private void wipe() {
        Arrays.fill(expected, (byte) 0);
        consumed = true;
    }

    /**
     * Bytes of explicit state this object holds: the expected response, the algorithm string, the method reference
     * and the timestamp and flag. Object headers and references are JVM overhead, measured separately by the lab.
     */
    public int explicitStateBytes() {
        return expected.length + alg.length() + Long.BYTES + 1 + Integer.BYTES;
    }

    @Override
    public String toString() {
        return "PendingChallenge[" + method.wireName() + ", " + alg + (consumed ? ", consumed" : "") + "]";
    }
}
