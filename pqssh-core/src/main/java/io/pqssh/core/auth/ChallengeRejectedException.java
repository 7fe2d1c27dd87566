package io.pqssh.core.auth;

/** The client refuses to answer a challenge: it was not issued for its own key, alg or parameter set. */
public final class ChallengeRejectedException extends Exception {
    private static final long serialVersionUID = 1L;

    public ChallengeRejectedException(String message) {
        super(message);
    }
}
