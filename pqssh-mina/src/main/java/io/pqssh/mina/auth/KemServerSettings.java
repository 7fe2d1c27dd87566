package io.pqssh.mina.auth;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemKeyAuthorizer;
import io.pqssh.core.auth.PendingChallengeLimiter;
import io.pqssh.core.kem.KemAlgorithm;

/**
 * Server-side policy for the KEM methods: which parameter sets are allowed ({@code KEMAuthAlgorithms}), who is
 * authorized, how many challenges may be pending, and how long a challenge stays valid.
 */
public final class KemServerSettings {
    private final Set<KemAlgorithm> allowedAlgorithms;
    private final KemKeyAuthorizer authorizer;
    private final PendingChallengeLimiter limiter;
    private final Duration challengeTimeout;
    private final SecureRandom random;
    private final UnaryOperator<KemChallenge> challengeInterceptor;

    private KemServerSettings(Builder b) {
        this.allowedAlgorithms = Set.copyOf(b.allowedAlgorithms);
        this.authorizer = Objects.requireNonNull(b.authorizer, "authorizer");
        this.limiter = new PendingChallengeLimiter(b.maxPendingGlobal, b.maxPendingPerSource);
        this.challengeTimeout = b.challengeTimeout;
        this.random = b.random;
        this.challengeInterceptor = b.challengeInterceptor;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Set<KemAlgorithm> allowedAlgorithms() {
        return allowedAlgorithms;
    }

    public KemKeyAuthorizer authorizer() {
        return authorizer;
    }

    public PendingChallengeLimiter limiter() {
        return limiter;
    }

    /** How long a challenge stays pending: past it the response fails and the slot is freed without waiting. */
    public Duration challengeTimeout() {
        return challengeTimeout;
    }

    public SecureRandom random() {
        return random;
    }

    /** Fault injection: what the server sends instead of the real challenge (robustness tests, attack drills). */
    public UnaryOperator<KemChallenge> challengeInterceptor() {
        return challengeInterceptor;
    }

    /** Collects the settings; unset ones keep the defaults named on each method. */
    public static final class Builder {
        private Set<KemAlgorithm> allowedAlgorithms = EnumSet.of(KemAlgorithm.MLKEM768);
        private KemKeyAuthorizer authorizer;
        private int maxPendingGlobal = 1024;
        private int maxPendingPerSource = 32;
        private Duration challengeTimeout = Duration.ofSeconds(30);
        private SecureRandom random = new SecureRandom();
        private UnaryOperator<KemChallenge> challengeInterceptor = UnaryOperator.identity();

        public Builder allowedAlgorithms(Set<KemAlgorithm> algs) {
            if (algs.isEmpty()) {
                throw new IllegalArgumentException("KEMAuthAlgorithms must name at least one algorithm");
            }
            this.allowedAlgorithms = EnumSet.copyOf(algs);
            return this;
        }

        public Builder authorizer(KemKeyAuthorizer a) {
            this.authorizer = a;
            return this;
        }

        public Builder maxPending(int global, int perSource) {
            this.maxPendingGlobal = global;
            this.maxPendingPerSource = perSource;
            return this;
        }

        public Builder challengeTimeout(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("challenge timeout must be positive");
            }
            this.challengeTimeout = d;
            return this;
        }

        public Builder random(SecureRandom r) {
            this.random = Objects.requireNonNull(r);
            return this;
        }

        /**
         * Replaces each outgoing challenge (the expected response stays bound to the real one). Only for tests
         * and the lab's tampering drills: a production server never sets it.
         */
        public Builder challengeInterceptor(UnaryOperator<KemChallenge> interceptor) {
            this.challengeInterceptor = Objects.requireNonNull(interceptor);
            return this;
        }

        public KemServerSettings build() {
            return new KemServerSettings(this);
        }
    }
}
