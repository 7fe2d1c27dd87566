package io.pqssh.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.UserAuthFactory;
import org.apache.sshd.client.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.core.CoreModuleProperties;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.mina.auth.ClientKemUserAuthFactory;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.kex.PostQuantumKexPolicy;
import io.pqssh.client.kex.FirstKexGuessSender;
import io.pqssh.client.kex.GuessingKexFactory;
import io.pqssh.mina.internal.kex.InitialKexSignature;
import io.pqssh.mina.kex.PqKex;

/** A MINA SSHD client set up the pqssh way: OpenSSH 10 KEX order, KEM methods tried first, PQ policy. */
public final class PqsshClient implements AutoCloseable {
    private final SshClient client;
    private final Builder config;
    private final PostQuantumKexPolicy policy;

    private PqsshClient(SshClient client, Builder config, PostQuantumKexPolicy policy) {
        this.client = client;
        this.config = config;
        this.policy = policy;
    }

    static {
        // before MINA registers its JCA providers (Builder's defaults do): Bouncy Castle's is built only if needed
        io.pqssh.common.security.LazyBouncyCastleProvider.install();
    }

    public static Builder builder() {
        return new Builder();
    }

    public SshClient sshClient() {
        return client;
    }

    /** Connects, runs key exchange and authentication; the returned session is authenticated or this throws. */
    public ClientSession login(String user, String host, int port) throws IOException {
        return login(user, host, port, null);
    }

    /**
     * Logs in and runs {@code command}, copying its output; returns the exit status (or -1). With
     * {@link Builder#earlyChannelOpen} the session channel is opened behind the {@code publickey-kem} response
     * (see {@link EarlyExec}); otherwise, or when the login did not end with a KEM response, as {@link #exec}.
     */
    public int loginAndExec(String user, String host, int port, String command, OutputStream out, OutputStream err)
            throws IOException {
        return loginAndExec(user, host, port, command, out, err, config.timeout);
    }

    /** As above; {@code commandTimeout} bounds the command's run (the login uses the builder's timeout). */
    public int loginAndExec(String user, String host, int port, String command, OutputStream out, OutputStream err,
            Duration commandTimeout) throws IOException {
        EarlyExec early = config.earlyChannelOpen ? new EarlyExec(command, out, err) : null;
        try (ClientSession session = login(user, host, port, early)) {
            return early != null && early.used() ? early.awaitExit(commandTimeout)
                    : exec(session, command, out, err, commandTimeout);
        }
    }

    private ClientSession login(String user, String host, int port, EarlyExec early) throws IOException {
        ClientSession session = (config.knownHostsForOrder == null ? client.connect(user, host, port)
                : client.connect(user, host, port, io.pqssh.mina.internal.keys.HostKeyAlgorithmOrder.connectionContext(
                        io.pqssh.mina.internal.keys.HostKeyAlgorithmOrder.forHost(client.getSignatureFactories(),
                                config.knownHostsForOrder, host, port))))
                .verify(config.timeout).getSession();
        if (config.bannerTimeout != null) {
            awaitServerVersion(session, config.bannerTimeout);
            awaitServerHostKey(session, config.bannerTimeout);
        }
        try {
            if (config.kemIdentity != null) {
                session.setAttribute(ClientKemUserAuthFactory.IDENTITY, config.kemIdentity);
            }
            for (KeyPair kp : config.identities) {
                session.addPublicKeyIdentity(kp);
            }
            if (config.password != null) {
                session.addPasswordIdentity(config.password);
            }
            if (early != null) {
                early.install(session);
            }
            session.auth().verify(config.authTimeout != null ? config.authTimeout : config.timeout);
            return session;
        } catch (IOException | RuntimeException e) {
            String refusal = policy.refusalFor(session);
            boolean closedBeforeBanner = session.getServerVersion() == null && !session.isOpen();
            session.close(true);
            if (refusal != null) {
                throw new PostQuantumRequiredException(refusal, e);
            }
            if (closedBeforeBanner) {
                throw new ClosedBeforeBannerException(e);
            }
            throw e;
        }
    }

    /**
     * The connection ended before the server sent its identification line (a proxy command that exited, a server
     * that closed at once); ssh says {@code kex_exchange_identification: Connection closed by remote host}.
     */
    public static final class ClosedBeforeBannerException extends IOException {
        private static final long serialVersionUID = 1L;

        ClosedBeforeBannerException(Throwable cause) {
            super("kex_exchange_identification: Connection closed by remote host", cause);
        }
    }

