package io.pqssh.server;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.core.CoreModuleProperties;
import org.apache.sshd.server.ServerBuilder;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.UserAuthFactory;
import org.apache.sshd.server.auth.password.PasswordAuthenticator;
import org.apache.sshd.server.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.server.auth.pubkey.PublickeyAuthenticator;
import org.apache.sshd.server.session.ServerConnectionServiceFactory;
import org.apache.sshd.server.shell.InteractiveProcessShellFactory;
import org.apache.sshd.sftp.server.SftpSubsystemFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.mina.auth.ServerKemUserAuthFactory;
import io.pqssh.mina.kex.PostQuantumKexPolicy;
import io.pqssh.mina.kex.PqKex;
import io.pqssh.mina.server.PreAuthLimits;
import io.pqssh.server.session.AuthenticationMethods;
import io.pqssh.mina.internal.server.PqsshSessionFactory;
import io.pqssh.server.session.PqsshUserAuthServiceFactory;

/**
 * A MINA SSHD server set up the pqssh way: OpenSSH 10 KEX order, the KEM methods beside publickey and password.
 * Sessions get only what the builder is given: the application's {@link Builder#commandFactory} and
 * {@link Builder#shellFactory}, or the operating system's as the JVM's user ({@link Builder#systemShell}: exec
 * through {@code /bin/sh -c}, SCP and an interactive shell), or the login's system account
 * ({@link Builder#logins}, what {@code pqssh server} uses), and SFTP only with {@link Builder#sftp}. Without them an
 * exec, shell or subsystem request is refused.
 */
