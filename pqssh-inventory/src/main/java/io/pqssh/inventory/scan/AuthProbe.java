package io.pqssh.inventory.scan;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.session.ClientUserAuthService;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.Service;
import org.apache.sshd.common.ServiceFactory;
import org.apache.sshd.common.kex.BuiltinDHFactories;
import org.apache.sshd.common.kex.extension.DefaultClientKexExtensionHandler;
import org.apache.sshd.common.session.Session;

import io.pqssh.mina.kex.PqKex;

/**
 * {@code --auth-probe USER}: one more connection per SSH target that completes a key exchange, reads the server's
 * EXT_INFO ({@code server-sig-algs}) and sends a single {@code none} authentication request for USER, whose failure
 * lists the methods that can continue. No key, password or other credential is sent: the client has no identities
 * and its only method, {@code publickey}, has nothing to offer, so the session ends after the {@code none} answer.
 */
public final class AuthProbe implements AutoCloseable {
    private static final AttributeRepository.AttributeKey<List<String>> SIG_ALGS =
            new AttributeRepository.AttributeKey<>();
    private static final AttributeRepository.AttributeKey<List<String>> METHODS =
            new AttributeRepository.AttributeKey<>();

    private final SshClient client;
    private final Duration timeout;
    private final String user;

    /** Keeps the methods the server lists after {@code none} (MINA keeps them in a protected field). */
    private static final class Recording extends ClientUserAuthService {
        Recording(Session s) {
            super(s);
        }

        @Override
        public void process(int cmd, org.apache.sshd.common.util.buffer.Buffer buffer) throws Exception {
            if (cmd == org.apache.sshd.common.SshConstants.SSH_MSG_USERAUTH_FAILURE
                    && getSession().getAttribute(METHODS) == null) {
                // read before MINA acts on it: MINA ends the authentication (and wakes the prober) inside process
                int pos = buffer.rpos();
                String list = buffer.getString();
                buffer.rpos(pos);
                getSession().setAttribute(METHODS, list.isEmpty() ? List.of() : List.of(list.split(",")));
            }
            super.process(cmd, buffer);
        }
    }

    public AuthProbe(Duration timeout, String user) {
        if (user == null || user.isEmpty() || user.length() > 256 || user.chars().anyMatch(c -> c < 0x20)) {
            throw new IllegalArgumentException("--auth-probe needs a user name (printable, at most 256 characters)");
        }
        this.timeout = timeout;
        this.user = user;
        client = ClientBuilder.builder().build();
        List<String> kex = new ArrayList<>(Algorithms.OPENSSH10_CLIENT_KEX);
        for (String n : Algorithms.PQSSH_KEX) {
            if (!kex.contains(n)) {
                kex.add(n);
            }
        }
        for (BuiltinDHFactories f : BuiltinDHFactories.VALUES) {
            if (!kex.contains(f.getName())) {
                kex.add(f.getName());
            }
        }
        kex.removeIf(n -> {
            var f = BuiltinDHFactories.resolveFactory(n);
            return f == null || !f.isSupported();
        });
        client.setKeyExchangeFactories(PqKex.factories(kex, ClientBuilder.DH2KEX));
        io.pqssh.mina.keys.MinaPqKeys.ensureInstalled();
        client.setSignatureFactories(io.pqssh.mina.keys.PqSignatureFactories.withPq(client.getSignatureFactories()));
        // nothing is authenticated and nothing secret is sent: any host key will do
        client.setServerKeyVerifier((session, addr, key) -> true);
        client.setUserAuthFactories(List.of(UserAuthPublicKeyFactory.INSTANCE));
        List<ServiceFactory> services = new ArrayList<>();
        services.add(new ServiceFactory() {
            @Override
            public String getName() {
                return "ssh-userauth";
            }

            @Override
            public Service create(Session session) {
                return new Recording(session);
            }
        });
        services.add(org.apache.sshd.client.session.ClientConnectionServiceFactory.INSTANCE);
        client.setServiceFactories(services);
        client.setKexExtensionHandler(new DefaultClientKexExtensionHandler() {
            @Override
            protected void handleServerSignatureAlgorithms(Session session, Collection<String> algorithms) {
                session.setAttribute(SIG_ALGS, List.copyOf(algorithms));
                super.handleServerSignatureAlgorithms(session, algorithms);
            }
        });
        client.start();
    }

    /** What the target says about user authentication; {@code error} set when the probe could not finish. */
    public ScanResult.UserAuth probe(Target t) {
        ClientSession session = null;
        try {
            session = client.connect(user, t.host(), t.port()).verify(timeout).getSession();
            try {
                session.auth().await(timeout);
            } catch (IOException | RuntimeException e) {
                // the expected end: no method left after none (publickey has no key)
            }
            List<String> methods = session.getAttribute(METHODS);
            List<String> sigAlgs = session.getAttribute(SIG_ALGS);
            if (methods == null) {
                return new ScanResult.UserAuth(List.of(), sigAlgs, "no answer to the none request within "
                        + timeout.toMillis() + " ms");
            }
            return new ScanResult.UserAuth(methods, sigAlgs, null);
        } catch (IOException | RuntimeException e) {
            return new ScanResult.UserAuth(List.of(), null,
                    e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        } finally {
            if (session != null) {
                session.close(true);
            }
        }
    }

    @Override
    public void close() throws IOException {
        client.stop();
    }
}
