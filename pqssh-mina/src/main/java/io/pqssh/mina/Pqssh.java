package io.pqssh.mina;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.kex.DHFactory;
import org.apache.sshd.common.kex.KeyExchangeFactory;
import org.apache.sshd.server.ServerAuthenticationManager;
import org.apache.sshd.server.ServerBuilder;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.UserAuthFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.mina.auth.ClientKemUserAuthFactory;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.mina.auth.ServerKemUserAuthFactory;
import io.pqssh.mina.kex.PostQuantumKexPolicy;
import io.pqssh.mina.kex.PqKex;
import io.pqssh.mina.keys.MinaPqKeys;
import io.pqssh.mina.keys.PqSignatureFactories;
import io.pqssh.mina.server.PreAuthLimits;

/**
 * One call that adds pqssh to an application's own MINA SSHD {@link SshServer} or {@link SshClient}, before it is
 * started, and changes nothing else of its configuration (command and shell factories, subsystems, forwarding,
 * properties, the application's own authentication methods and their order all stay as they were):
 * <ul>
 * <li>key exchange: the post-quantum methods in OpenSSH 10's order ({@code mlkem768x25519-sha256} first), then
 * the application's own list without them (its classical fallbacks keep working);</li>
 * <li>post-quantum host and user key types: signature factories appended to the application's, and (once per
 * JVM) MINA's key parsers and {@code authorized_keys}/{@code known_hosts} decoders taught the PQ names
 * ({@link MinaPqKeys});</li>
 * <li>{@code publickey-kem} (and {@code publickey-kem-and}) beside the application's authentication methods: after
 * them on a server, before them on a client;</li>
 * <li>limits: the pending-challenge limits of {@link KemServerSettings}, and, only when asked,
 * {@link PreAuthLimits} ({@code MaxStartups} and friends);</li>
 * <li>a session listener that refuses ({@link ServerOptions#requirePostQuantumKex}) or logs a classical key
 * exchange, as {@code pqssh server} does.</li>
 * </ul>
 * See {@code docs/embedding.md}.
 */
public final class Pqssh {
    private static final Logger LOG = LoggerFactory.getLogger(Pqssh.class);

    private Pqssh() {
    }

    /**
     * Post-quantum key exchange and key types on {@code sshd}, no {@code publickey-kem}: for a server whose users
     * log in with the application's own methods.
     */
    public static SshServer install(SshServer sshd) {
        return install(sshd, ServerOptions.defaults());
    }

    /**
     * Everything of {@link #install(SshServer)} plus {@code publickey-kem} and {@code publickey-kem-and} with
     * {@code kem}'s authorizer, algorithms and limits.
     */
    public static SshServer install(SshServer sshd, KemServerSettings kem) {
        return install(sshd, ServerOptions.defaults().kem(kem));
    }

