package io.pqssh.mina.auth.hybrid;

import org.apache.sshd.client.auth.AbstractUserAuthFactory;
import org.apache.sshd.client.auth.UserAuth;
import org.apache.sshd.client.session.ClientSession;

/**
 * Registers {@code publickey-hybrid-and} with a MINA client (add it to {@code SshClient.setUserAuthFactories} and
 * to {@code PreferredAuthentications}). The keys are the session's registered identities of AND composite types.
 * By default the signed request goes at once (the keys are in memory), as for {@code publickey}; system property
 * {@code pqssh.client.pubkeySignDirectly=false} (the same switch as for {@code publickey}) sends the query first.
 */
public final class ClientHybridAndUserAuthFactory extends AbstractUserAuthFactory {
    private final boolean signDirectly;

    public ClientHybridAndUserAuthFactory() {
        this(!"false".equalsIgnoreCase(System.getProperty("pqssh.client.pubkeySignDirectly", "true")));
    }

    public ClientHybridAndUserAuthFactory(boolean signDirectly) {
        super(HybridAnd.NAME);
        this.signDirectly = signDirectly;
    }

    @Override
    public UserAuth createUserAuth(ClientSession session) {
        return new ClientHybridAndUserAuth(signDirectly);
    }
}
