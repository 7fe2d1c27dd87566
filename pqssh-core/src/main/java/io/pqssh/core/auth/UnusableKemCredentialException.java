package io.pqssh.core.auth;

import io.pqssh.core.wire.MalformedMessageException;

/**
 * A well-formed KEM request whose {@code alg} names no ML-KEM parameter set or whose key has the wrong length for
 * it. The reference server answers such a request with FAILURE (only an encoding error ends the connection), so the
 * server tells it apart from other malformed input.
 */
public final class UnusableKemCredentialException extends MalformedMessageException {
    private static final long serialVersionUID = 1L;

    public UnusableKemCredentialException(String message) {
        super(message);
    }
}