    /**
     * Installs pqssh on {@code sshd} as {@code options} say. Call it after setting the application's authenticators
     * and user-auth factories and before {@link SshServer#start()}: when the application left the factories to MINA
     * (an empty list, filled from the authenticators at start), they are filled the same way now, so that
     * {@code publickey-kem} is added beside them rather than instead of them.
     *
     * @throws IllegalStateException when Bouncy Castle cannot run the post-quantum key exchange here, or MINA's key
     *             parsers could not be extended (see {@link MinaPqKeys})
     * @throws IllegalArgumentException when {@link ServerOptions#kex} names an unknown algorithm
     */
    public static SshServer install(SshServer sshd, ServerOptions options) {
        Objects.requireNonNull(sshd, "sshd");
        Objects.requireNonNull(options, "options");
        RuntimeVersions.check();
        if (sshd.isStarted()) {
            throw new IllegalStateException("Pqssh.install must be called before the SshServer is started");
        }
        PqKex.checkPostQuantumSupport();
        MinaPqKeys.ensureInstalled();
        sshd.setKeyExchangeFactories(kex(options.kex, sshd.getKeyExchangeFactories(), ServerBuilder.DH2KEX));
        sshd.setSignatureFactories(PqSignatureFactories.withPq(sshd.getSignatureFactories()));
        if (options.kem != null) {
            List<UserAuthFactory> own = sshd.getUserAuthFactories();
            List<UserAuthFactory> auth = new ArrayList<>(own == null || own.isEmpty()
                    ? ServerAuthenticationManager.resolveUserAuthFactories(sshd) : own);
            addIfAbsent(auth, new ServerKemUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM, options.kem));
            if (options.kemAnd) {
                addIfAbsent(auth, new ServerKemUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM_AND, options.kem));
            }
            sshd.setUserAuthFactories(auth);
            // choose the ML-KEM encapsulation provider (self-check + timing in the background, logged once)
            io.pqssh.core.kem.KemProviders.startSelection();
        }
        if (options.preAuthLimits != null) {
            PreAuthLimits.install(sshd, options.preAuthLimits);
        }
        sshd.addSessionListener(new PostQuantumKexPolicy(options.requirePostQuantumKex,
                k -> LOG.warn("connection uses non-post-quantum key exchange {}", k)));
        return sshd;
    }

    /** Post-quantum key exchange and key types on {@code client}, no {@code publickey-kem} identity. */
    public static SshClient install(SshClient client) {
        return install(client, ClientOptions.defaults());
    }

    /**
     * Installs pqssh on {@code client} as {@code options} say, before {@link SshClient#start()}. The KEM methods go
     * before the application's user-auth factories (MINA tries them in list order unless the application set
     * {@code CoreModuleProperties.PREFERRED_AUTHS}, which is left alone: add {@code publickey-kem} to it then). A
     * session without a KEM identity (none in the options and no {@link ClientKemUserAuthFactory#IDENTITY}
     * attribute) skips the KEM methods.
     */
    public static SshClient install(SshClient client, ClientOptions options) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(options, "options");
        RuntimeVersions.check();
        if (client.isStarted()) {
            throw new IllegalStateException("Pqssh.install must be called before the SshClient is started");
        }
        PqKex.checkPostQuantumSupport();
        MinaPqKeys.ensureInstalled();
        client.setKeyExchangeFactories(kex(options.kex, client.getKeyExchangeFactories(), ClientBuilder.DH2KEX));
        client.setSignatureFactories(PqSignatureFactories.withPq(client.getSignatureFactories()));
        List<org.apache.sshd.client.auth.UserAuthFactory> auth = new ArrayList<>();
        Function<ClientSession, KemClientIdentity> identity = s -> options.kemIdentity;
        auth.add(new ClientKemUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM, identity));
        auth.add(new ClientKemUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM_AND, identity));
        List<org.apache.sshd.client.auth.UserAuthFactory> existing = client.getUserAuthFactories();
        // none set: MINA would fill in its defaults at start; keep them behind the KEM methods
        for (org.apache.sshd.client.auth.UserAuthFactory f : existing == null || existing.isEmpty()
                ? SshClient.DEFAULT_USER_AUTH_FACTORIES : existing) {
            if (auth.stream().noneMatch(a -> a.getName().equals(f.getName()))) {
                auth.add(f);
            }
        }
        client.setUserAuthFactories(auth);
        client.addSessionListener(new PostQuantumKexPolicy(options.requirePostQuantumKex,
                k -> LOG.warn(PostQuantumKexPolicy.clientWarning(k))));
        return client;
    }

    /**
     * The PQ methods first ({@code names}, or OpenSSH 10's order of them), then {@code existing} minus those names;
     * with explicit {@code names} exactly those.
     */
    static List<KeyExchangeFactory> kex(List<String> names, List<KeyExchangeFactory> existing,
            Function<DHFactory, KeyExchangeFactory> dh2kex) {
        if (names != null) {
            return PqKex.factories(names, dh2kex);
        }
        List<String> pq = new ArrayList<>();
        for (String n : PqKex.DEFAULT_ORDER) {
            if (PqKex.isPostQuantum(n)) {
                pq.add(n);
            }
        }
        List<KeyExchangeFactory> out = new ArrayList<>(PqKex.factories(pq, dh2kex));
        if (existing != null) {
            for (KeyExchangeFactory f : existing) {
                if (!pq.contains(f.getName())) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    private static void addIfAbsent(List<UserAuthFactory> auth, UserAuthFactory f) {
        if (NamedResource.findByName(f.getName(), String.CASE_INSENSITIVE_ORDER, auth) == null) {
            auth.add(f);
        }
    }

    /** What {@link Pqssh#install(SshServer, ServerOptions)} adds; immutable, each setter returns a copy. */
    public static final class ServerOptions {
        private final KemServerSettings kem;
        private final boolean kemAnd;
        private final List<String> kex;
        private final boolean requirePostQuantumKex;
        private final PreAuthLimits.Settings preAuthLimits;

        private ServerOptions(KemServerSettings kem, boolean kemAnd, List<String> kex, boolean requirePostQuantumKex,
                PreAuthLimits.Settings preAuthLimits) {
            this.kem = kem;
            this.kemAnd = kemAnd;
            this.kex = kex;
            this.requirePostQuantumKex = requirePostQuantumKex;
            this.preAuthLimits = preAuthLimits;
        }

        /** No {@code publickey-kem}, OpenSSH 10's PQ key exchange before the server's own, no other limits. */
        public static ServerOptions defaults() {
            return new ServerOptions(null, true, null, false, null);
        }

        /** Enables {@code publickey-kem} (and {@code publickey-kem-and} unless {@link #kemAnd} is off). */
        public ServerOptions kem(KemServerSettings settings) {
            return new ServerOptions(Objects.requireNonNull(settings, "settings"), kemAnd, kex, requirePostQuantumKex,
                    preAuthLimits);
        }

        /** Whether {@code publickey-kem-and} is offered beside {@code publickey-kem} (default on). */
        public ServerOptions kemAnd(boolean enabled) {
            return new ServerOptions(kem, enabled, kex, requirePostQuantumKex, preAuthLimits);
        }

        /** Exactly these key exchange methods, in this order, instead of PQ-first-then-the-server's-own. */
        public ServerOptions kex(List<String> names) {
            return new ServerOptions(kem, kemAnd, List.copyOf(names), requirePostQuantumKex, preAuthLimits);
        }

        /** Disconnect a client that negotiates a classical key exchange (pqssh's {@code RequirePostQuantumKex}). */
        public ServerOptions requirePostQuantumKex(boolean require) {
            return new ServerOptions(kem, kemAnd, kex, require, preAuthLimits);
        }

        /**
         * Also {@code MaxStartups}, {@code PerSourceMaxStartups}, {@code PerSourceConnectRate} and
         * {@code MaxPreauthPacketSize}; this replaces the server's session factory, so leave it off when the
         * application has its own.
         */
        public ServerOptions preAuthLimits(PreAuthLimits.Settings settings) {
            return new ServerOptions(kem, kemAnd, kex, requirePostQuantumKex, settings);
        }
    }

    /** What {@link Pqssh#install(SshClient, ClientOptions)} adds; immutable, each setter returns a copy. */
    public static final class ClientOptions {
        private final KemClientIdentity kemIdentity;
        private final List<String> kex;
        private final boolean requirePostQuantumKex;

        private ClientOptions(KemClientIdentity kemIdentity, List<String> kex, boolean requirePostQuantumKex) {
            this.kemIdentity = kemIdentity;
            this.kex = kex;
            this.requirePostQuantumKex = requirePostQuantumKex;
        }

        /** No default KEM identity, OpenSSH 10's PQ key exchange before the client's own. */
        public static ClientOptions defaults() {
            return new ClientOptions(null, null, false);
        }

        /**
         * The KEM identity of every session (a session's {@link ClientKemUserAuthFactory#IDENTITY} attribute wins
         * over it).
         */
        public ClientOptions kemIdentity(KemClientIdentity identity) {
            return new ClientOptions(Objects.requireNonNull(identity, "identity"), kex, requirePostQuantumKex);
        }

        /** Exactly these key exchange methods, in this order, instead of PQ-first-then-the-client's-own. */
        public ClientOptions kex(List<String> names) {
            return new ClientOptions(kemIdentity, List.copyOf(names), requirePostQuantumKex);
        }

        /** Disconnect when the server negotiates a classical key exchange. */
        public ClientOptions requirePostQuantumKex(boolean require) {
            return new ClientOptions(kemIdentity, kex, require);
        }
    }
}
