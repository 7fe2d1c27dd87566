package io.pqssh.mina;

import java.io.IOException;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;

import io.pqssh.mina.auth.KemClientIdentity;

/**
 * A plain MINA {@code SshClient} with {@link Pqssh#install} (the library's client side, no pqssh client product):
 * identities are added per session as an application does.
 */
public final class LoopbackClient implements AutoCloseable {
    private final SshClient client;
    private final List<KeyPair> identities;
    private final String password;
    private final Duration timeout;

    private LoopbackClient(SshClient client, List<KeyPair> identities, String password, Duration timeout) {
        this.client = client;
        this.identities = identities;
        this.password = password;
        this.timeout = timeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    public SshClient sshClient() {
        return client;
    }

    /** Connects and authenticates; on failure the session is closed and the failure thrown. */
    public ClientSession login(String user, int port) throws IOException {
        ClientSession s = client.connect(user, "127.0.0.1", port).verify(timeout).getSession();
        try {
            identities.forEach(s::addPublicKeyIdentity);
            if (password != null) {
                s.addPasswordIdentity(password);
            }
            s.auth().verify(timeout);
            return s;
        } catch (IOException | RuntimeException e) {
            s.close(true);
            throw e;
        }
    }

    /** The output of {@code command} on the session (the servers here echo it back). */
    public String exec(ClientSession s, String command) throws IOException {
        return s.executeRemoteCommand(command);
    }

    @Override
    public void close() {
        client.stop();
    }

    public static final class Builder {
        private final List<KeyPair> identities = new ArrayList<>();
        private String password;
        private Duration timeout = Duration.ofSeconds(20);
        private ServerKeyVerifier verifier = AcceptAllServerKeyVerifier.INSTANCE;
        private Pqssh.ClientOptions options = Pqssh.ClientOptions.defaults();

        public Builder kemIdentity(KemClientIdentity id) {
            options = options.kemIdentity(id);
            return this;
        }

        public Builder identity(KeyPair kp) {
            identities.add(kp);
            return this;
        }

        public Builder password(String pw) {
            this.password = pw;
            return this;
        }

        public Builder timeout(Duration t) {
            this.timeout = t;
            return this;
        }

        public Builder serverKeyVerifier(ServerKeyVerifier v) {
            this.verifier = v;
            return this;
        }

        public Builder options(java.util.function.UnaryOperator<Pqssh.ClientOptions> change) {
            options = change.apply(options);
            return this;
        }

        public LoopbackClient start() {
            SshClient c = SshClient.setUpDefaultClient();
            c.setServerKeyVerifier(verifier);
            Pqssh.install(c, options);
            c.start();
            return new LoopbackClient(c, List.copyOf(identities), password, timeout);
        }
    }
}