public final class PqsshServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PqsshServer.class);

    private final SshServer sshd;
    private final KemServerSettings kemSettings;

    private PqsshServer(SshServer sshd, KemServerSettings kemSettings) {
        this.sshd = sshd;
        this.kemSettings = kemSettings;
    }

    static {
        // before MINA registers its JCA providers: Bouncy Castle's is built only if needed
        io.pqssh.common.security.LazyBouncyCastleProvider.install();
    }

    public static Builder builder() {
        return new Builder();
    }

    public int port() {
        return sshd.getPort();
    }

    public String host() {
        return sshd.getHost();
    }

    /** Every address the server listens on (one per ListenAddress and Port combination under pqssh server). */
    public List<java.net.InetSocketAddress> boundAddresses() {
        return sshd.getBoundAddresses().stream().map(a -> (java.net.InetSocketAddress) a).sorted(
                java.util.Comparator.comparing(java.net.InetSocketAddress::getPort)).toList();
    }

    public SshServer sshd() {
        return sshd;
    }

    /** Pending KEM challenges right now (zero when idle; the attack drills watch it). */
    public int pendingKemChallenges() {
        return kemSettings == null ? 0 : kemSettings.limiter().pending();
    }

    /**
     * Stops accepting connections; sessions already open go on until they end or {@link #close()} ends them. A
     * reload (SIGHUP) uses it to hand the port to a newly configured server without cutting anyone off.
     */
    public void stopListening() {
        ((ListeningSshServer) sshd).unbindAll();
    }

    /** Sessions open right now (pre-auth included). */
    public int activeSessions() {
        return sshd.getActiveSessions().size();
    }

    @Override
    public void close() throws IOException {
        sshd.stop(true);
    }

    /** MINA's server with access to its own acceptor, so that listening can stop before the sessions do. */
    static final class ListeningSshServer extends SshServer {
        void unbindAll() {
            if (acceptor != null) {
                acceptor.unbind();
            }
        }

        /** One more listening socket on the running acceptor (sshd's further Port and ListenAddress lines). */
        void bindAlso(java.net.SocketAddress address) throws IOException {
            acceptor.bind(address);
        }
    }

    /** Collects the server settings; {@link #start()} builds, starts and returns the server. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private List<java.net.InetSocketAddress> listen;
        private KeyPairProvider hostKeys;
        private List<java.nio.file.Path> hostCertificates = List.of();
        private KemServerSettings kem;
        private boolean kemAnd = true;
        private PublickeyAuthenticator publickey;
        private boolean publickeyHybridAnd;
        private PasswordAuthenticator password;
        private PasswordAuthenticator keyboardInteractive;
        private io.pqssh.server.login.PamLogins pamKeyboardInteractive;
        private String authenticationMethods;
        private List<String> kex = PqKex.DEFAULT_ORDER;
        private List<String> ciphers;
        private List<String> macs;
        private List<String> hostKeyAlgorithms;
        private List<String> pubkeyAcceptedAlgorithms;
        private boolean requirePqKex;
        private java.nio.file.Path banner;
        private String versionAddendum;
        private boolean tcpKeepAlive;
        private boolean compression = true;
        private int maxAuthTries = 6;
        private Duration loginGraceTime = Duration.ofSeconds(120);
        private boolean sftp;
        private org.apache.sshd.server.command.CommandFactory commandFactory;
        private org.apache.sshd.server.shell.ShellFactory shellFactory;
        private io.pqssh.server.login.LoginPolicy logins;
        private String sftpServer;
        private Predicate<String> validUser = user -> true;
        private PreAuthLimits.Settings preAuth;
        private boolean coalesceWrites = io.pqssh.common.transport.CoalescingIoServiceFactoryFactory.enabledByDefault();
        private org.apache.sshd.common.io.IoServiceFactoryFactory transport;
        private io.pqssh.server.forward.ForwardingPolicy forwarding;
        private io.pqssh.server.session.SessionPrelude sessionPrelude =
                io.pqssh.server.session.SessionPrelude.NONE;
        private List<String> acceptEnv = List.of();
        private io.pqssh.server.x11.X11Settings x11 = io.pqssh.server.x11.X11Settings.DEFAULT;
        private io.pqssh.server.session.UserEnvironment userEnvironment;
        private io.pqssh.server.session.LoginRecords.Settings loginRecords;
        private int maxSessions = io.pqssh.server.session.SessionLimit.DEFAULT;
        private io.pqssh.server.session.ConnectionTimeouts.Settings timeouts =
                io.pqssh.server.session.ConnectionTimeouts.Settings.NONE;
        private ConnectionConfig.Evaluator matchEvaluator;

        /**
         * sshd's Match per connection (what {@code pqssh server} passes when its file has Match blocks): once the
         * user name is known the connection's settings are evaluated and override, for that connection, the
         * builder's MaxAuthTries, AuthenticationMethods, enabled methods (the builder must be given every method
         * any Match block enables), Banner, forwarding, timeouts and MaxSessions; PermitRootLogin, the authorized
         * files, ForceCommand and ChrootDirectory are read from it by the authenticators and sessions
         * ({@link ConnectionConfig}). Default null: nothing is evaluated per connection.
         */
        public Builder matchEvaluator(ConnectionConfig.Evaluator evaluator) {
            this.matchEvaluator = evaluator;
            return this;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * Listens on every one of these sockets instead of {@link #host}/{@link #port} (sshd's Port and
         * ListenAddress combinations); a socket that cannot be bound stops the start.
         */
        public Builder listen(List<java.net.InetSocketAddress> sockets) {
            if (sockets.isEmpty()) {
                throw new IllegalArgumentException("no address to listen on");
            }
            this.listen = List.copyOf(sockets);
            return this;
        }

        public Builder hostKeys(KeyPairProvider provider) {
            this.hostKeys = provider;
            return this;
        }

        /**
         * {@code HostCertificate} files: each certificate is offered with the host key it certifies; unusable ones
         * are logged and skipped at start, as sshd does ({@link HostCertificates}).
         */
        public Builder hostCertificates(List<java.nio.file.Path> files) {
            this.hostCertificates = List.copyOf(files);
            return this;
        }

        /** Host keys from private key files of any type (PQ ones through pqssh, the rest through MINA). */
        public Builder hostKeyFiles(java.util.List<java.nio.file.Path> files) throws IOException {
            this.hostKeys = io.pqssh.mina.keys.PqKeyPairProvider.fromFiles(files, null);
            return this;
        }

        /** Enables publickey-kem (and publickey-kem-and unless turned off). */
        public Builder kem(KemServerSettings settings) {
            this.kem = settings;
            return this;
        }

        public Builder kemAnd(boolean enabled) {
            this.kemAnd = enabled;
            return this;
        }

        public Builder publickey(PublickeyAuthenticator authenticator) {
            this.publickey = authenticator;
            return this;
        }

        /**
         * Also offers {@code publickey-hybrid-and} (AND composite keys only, same authenticator as publickey). It is
         * offered anyway when {@link #authenticationMethods} names it.
         */
        public Builder publickeyHybridAnd(boolean enabled) {
            this.publickeyHybridAnd = enabled;
            return this;
        }

        /**
         * keyboard-interactive with one {@code Password: } prompt checked by {@code authenticator}, as sshd with PAM
         * (default off).
         */
        /**
         * keyboard-interactive through PAM's conversation (sshd with {@code UsePAM yes}); it replaces
         * {@link #keyboardInteractive(PasswordAuthenticator)}.
         */
        public Builder pamKeyboardInteractive(io.pqssh.server.login.PamLogins pam) {
            this.pamKeyboardInteractive = pam;
            return this;
        }

        public Builder keyboardInteractive(PasswordAuthenticator authenticator) {
            this.keyboardInteractive = authenticator;
            return this;
        }

        public Builder password(PasswordAuthenticator authenticator) {
            this.password = authenticator;
            return this;
        }

        /** OpenSSH {@code AuthenticationMethods}: space-separated alternatives of comma-separated steps. */
        public Builder authenticationMethods(String methods) {
            this.authenticationMethods = methods;
            return this;
        }

        public Builder kex(List<String> names) {
            this.kex = List.copyOf(names);
            return this;
        }

        /** sshd's {@code Ciphers}: names from {@link ServerAlgorithms#CIPHERS} (null: its defaults). */
        public Builder ciphers(List<String> names) {
            this.ciphers = names == null ? null : List.copyOf(names);
            return this;
        }

        /** sshd's {@code MACs} (null: {@link ServerAlgorithms#MACS}' defaults). */
        public Builder macs(List<String> names) {
            this.macs = names == null ? null : List.copyOf(names);
            return this;
        }

        /** sshd's {@code HostKeyAlgorithms}: what the host keys may sign with (null: every supported type). */
        public Builder hostKeyAlgorithms(List<String> names) {
            this.hostKeyAlgorithms = names == null ? null : List.copyOf(names);
            return this;
        }

        /**
         * sshd's {@code PubkeyAcceptedAlgorithms}: the publickey method's signature algorithms, also sent as
         * {@code server-sig-algs} (null: the defaults, the same list as the host key algorithms').
         */
        public Builder pubkeyAcceptedAlgorithms(List<String> names) {
            this.pubkeyAcceptedAlgorithms = names == null ? null : List.copyOf(names);
            return this;
        }

        public Builder requirePostQuantumKex(boolean require) {
            this.requirePqKex = require;
            return this;
        }

        public Builder maxAuthTries(int n) {
            this.maxAuthTries = n;
            return this;
        }

        /**
         * Which user names exist, for sshd's {@code Invalid user} log line and the {@code invalid user} tag of the
         * Failed lines (default: every name). It does not refuse anyone by itself.
         */
        public Builder validUser(Predicate<String> exists) {
            this.validUser = Objects.requireNonNull(exists);
            return this;
        }

        public Builder loginGraceTime(Duration d) {
            this.loginGraceTime = d;
            return this;
        }

        /** MaxStartups, PerSourceMaxStartups, PerSourceConnectRate, MaxPreauthPacketSize; null (default) = none. */
        public Builder preAuthLimits(PreAuthLimits.Settings settings) {
            this.preAuth = settings;
            return this;
        }

        /**
         * {@code true} (default; system property {@code pqssh.coalesceWrites=false} changes it): until the session
         * is authenticated, the packets MINA writes while handling one message leave as one write (one round trip
         * less at small initial congestion windows, docs/round-trips.md "One write per flight").
         */
        public Builder coalesceWrites(boolean on) {
            this.coalesceWrites = on;
            return this;
        }

        /** The MINA transport underneath (default: MINA's own choice); for tests and measurements. */
        public Builder transport(org.apache.sshd.common.io.IoServiceFactoryFactory factory) {
            this.transport = factory;
            return this;
        }

        /**
         * Logins as system accounts (what {@code pqssh server} uses): the policy refuses unknown, locked and
         * nologin accounts at authentication, and every session (exec, shell, sftp, legacy scp) runs as the
         * login's account through its login shell ({@code io.pqssh.server.session.UserSessions}); see
         * {@code LoginPolicy.forThisProcess()}. It replaces {@link #commandFactory},
         * {@link #shellFactory} and {@link #systemShell}. Without it (null, the default for embedding) user names
         * are the authenticators' business and sessions get what those give.
         */
        public Builder logins(io.pqssh.server.login.LoginPolicy policy) {
            this.logins = policy;
            return this;
        }

        /**
         * Under {@link #logins}: sshd's PrintMotd and PermitUserRC steps before each session's command (default
         * {@code SessionPrelude.NONE}; {@code pqssh server} passes its configuration, sshd's defaults).
         */
        public Builder sessionPrelude(io.pqssh.server.session.SessionPrelude prelude) {
            this.sessionPrelude = Objects.requireNonNull(prelude);
            return this;
        }

        /**
         * Under {@link #logins} with {@link #forwarding}: sshd's X11 keywords (default: X11Forwarding no). A Match
         * block's X11Forwarding, X11DisplayOffset and X11UseLocalhost apply to its connections.
         */
        public Builder x11(io.pqssh.server.x11.X11Settings settings) {
            this.x11 = Objects.requireNonNull(settings);
            return this;
        }

        /**
         * Under {@link #logins}: the login accounting of pty sessions (utmp, wtmp, lastlog, as sshd) and sshd's
         * {@code PrintLastLog}. Default none (embedding); {@code pqssh server} passes its glibc implementation.
         */
        public Builder loginRecords(io.pqssh.server.session.LoginRecords records, boolean printLastLog) {
            this.loginRecords = new io.pqssh.server.session.LoginRecords.Settings(Objects.requireNonNull(records),
                    printLastLog);
            return this;
        }

        /** The sftp-server program for the sftp subsystem under {@link #logins} (default: OpenSSH's, found). */
        public Builder sftpServer(String path) {
            this.sftpServer = path;
            return this;
        }

        /**
         * TCP and agent forwarding under sshd's keywords ({@code pqssh server} passes its configuration, whose
         * defaults are OpenSSH 10's). Without it (the default for embedding) the server forwards nothing.
         */
        public Builder forwarding(io.pqssh.server.forward.ForwardingPolicy policy) {
            this.forwarding = Objects.requireNonNull(policy);
            return this;
        }

        /**
         * sshd's {@code AcceptEnv}: the names (wildcard patterns) of the client's {@code env} requests that reach a
         * session's process under {@link #logins}. Default none, as sshd.
         */
        public Builder acceptEnv(List<String> patterns) {
            this.acceptEnv = List.copyOf(patterns);
            return this;
        }

        /**
         * sshd's {@code PermitUserEnvironment} under {@link #logins}: the accepted key's {@code environment=} options
         * and {@code ~/.ssh/environment} (read as the user) set variables of the user's session process. Default
         * null, sshd's {@code no}.
         */
        public Builder permitUserEnvironment(io.pqssh.server.session.UserEnvironment setting) {
            this.userEnvironment = setting;
            return this;
        }

        /**
         * sshd's {@code MaxSessions}: open {@code session} channels per connection (default 10, as sshd; 0 allows
         * only forwarding). One more fails to open with sshd's "open failed".
         */
        public Builder maxSessions(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("MaxSessions must not be negative: " + max);
            }
            this.maxSessions = max;
            return this;
        }

        /**
         * sshd's ClientAliveInterval, ClientAliveCountMax, ChannelTimeout and UnusedConnectionTimeout (default none:
         * an idle connection stays open for ever, as with sshd; MINA's own 10-minute idle timeout is always off).
         */
        public Builder connectionTimeouts(io.pqssh.server.session.ConnectionTimeouts.Settings settings) {
            this.timeouts = Objects.requireNonNull(settings);
            return this;
        }

        /**
         * sshd's {@code Banner}: the file's text is sent (SSH_MSG_USERAUTH_BANNER) in answer to the client's first
         * authentication request, as sshd does; null for none.
         */
        public Builder banner(java.nio.file.Path file) {
            this.banner = file;
            return this;
        }

        /** sshd's {@code VersionAddendum}: text after the software version in the identification line; null for none. */
        public Builder versionAddendum(String addendum) {
            if (addendum != null && addendum.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
                throw new IllegalArgumentException("VersionAddendum must not contain control characters");
            }
            this.versionAddendum = addendum;
            return this;
        }

        /** sshd's {@code TCPKeepAlive} (default yes there, MINA's default no): SO_KEEPALIVE on accepted sockets. */
        public Builder tcpKeepAlive(boolean on) {
            this.tcpKeepAlive = on;
            return this;
        }

        /** sshd's {@code Compression}: {@code false} offers only {@code none}; {@code true} zlib@openssh.com after auth. */
        public Builder compression(boolean on) {
            this.compression = on;
            return this;
        }

        /** SFTP (default off): as the JVM's user, or under {@link #logins} as the login's account. */
        public Builder sftp(boolean enabled) {
            this.sftp = enabled;
            return this;
        }

        /** The application's handler of exec requests (default: none, exec is refused). */
        public Builder commandFactory(org.apache.sshd.server.command.CommandFactory factory) {
            this.commandFactory = factory;
            return this;
        }

        /** The application's interactive shell (default: none, a shell request is refused). */
        public Builder shellFactory(org.apache.sshd.server.shell.ShellFactory factory) {
            this.shellFactory = factory;
            return this;
        }

        /**
         * The operating system's shell as the JVM's user: exec through {@code /bin/sh -c} (legacy {@code scp -t|-f}
         * through MINA's SCP) and an interactive {@code /bin/sh}; what {@code pqssh server} offers.
         */
        public Builder systemShell() {
            // scp -O (legacy SCP protocol) runs "scp -t|-f ..." as an exec command: MINA's SCP; the rest via /bin/sh
            this.commandFactory = new org.apache.sshd.scp.server.ScpCommandFactory.Builder()
                    .withDelegate(ShellCommandFactory.INSTANCE).withReceiveBufferSize(64 * 1024)
                    .withSendBufferSize(64 * 1024).build();
            this.shellFactory = InteractiveProcessShellFactory.INSTANCE;
            return this;
        }

        /**
         * Parses {@code AuthenticationMethods} and checks it against the enabled methods, refusing at start-up what
         * sshd refuses (an unknown or disabled method) and a sub-method pqssh cannot honour: only the KEM methods
         * take one, an ML-KEM parameter set allowed by KEMAuthAlgorithms ({@code publickey-kem:mlkem768}).
         */
        private AuthenticationMethods checkedMethods(List<UserAuthFactory> auth, String spec) {
            List<String> enabled = auth.stream().map(UserAuthFactory::getName).toList();
            return AuthenticationMethods.parse(spec).check(enabled, (method, sub) -> {
                if (KemAuthMethod.fromWireName(method).isEmpty()) {
                    throw new IllegalArgumentException("AuthenticationMethods: " + method + ":" + sub + ": only"
                            + " publickey-kem and publickey-kem-and take a sub-method (an ML-KEM parameter set, e.g."
                            + " publickey-kem:mlkem768)");
                }
                KemAlgorithm alg = KemAlgorithm.fromName(sub).orElseThrow(() -> new IllegalArgumentException(
                        "AuthenticationMethods: " + method + ":" + sub + ": '" + sub + "' is not an ML-KEM parameter"
                                + " set (mlkem512, mlkem768, mlkem1024)"));
                if (!kem.allowedAlgorithms().contains(alg)) {
                    throw new IllegalArgumentException("AuthenticationMethods: " + method + ":" + sub + " can never"
                            + " succeed: KEMAuthAlgorithms does not allow " + alg.sshName());
                }
                return alg.sshName();
            });
        }

        public PqsshServer start() throws IOException {
            PqKex.checkPostQuantumSupport();
            io.pqssh.mina.keys.MinaPqKeys.ensureInstalled();
            SshServer sshd = ServerBuilder.builder().factory(ListeningSshServer::new).build();
            // HostKeyAlgorithms, Ciphers, MACs (ServerAlgorithms' defaults: MINA's signatures plus the post-quantum
            // ones; OpenSSH 10.5's ciphers with chacha20-poly1305 on the JDK's ChaCha20; MACs without SHA-1)
            sshd.setSignatureFactories(hostKeyAlgorithms == null ? ServerAlgorithms.defaultSignatures()
                    : ServerAlgorithms.signatures(hostKeyAlgorithms));
            sshd.setCipherFactories(ServerAlgorithms.ciphers(ciphers == null ? ServerAlgorithms.CIPHERS.defaults()
                    : ciphers));
            sshd.setMacFactories(ServerAlgorithms.macs(macs == null ? ServerAlgorithms.MACS.defaults() : macs));
            sshd.setCompressionFactories(compression ? io.pqssh.mina.internal.kex.KexInitDefaults.compression()
                    : List.of(org.apache.sshd.common.compression.BuiltinCompressions.none));
            // "SSH-2.0-pqssh_0.1.0", not MINA's "SSH-2.0-APACHE-SSHD-2.20.0"
            CoreModuleProperties.SERVER_IDENTIFICATION.set(sshd, io.pqssh.mina.PqsshVersion.softwareVersion()
                    + (versionAddendum == null ? "" : " " + versionAddendum));
            if (banner != null) {
                CoreModuleProperties.WELCOME_BANNER.set(sshd, banner);
                CoreModuleProperties.WELCOME_BANNER_PHASE.set(sshd,
                        org.apache.sshd.server.auth.WelcomeBannerPhase.FIRST_REQUEST);
            }
            CoreModuleProperties.SOCKET_KEEPALIVE.set(sshd, tcpKeepAlive);
            if (listen != null) {
                sshd.setHost(listen.get(0).getAddress().getHostAddress());
                sshd.setPort(listen.get(0).getPort());
            } else {
                sshd.setHost(host);
                sshd.setPort(port);
            }
            sshd.setKeyPairProvider(Objects.requireNonNull(hostKeys, "host keys"));
            if (AgentHostKeys.anyHeldByAgent(hostKeys)) {
                // HostKeyAgent: the signatures of agent-held host keys are the agent's
                sshd.setSignatureFactories(AgentHostKeys.signatures(sshd.getSignatureFactories()));
            }
            if (!hostCertificates.isEmpty()) {
                Iterable<java.security.KeyPair> keys;
                try {
                    keys = hostKeys.loadKeys(null);
                } catch (java.security.GeneralSecurityException e) {
                    throw new IOException("host keys: " + e.getMessage(), e);
                }
                sshd.setHostKeyCertificateProvider(HostCertificates.provider(HostCertificates.load(hostCertificates,
                        keys, e -> LOG.error(e))));
            }
            sshd.setKeyExchangeFactories(PqKex.factories(kex, ServerBuilder.DH2KEX));
            List<UserAuthFactory> auth = new ArrayList<>();
            if (publickey != null) {
                PublickeyAuthenticator delegate = publickey;
                // the key's type and fingerprint for the Accepted/Failed log line
                sshd.setPublickeyAuthenticator((user, key, session) -> {
                    io.pqssh.mina.internal.auth.AuthAttempt.recordKey(session, key);
                    // a name the login policy refused gets no PK_OK, whatever an application's authenticator says
                    return delegate.authenticate(user, key, session)
                            && !io.pqssh.server.login.AdmittingUserAuthFactory.refused(session, user);
                });
                PublickeyAlgorithms pk = new PublickeyAlgorithms(pubkeyAcceptedAlgorithms == null
                        ? ServerAlgorithms.PUBKEY.defaults() : pubkeyAcceptedAlgorithms,
                        delegate instanceof CertificateOptionsEnforcing);
                auth.add(pk);
                sshd.setKexExtensionHandler(pk.serverSigAlgs());
                // choose the ML-DSA verification provider (self-check + timing in the background, logged once)
                io.pqssh.core.sig.SigProviders.startSelection();
                if (publickeyHybridAnd || (authenticationMethods != null && java.util.Arrays.stream(
                        authenticationMethods.split("[ ,]")).anyMatch(io.pqssh.mina.auth.hybrid.HybridAnd.NAME::equals))) {
                    auth.add(io.pqssh.mina.auth.hybrid.ServerHybridAndUserAuthFactory.INSTANCE);
                }
            } else {
                sshd.setPublickeyAuthenticator(null);
            }
            if (kem != null) {
                // choose the ML-KEM encapsulation provider (self-check + timing in the background, logged once)
                io.pqssh.core.kem.KemProviders.startSelection();
                auth.add(new ServerKemUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM, kem));
                if (kemAnd) {
                    auth.add(new ServerKemUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM_AND, kem));
                }
            }
            if (password != null) {
                sshd.setPasswordAuthenticator(password);
                auth.add(UserAuthPasswordFactory.INSTANCE);
            } else {
                sshd.setPasswordAuthenticator(null);
            }
            if (pamKeyboardInteractive != null) {
                sshd.setKeyboardInteractiveAuthenticator(null);
                auth.add(new io.pqssh.server.login.PamKeyboardInteractive(pamKeyboardInteractive));
            } else if (keyboardInteractive != null) {
                sshd.setKeyboardInteractiveAuthenticator(new PasswordPrompt(keyboardInteractive));
                auth.add(org.apache.sshd.server.auth.keyboard.UserAuthKeyboardInteractiveFactory.INSTANCE);
            } else {
                sshd.setKeyboardInteractiveAuthenticator(null);
            }
            if (auth.isEmpty()) {
                throw new IllegalStateException("no authentication method is enabled");
            }
            if (logins != null) {
                auth = io.pqssh.server.login.AdmittingUserAuthFactory.wrapAll(auth, logins);
            }
            sshd.setUserAuthFactories(auth);
            // session channels obey the accepted keys' no-pty/restrict/command= (KeyRestrictions) and AcceptEnv
            List<org.apache.sshd.common.channel.ChannelFactory> channels = new ArrayList<>();
            org.apache.sshd.common.channel.ChannelFactory session =
                    io.pqssh.server.session.SessionLimit.factory(acceptEnv, maxSessions);
            for (org.apache.sshd.common.channel.ChannelFactory f : sshd.getChannelFactories()) {
                // direct-tcpip: half-close both ways, as sshd (HalfClosingTcpipChannel)
                channels.add("session".equals(f.getName()) ? session
                        : "direct-tcpip".equals(f.getName())
                                ? new io.pqssh.server.forward.HalfClosingTcpipChannel.Factory() : f);
            }
            sshd.setChannelFactories(channels);
            AuthenticationMethods methods = checkedMethods(auth, authenticationMethods);
            // pqssh's own user-auth service counts MaxAuthTries the sshd way; MINA's request counter stays out
            CoreModuleProperties.MAX_AUTH_REQUESTS.set(sshd, Integer.MAX_VALUE);
            CoreModuleProperties.AUTH_TIMEOUT.set(sshd, loginGraceTime);
            // sshd keeps an idle session for ever; MINA would cut it after 10 minutes ("Detected IdleTimeout").
            // The keywords that do end idle connections are ConnectionTimeouts'.
            CoreModuleProperties.IDLE_TIMEOUT.set(sshd, Duration.ZERO);
            io.pqssh.server.session.ConnectionTimeouts.install(sshd, timeouts, matchEvaluator != null);
            PqsshUserAuthServiceFactory.PerConnection perConnection = null;
            if (matchEvaluator != null) {
                List<UserAuthFactory> offered = List.copyOf(auth);
                perConnection = new PqsshUserAuthServiceFactory.PerConnection(matchEvaluator,
                        spec -> checkedMethods(offered, spec));
                sshd.setAttribute(ConnectionConfig.EVALUATOR, matchEvaluator);
                // a Match block's Banner can only be chosen once the user is known
                CoreModuleProperties.WELCOME_BANNER_PHASE.set(sshd,
                        org.apache.sshd.server.auth.WelcomeBannerPhase.FIRST_REQUEST);
            }
            sshd.setServiceFactories(List.of(
                    new PqsshUserAuthServiceFactory(new PqsshUserAuthServiceFactory.Settings(maxAuthTries, methods,
                            validUser, perConnection)),
                    ServerConnectionServiceFactory.INSTANCE));
            sshd.setSessionFactory(new PqsshSessionFactory(sshd, null));
            if (preAuth != null) {
                PreAuthLimits.install(sshd, preAuth);
            }
            CoreModuleProperties.TCP_NODELAY.set(sshd, true);
            // no delayed ACK either: OpenSSH's client leaves Nagle on before authentication, and its SERVICE_REQUEST
            // waited for this server's delayed ACK of its NEWKEYS (~45 ms over the 67 ms link; HalfCloseTransport)
            io.pqssh.common.transport.HalfCloseTransport.TCP_QUICKACK.set(sshd, true);
            io.pqssh.common.transport.HalfCloseTransport.INLINE_WRITES.set(sshd, "true".equalsIgnoreCase(
                    System.getProperty(io.pqssh.common.transport.HalfCloseTransport.INLINE_WRITES_PROPERTY, "")));
            sshd.setIoServiceFactoryFactory(io.pqssh.common.transport.CoalescingIoServiceFactoryFactory.of(
                    coalesceWrites, transport));
            sshd.addSessionListener(new PostQuantumKexPolicy(requirePqKex,
                    kexName -> LOG.warn("connection uses non-post-quantum key exchange {}", kexName)));
            if (logins != null) {
                installUserSessions(sshd);
            } else {
                sshd.setCommandFactory(commandFactory);
                // MINA's SCP opens received files with SYNC (one disk flush per 8 KiB write); OpenSSH's scp does not
                org.apache.sshd.scp.ScpModuleProperties.PROP_AUTO_SYNC_FILE_ON_WRITE.set(sshd, false);
                sshd.setShellFactory(shellFactory);
                if (sftp) {
                    sshd.setSubsystemFactories(List.of(new SftpSubsystemFactory()));
                }
            }
            if (forwarding != null) {
                sshd.setForwardingFilter(new io.pqssh.server.forward.PolicyForwardingFilter(forwarding));
                sshd.setForwarderFactory(new io.pqssh.server.forward.GatewayPortsForwarderFactory(
                        forwarding.gatewayPorts()));
                // agent forwarding: a Unix socket per connection relayed to the client (AllowAgentForwarding)
                sshd.setAgentFactory(io.pqssh.common.agent.PqsshAgentFactory.forServer());
                // Unix-domain socket forwarding (AllowStreamLocalForwarding), which MINA does not have
                io.pqssh.server.forward.StreamLocalForwarding streamLocal =
                        new io.pqssh.server.forward.StreamLocalForwarding(forwarding);
                List<org.apache.sshd.common.channel.ChannelFactory> withStreamLocal =
                        new ArrayList<>(sshd.getChannelFactories());
                withStreamLocal.add(streamLocal.channelFactory());
                sshd.setChannelFactories(withStreamLocal);
                List<org.apache.sshd.common.channel.RequestHandler<org.apache.sshd.common.session.ConnectionService>>
                        global = new ArrayList<>(sshd.getGlobalRequestHandlers() == null
                                ? org.apache.sshd.server.ServerBuilder.DEFAULT_GLOBAL_REQUEST_HANDLERS
                                : sshd.getGlobalRequestHandlers());
                global.add(streamLocal.requestHandler());
                sshd.setGlobalRequestHandlers(global);
            }
            if (sftp) {
                // bulk transfer (lab transfer, issue 4): a larger channel window and packets, and SFTP reads up to
                // 255 KiB per request instead of 63 KiB, so fewer round trips and per-packet costs per megabyte
                CoreModuleProperties.WINDOW_SIZE.set(sshd, 8L * 1024 * 1024);
                CoreModuleProperties.MAX_PACKET_SIZE.set(sshd, 64L * 1024);
                org.apache.sshd.sftp.SftpModuleProperties.MAX_READDATA_PACKET_LENGTH.set(sshd, 255 * 1024);
            }
            sshd.start();
            for (java.net.InetSocketAddress more : listen == null ? List.<java.net.InetSocketAddress>of()
                    : listen.subList(1, listen.size())) {
                try {
                    ((ListeningSshServer) sshd).bindAlso(more);
                } catch (IOException e) {
                    // sshd goes on with the sockets it could bind; pqssh does not start half-listening
                    sshd.stop(true);
                    throw new IOException("Bind to port " + more.getPort() + " on "
                            + more.getAddress().getHostAddress() + " failed: " + e.getMessage(), e);
                }
            }
            // JIT-compile the transport ciphers and MACs now rather than during the first transfer (issue 4)
            TransportWarmup.start(sshd.getCipherFactories(), sshd.getMacFactories());
            LOG.info("pqssh server listening on {} (kex {})", sshd.getBoundAddresses(), String.join(",", kex));
            return new PqsshServer(sshd, kem);
        }

        private void installUserSessions(SshServer sshd) {
            if (logins.switchesUsers()) {
                if (!io.pqssh.server.session.SessionLaunch.canSwitchUsers()) {
                    throw new IllegalStateException("running as root, pqssh server needs util-linux setpriv"
                            + " (/usr/bin/setpriv) to run sessions as the logged-in users");
                }
                LOG.info("running as root: each session runs as the account that logged in");
            } else {
                String me = logins.onlyUser().orElseThrow();
                LOG.info("not running as root: only user {} can log in, and sessions run as {}", me, me);
            }
            sshd.setAttribute(io.pqssh.server.session.SessionPrelude.KEY, sessionPrelude);
            sshd.setAttribute(io.pqssh.server.x11.X11Settings.KEY, x11);
            if (userEnvironment != null) {
                sshd.setAttribute(io.pqssh.server.session.UserEnvironment.KEY, userEnvironment);
            }
            if (loginRecords != null) {
                sshd.setAttribute(io.pqssh.server.session.LoginRecords.KEY, loginRecords);
            }
            sshd.setCommandFactory(io.pqssh.server.session.UserSessions.commands());
            sshd.setShellFactory(io.pqssh.server.session.UserSessions.shells());
            if (sftp) {
                java.util.Optional<String> installed = io.pqssh.server.session.UserSessions.findSftpServer();
                installed.ifPresent(path -> sshd.setAttribute(io.pqssh.server.session.UserSessions.SFTP_SERVER,
                        path));
                if (sftpServer != null && !io.pqssh.server.session.UserSessions.isInternalSftp(sftpServer)) {
                    // an admin's program, run through the user's shell as sshd does
                    sshd.setSubsystemFactories(List.of(io.pqssh.server.session.UserSessions.sftp(sftpServer)));
                } else if (installed.isPresent() || logins.switchesUsers()) {
                    sshd.setSubsystemFactories(List.of(io.pqssh.server.session.UserSessions.internalSftpSubsystem(
                            sftpServer != null ? sftpServer : "internal-sftp")));
                } else {
                    // the server's user is the only login: MINA's in-process SFTP serves files as that user
                    sshd.setSubsystemFactories(List.of(new SftpSubsystemFactory()));
                }
            }
        }
    }
}