    /**
     * Waits for the server's identification line: a server that accepts TCP but never speaks would otherwise hold
     * the login until the authentication timeout (ssh's ConnectTimeout covers the banner exchange too).
     */
    private static void awaitServerVersion(ClientSession session, Duration limit) throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (session.getServerVersion() == null && session.isOpen()) {
            if (System.nanoTime() - deadline >= 0) {
                session.close(true);
                throw new BannerTimeoutException();
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                session.close(true);
                throw new java.io.InterruptedIOException("interrupted during banner exchange");
            }
        }
    }

    /**
     * Waits, after the banner, for the key exchange to bring the server's host key (or to end): ConnectTimeout bounds
     * this part too, which OpenSSH 9.2's ssh leaves unbounded (measured: a server that sends its banner and then
     * nothing holds it until killed). The wait ends when the host key check starts, so that a prompt for the user's
     * answer is not cut short; the authentication timeout covers the rest.
     */
    private static void awaitServerHostKey(ClientSession session, Duration limit) throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (session.getAttribute(HOST_KEY_RECEIVED) == null && session.isOpen()
                && session.getKexState() != org.apache.sshd.common.kex.KexState.DONE) {
            if (System.nanoTime() - deadline >= 0) {
                session.close(true);
                throw new KexTimeoutException();
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                session.close(true);
                throw new java.io.InterruptedIOException("interrupted during key exchange");
            }
        }
    }

    /** Set on a session when its server host key arrived (the key exchange reached the host key check). */
    static final org.apache.sshd.common.AttributeRepository.AttributeKey<Boolean> HOST_KEY_RECEIVED =
            new org.apache.sshd.common.AttributeRepository.AttributeKey<>();

    /** The key exchange did not reach the server's host key within ConnectTimeout. */
    public static final class KexTimeoutException extends IOException {
        private static final long serialVersionUID = 1L;

        public KexTimeoutException() {
            super("key exchange timed out");
        }
    }

    /** No identification line from the server within ConnectTimeout; ssh's words. */
    public static final class BannerTimeoutException extends IOException {
        private static final long serialVersionUID = 1L;

        public BannerTimeoutException() {
            super("Connection timed out during banner exchange");
        }
    }

    /** Runs a command on an authenticated session, copying its output; returns the exit status (or -1). */
    public static int exec(ClientSession session, String command, OutputStream out, OutputStream err,
            Duration timeout) throws IOException {
        try (ChannelExec ch = session.createExecChannel(command)) {
            ch.setOut(out);
            ch.setErr(err);
            ch.open().verify(timeout);
            // wait for the close, not just exit-status: sshd may send exit-status before the last data, and
            // closing the channel then would drop output still in flight (OpenSSH's ssh waits for the close too)
            ch.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), timeout);
            Integer status = ch.getExitStatus();
            return status == null ? -1 : status;
        }
    }

    public static String execToString(ClientSession session, String command, Duration timeout) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = exec(session, command, out, new ByteArrayOutputStream(), timeout);
        if (rc != 0) {
            throw new IOException("remote command '" + command + "' exited with " + rc);
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        client.stop();
    }

    /** Thrown when the policy refused a classical key exchange. */
    public static final class PostQuantumRequiredException extends IOException {
        private static final long serialVersionUID = 1L;

        PostQuantumRequiredException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Collects the client settings; {@link #start()} builds and starts the client. */
    public static final class Builder {
        private List<String> kex = io.pqssh.mina.internal.kex.KexInitDefaults.CLIENT_KEX;
        private boolean kexExplicit;
        private boolean requirePqKex;
        private boolean warnWeakCrypto = true;
        private Consumer<String> warningSink = System.err::println;
        private ServerKeyVerifier serverKeyVerifier;
        private KemClientIdentity kemIdentity;
        private final List<KeyPair> identities = new ArrayList<>();
        private String password;
        private List<String> preferredAuth = List.of("publickey-kem", "publickey-kem-and",
                io.pqssh.mina.auth.hybrid.HybridAnd.NAME, "publickey", "password");
        private Duration timeout = Duration.ofSeconds(30);
        private Duration authTimeout;
        private Duration bannerTimeout;
        private java.nio.file.Path knownHostsForOrder;
        // round-trip options (docs/round-trips.md); system properties set the defaults, e.g. for the lab's agent
        private boolean noneProbe = Boolean.getBoolean("pqssh.client.noneProbe");
        private boolean pubkeySignDirectly = !"false".equalsIgnoreCase(
                System.getProperty("pqssh.client.pubkeySignDirectly", "true"));
        private boolean earlyChannelOpen = Boolean.getBoolean("pqssh.client.earlyChannelOpen");
        private boolean guessKex = !"false".equalsIgnoreCase(System.getProperty("pqssh.client.guessKex", "true"));
        private io.pqssh.common.transport.EarlyConnection earlyConnection;
        private io.pqssh.client.proxy.ProxyTransport.Opener proxy;
        private io.pqssh.client.kex.PreparedKemShare preparedKemShare;
        private boolean coalesceWrites = io.pqssh.common.transport.CoalescingIoServiceFactoryFactory.enabledByDefault();
        private io.pqssh.client.kex.ServerProposalCache kexGuessCache = io.pqssh.client.kex.ServerProposalCache.inMemory();
        private final List<Consumer<SshClient>> customizers = new ArrayList<>();
        private ClientSession jumpHost;

        /** An explicit list also silences the weak-crypto warning, as in OpenSSH. */
        public Builder kex(List<String> names) {
            this.kex = List.copyOf(names);
            this.kexExplicit = true;
            return this;
        }

        public Builder requirePostQuantumKex(boolean require) {
            this.requirePqKex = require;
            return this;
        }

        public Builder warnWeakCrypto(boolean warn) {
            this.warnWeakCrypto = warn;
            return this;
        }

        public Builder warningSink(Consumer<String> sink) {
            this.warningSink = Objects.requireNonNull(sink);
            return this;
        }

        public Builder serverKeyVerifier(ServerKeyVerifier verifier) {
            this.serverKeyVerifier = verifier;
            return this;
        }

        public Builder kemIdentity(KemClientIdentity identity) {
            this.kemIdentity = identity;
            return this;
        }

        public Builder identity(KeyPair keyPair) {
            this.identities.add(keyPair);
            return this;
        }

        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /** Client method order ({@code PreferredAuthentications}). */
        public Builder preferredAuthentications(List<String> methods) {
            this.preferredAuth = List.copyOf(methods);
            return this;
        }

        /**
         * Orders host key algorithms per destination from this {@code known_hosts} file: algorithms of keys it holds
         * for the host first, post-quantum ones before classical ones (see {@code HostKeyAlgorithmOrder}).
         */
        public Builder hostKeyOrderFrom(java.nio.file.Path knownHosts) {
            this.knownHostsForOrder = knownHosts;
            return this;
        }

        /**
         * {@code true}: send MINA's {@code none} USERAUTH_REQUEST first, as OpenSSH does. Default {@code false}: when
         * the session holds a credential, its method's request is the first one (one round trip less).
         */
        public Builder noneProbe(boolean probe) {
            this.noneProbe = probe;
            return this;
        }

        /**
         * {@code true} (the default): {@code publickey} sends the signed request at once for keys held in memory
         * instead of waiting for PK_OK (an agent's keys are still offered with the query first); {@code false}:
         * always the query first, as OpenSSH.
         */
        public Builder pubkeySignDirectly(boolean direct) {
            this.pubkeySignDirectly = direct;
            return this;
        }

        /**
         * {@code true} (default): when the {@link #kexGuessCache} shows the guess will be right, the first KEXINIT
         * says {@code first_kex_packet_follows} and the key exchange's first packet follows it in the same flight
         * (RFC 4253 §7.1; see {@code FirstKexGuess.plan}), one round trip less. Without that knowledge (the first
         * connection to a host) the client does not guess, so a guess never wastes bytes on a predictable miss.
         */
        public Builder guessKex(boolean guess) {
            this.guessKex = guess;
            return this;
        }

        /**
         * {@code true}: {@link PqsshClient#loginAndExec} sends CHANNEL_OPEN right behind the {@code publickey-kem}
         * response, one round trip less. Only for servers known to be pqssh with KEM as the last step: other
         * servers treat the early open as a protocol error (see {@link EarlyExec}). Default off.
         */
        public Builder earlyChannelOpen(boolean early) {
            this.earlyChannelOpen = early;
            return this;
        }

        /**
         * {@code true} (default; system property {@code pqssh.coalesceWrites=false} changes it): until the session
         * is authenticated, the packets MINA writes in one go (identification, KEXINIT and the guessed KEX init; a
         * reply's answers) leave as one write (docs/round-trips.md "One write per flight").
         */
        public Builder coalesceWrites(boolean on) {
            this.coalesceWrites = on;
            return this;
        }

        /**
         * Where the servers' last KEX and host key lists are kept for {@link #guessKex}; default: in memory, for
         * this client's lifetime ({@code pqssh ssh} uses {@code pqssh_kex_cache} beside {@code known_hosts}).
         */
        public Builder kexGuessCache(io.pqssh.client.kex.ServerProposalCache cache) {
            this.kexGuessCache = Objects.requireNonNull(cache);
            return this;
        }

        /**
         * Runs on the configured client just before it starts: the caller's hook for what this builder does not
         * cover (cipher and MAC lists, user interaction, heartbeats). It sees pqssh's defaults already in place.
         */
        public Builder customize(Consumer<SshClient> customizer) {
            this.customizers.add(Objects.requireNonNull(customizer));
            return this;
        }

        /**
         * Every connection of this client goes through {@code hop} (an authenticated session to a jump host), as a
         * {@code direct-tcpip} channel that carries the SSH transport: no local socket, no listener (see
         * {@link io.pqssh.client.jump.DirectTcpipTransport}). Host names are resolved by the hop.
         */
        public Builder through(ClientSession hop) {
            this.jumpHost = Objects.requireNonNull(hop);
            return this;
        }

        /**
         * Every connection of this client runs over what {@code opener} opens ({@code ProxyCommand},
         * {@code ProxyUseFdpass}; see {@link io.pqssh.client.proxy.ProxyTransport}) instead of a TCP connection.
         * Not with {@link #through} or {@link #earlyConnection}.
         */
        public Builder proxy(io.pqssh.client.proxy.ProxyTransport.Opener opener) {
            this.proxy = Objects.requireNonNull(opener);
            return this;
        }

        /**
         * A connection already under way to the server this client will log in to ({@link io.pqssh.common.transport.EarlyConnection}): its
         * first connect to that address uses it. Not with {@link #through}.
         */
        /**
         * The KEM key pair for the client's first key exchange, generated ahead ({@link
         * io.pqssh.client.kex.PreparedKemShare}); used by one exchange at most, and only with {@link #guessKex}.
         */
        public Builder preparedKemShare(io.pqssh.client.kex.PreparedKemShare share) {
            this.preparedKemShare = share;
            return this;
        }

        public Builder earlyConnection(io.pqssh.common.transport.EarlyConnection connection) {
            this.earlyConnection = connection;
            return this;
        }

        /** Bounds the authentication (default: {@link #timeout}); longer when a person types a password. */
        public Builder authTimeout(Duration d) {
            this.authTimeout = d;
            return this;
        }

        /** Bounds the wait for the server's identification line after the TCP connect (null: no own bound). */
        public Builder bannerTimeout(Duration d) {
            this.bannerTimeout = d;
            return this;
        }

        public Builder timeout(Duration d) {
            this.timeout = d;
            return this;
        }

        public PqsshClient start() {
            PqKex.checkPostQuantumSupport();
            io.pqssh.mina.keys.MinaPqKeys.ensureInstalled();
            SshClient client = ClientBuilder.builder().build();
            // OpenSSH 10.5's client lists, not MINA's (which offer ssh-rsa, CBC, hmac-sha1): KexInitDefaults
            client.setSignatureFactories(io.pqssh.mina.internal.kex.KexInitDefaults.hostKeyAlgorithms());
            client.setCipherFactories(io.pqssh.common.cipher.TransportCiphers.defaults());
            client.setMacFactories(io.pqssh.mina.internal.kex.KexInitDefaults.macs());
            client.setCompressionFactories(io.pqssh.mina.internal.kex.KexInitDefaults.compression());
            CoreModuleProperties.CLIENT_IDENTIFICATION.set(client, io.pqssh.mina.PqsshVersion.softwareVersion());
            client.addSessionListener(io.pqssh.mina.internal.keys.HostKeyAlgorithmOrder.APPLY_FROM_CONNECTION_CONTEXT);
            // every exchange records its host key signature for session-bind@openssh.com (InitialKexSignature)
            client.setKeyExchangeFactories(PqKex.factories(kex, guessKex
                    ? f -> f.isGroupExchange() ? InitialKexSignature.recording(ClientBuilder.DH2KEX.apply(f), true)
                            : new GuessingKexFactory(f)
                    : f -> InitialKexSignature.recording(ClientBuilder.DH2KEX.apply(f), f.isGroupExchange())));
            if (guessKex) {
                java.nio.file.Path knownHosts = knownHostsForOrder;
                FirstKexGuessSender guesser = new FirstKexGuessSender(kexGuessCache, (h, p) -> {
                    try {
                        return io.pqssh.mina.internal.keys.HostKeyAlgorithmOrder.knownKeyTypes(knownHosts, h, p);
                    } catch (IOException | RuntimeException e) {
                        return java.util.Set.of();
                    }
                });
                client.setReservedSessionMessagesHandler(guesser);
                // after HostKeyAlgorithmOrder's listener, which the builder added first
                client.addSessionListener(guesser);
            }
            ServerKeyVerifier verifier = Objects.requireNonNull(serverKeyVerifier, "server key verifier");
            client.setServerKeyVerifier((session, address, key) -> {
                session.setAttribute(HOST_KEY_RECEIVED, Boolean.TRUE); // ConnectTimeout's bound ends here
                return verifier.verifyServerKey(session, address, key);
            });
            // a host certificate MINA finds invalid (its own rules: the connect address as the only principal)
            // reaches the verifier as its plain key instead of ending the key exchange: ssh then checks the plain
            // key against known_hosts, and pqssh's verifier applies ssh's certificate rules itself (HostKeyCheck)
            CoreModuleProperties.ABORT_ON_INVALID_CERTIFICATE.set(client, false);
            List<UserAuthFactory> auth = new ArrayList<>();
            auth.add(new ClientKemUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM));
            auth.add(new ClientKemUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM_AND));
            auth.add(new io.pqssh.mina.auth.hybrid.ClientHybridAndUserAuthFactory(pubkeySignDirectly));
            auth.add(pubkeySignDirectly ? new DirectSignUserAuthPublicKey.Factory() : UserAuthPublicKeyFactory.INSTANCE);
            auth.add(UserAuthPasswordFactory.INSTANCE);
            client.setUserAuthFactories(auth);
            if (!noneProbe || earlyChannelOpen) {
                client.setServiceFactories(List.of(
                        noneProbe ? org.apache.sshd.client.session.ClientUserAuthServiceFactory.INSTANCE
                                : new DirectUserAuthServiceFactory(),
                        earlyChannelOpen ? new EarlyExec.ConnectionServiceFactory()
                                : org.apache.sshd.client.session.ClientConnectionServiceFactory.INSTANCE));
            }
            CoreModuleProperties.PREFERRED_AUTHS.set(client, String.join(",", preferredAuth));
            // MINA leaves Nagle on; with it a small flight waits for an ACK and costs a round trip
            CoreModuleProperties.TCP_NODELAY.set(client, true);
            // no idle limit of the client's own, as ssh (MINA's default cut a quiet session after 10 minutes);
            // ServerAliveInterval is the user's tool for dead peers
            CoreModuleProperties.IDLE_TIMEOUT.set(client, java.time.Duration.ZERO);
            // and no delayed ACK: sshd's Nagle waits for it before its next small packet (HalfCloseTransport)
            io.pqssh.common.transport.HalfCloseTransport.TCP_QUICKACK.set(client, true);
            io.pqssh.common.transport.HalfCloseTransport.INLINE_WRITES.set(client,
                    io.pqssh.common.transport.HalfCloseTransport.inlineWritesByDefault());
            org.apache.sshd.common.io.IoServiceFactoryFactory transport =
                    io.pqssh.common.transport.CoalescingIoServiceFactoryFactory.of(coalesceWrites, null);
            // through a jump host the SSH connection itself is not coalesced: it is a channel, not a TCP stream
            if (earlyConnection != null && jumpHost == null && proxy == null) {
                client.setAttribute(io.pqssh.common.transport.EarlyConnection.KEY, earlyConnection);
            }
            if (preparedKemShare != null) {
                client.setAttribute(io.pqssh.client.kex.PreparedKemShare.KEY, preparedKemShare);
            }
            client.setIoServiceFactoryFactory(jumpHost != null
                    ? new io.pqssh.client.jump.DirectTcpipTransport(jumpHost, transport)
                    : proxy != null ? new io.pqssh.client.proxy.ProxyTransport(proxy, transport) : transport);
            // forwarded-tcpip channels (-R) are accepted only for listeners this client asked for: MINA's forwarder
            // refuses a channel for a port it did not request
            client.setForwardingFilter(io.pqssh.client.ClientForwardingFilter.INSTANCE);
            // identities come from the caller only, never from ~/.ssh behind the user's back
            client.setKeyIdentityProvider(s -> List.of());
            boolean warn = warnWeakCrypto && !kexExplicit;
            PostQuantumKexPolicy policy = new PostQuantumKexPolicy(requirePqKex,
                    warn ? k -> warningSink.accept(PostQuantumKexPolicy.clientWarning(k)) : null);
            client.addSessionListener(policy);
            for (Consumer<SshClient> c : customizers) {
                c.accept(client);
            }
            client.start();
            return new PqsshClient(client, this, policy);
        }
    }
}
