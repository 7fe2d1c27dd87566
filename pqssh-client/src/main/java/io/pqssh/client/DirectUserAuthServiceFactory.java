package io.pqssh.client;

import java.io.IOException;

import org.apache.sshd.client.session.ClientUserAuthServiceFactory;
import org.apache.sshd.common.Service;
import org.apache.sshd.common.session.Session;

/**
 * {@code ssh-userauth} service factory whose service skips the {@code none} probe when the session already holds
 * a credential (see {@link DirectUserAuthService}). Set on a client with
 * {@code client.setServiceFactories(List.of(new DirectUserAuthServiceFactory(), ClientConnectionServiceFactory.INSTANCE))}.
 */
public final class DirectUserAuthServiceFactory extends ClientUserAuthServiceFactory {
    @Override
    public Service create(Session session) throws IOException {
        return new DirectUserAuthService(session);
    }
}
