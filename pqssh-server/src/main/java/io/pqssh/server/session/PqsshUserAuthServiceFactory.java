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

    /** The server-wide settings each connection's service starts from. */
    public record Settings(int maxAuthTries, AuthenticationMethods methods, Predicate<String> validUser) {
        public Settings {
            if (maxAuthTries < 1) {
                throw new IllegalArgumentException("MaxAuthTries must be at least 1, got " + maxAuthTries);
            }
            Objects.requireNonNull(methods, "methods");
            Objects.requireNonNull(validUser, "validUser");
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
