package io.pqssh.mina;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.UserAuthFactory;
import org.apache.sshd.server.auth.password.PasswordAuthenticator;
import org.apache.sshd.server.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.server.auth.pubkey.PublickeyAuthenticator;
import org.apache.sshd.server.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.server.session.ServerSession;

import io.pqssh.mina.auth.KemServerSettings;

/**
 * A plain MINA {@code SshServer} on loopback with {@link Pqssh#install} and nothing of the pqssh server product: the
 * library's login tests run against it, on Java 17 as on 25. Commands are answered by {@link EchoCommand} (no
 * process), so a login test checks the channel without depending on an OS account.
 */
public final class LoopbackServer implements AutoCloseable {
    private final SshServer sshd;
    private final KemServerSettings kem;
    private final List<ServerSession> sessions = new CopyOnWriteArrayList<>();

    private LoopbackServer(SshServer sshd, KemServerSettings kem) {
        this.sshd = sshd;
        this.kem = kem;
        sshd.addSessionListener(new SessionListener() {
            @Override
            public void sessionCreated(Session session) {
                if (session instanceof ServerSession s) {
                    sessions.add(s);
                }
            }
        });
    }

    public static Builder builder() {
        return new Builder();
    }

    public int port() {
        return sshd.getPort();
    }

    public SshServer sshd() {
        return sshd;
    }

    /** Pending {@code publickey-kem} challenges right now, from the settings' limiter (0 without KEM). */
    public int pendingKemChallenges() {
        return kem == null ? 0 : kem.limiter().pending();
    }

    /** Every server session so far (pre-auth included). */
    public List<ServerSession> sessions() {
        return sessions;
    }

    public boolean anyAuthenticated() {
        return sessions.stream().anyMatch(Session::isAuthenticated);
    }

    @Override
    public void close() throws IOException {
        sshd.stop(true);
    }

    /** What an application would configure on its own server, then {@link Pqssh#install}. */
    public static final class Builder {
        private KeyPairProvider hostKeys = KeyPairProvider.wrap(TestKeys.ed25519());
        private KemServerSettings kem;
        private PublickeyAuthenticator publickey;
        private PasswordAuthenticator password;
        private List<UserAuthFactory> extraAuth = new ArrayList<>();
        private Pqssh.ServerOptions options = Pqssh.ServerOptions.defaults();
        private List<String> only;

        public Builder hostKeys(KeyPairProvider keys) {
            this.hostKeys = keys;
            return this;
        }

        public Builder kem(KemServerSettings settings) {
            this.kem = settings;
            options = options.kem(settings);
            return this;
        }

        public Builder publickey(PublickeyAuthenticator a) {
            this.publickey = a;
            return this;
        }

        public Builder password(PasswordAuthenticator a) {
            this.password = a;
            return this;
        }

        /** A user-auth factory of the application's, after publickey/password. */
        public Builder auth(UserAuthFactory f) {
            extraAuth.add(f);
            return this;
        }

        /** After the install, keep only the user-auth methods of these names (as an application may). */
        public Builder only(String... methods) {
            only = List.of(methods);
            return this;
        }

        public Builder options(java.util.function.UnaryOperator<Pqssh.ServerOptions> change) {
            options = change.apply(options);
            return this;
        }

        public LoopbackServer start() throws IOException {
            SshServer sshd = SshServer.setUpDefaultServer();
            sshd.setHost("127.0.0.1");
            sshd.setPort(0);
            sshd.setKeyPairProvider(hostKeys);
            sshd.setCommandFactory((channel, command) -> new EchoCommand("", command));
            List<UserAuthFactory> auth = new ArrayList<>();
            if (publickey != null) {
                sshd.setPublickeyAuthenticator(publickey);
                auth.add(UserAuthPublicKeyFactory.INSTANCE);
            }
            if (password != null) {
                sshd.setPasswordAuthenticator(password);
                auth.add(UserAuthPasswordFactory.INSTANCE);
            }
            auth.addAll(extraAuth);
            sshd.setUserAuthFactories(auth);
            Pqssh.install(sshd, options);
            if (only != null) {
                sshd.setUserAuthFactories(sshd.getUserAuthFactories().stream().filter(f -> only.contains(f.getName()))
                        .toList());
            }
            LoopbackServer s = new LoopbackServer(sshd, kem);
            sshd.start();
            return s;
        }
    }
}
