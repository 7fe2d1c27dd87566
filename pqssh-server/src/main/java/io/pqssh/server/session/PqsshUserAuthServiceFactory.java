package io.pqssh.server.session;

import java.io.IOException;
import java.util.Objects;
import java.util.function.Predicate;

import org.apache.sshd.common.Service;
import org.apache.sshd.common.ServiceFactory;
import org.apache.sshd.common.session.Session;

/** The {@code ssh-userauth} service factory that builds {@link PqsshUserAuthService}s. */
public final class PqsshUserAuthServiceFactory implements ServiceFactory {
    public static final String NAME = "ssh-userauth";

    /**
     * The server-wide settings each connection's service starts from; {@code perConnection} (null: none) re-reads
     * MaxAuthTries, AuthenticationMethods, the enabled methods and Banner from the connection's Match evaluation.
     */
    public record Settings(int maxAuthTries, AuthenticationMethods methods, Predicate<String> validUser,
            PerConnection perConnection) {
        public Settings(int maxAuthTries, AuthenticationMethods methods, Predicate<String> validUser) {
            this(maxAuthTries, methods, validUser, null);
        }

        public Settings {
            if (maxAuthTries < 1) {
                throw new IllegalArgumentException("MaxAuthTries must be at least 1, got " + maxAuthTries);
            }
            Objects.requireNonNull(methods, "methods");
            Objects.requireNonNull(validUser, "validUser");
        }
    }

    /**
     * Match per connection: the evaluator, and the server's check of an AuthenticationMethods value against the
     * methods it offers (the same check the global value passed at start).
     */
    public record PerConnection(io.pqssh.server.ConnectionConfig.Evaluator evaluator,
            java.util.function.Function<String, AuthenticationMethods> methods) {
        public PerConnection {
            Objects.requireNonNull(evaluator, "evaluator");
            Objects.requireNonNull(methods, "methods");
        }
    }

    private final Settings settings;

    public PqsshUserAuthServiceFactory(Settings settings) {
        this.settings = Objects.requireNonNull(settings);
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public Service create(Session session) throws IOException {
        return new PqsshUserAuthService(session, settings);
    }
}
