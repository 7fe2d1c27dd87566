package io.pqssh.cli;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import java.io.IOException;
import java.net.InetSocketAddress;

import org.apache.sshd.client.session.ClientSession;

import io.pqssh.client.config.ClientConfig;
import io.pqssh.client.config.ConfigException;
import io.pqssh.client.config.ForwardSpec;
import io.pqssh.client.config.OptionValue;
import io.pqssh.client.config.Patterns;
import io.pqssh.client.ssh.ClientLog;
import io.pqssh.client.ssh.ClientSetup;
import io.pqssh.client.ssh.Failures;
import io.pqssh.client.ssh.Forwarding;
import io.pqssh.client.ssh.HostKeyCheck;
import io.pqssh.client.ssh.Identities;
import io.pqssh.client.ssh.Progress;
import io.pqssh.client.ssh.Prompter;
import io.pqssh.client.ssh.Queries;
import io.pqssh.client.ssh.SessionRunner;
import io.pqssh.client.ssh.Background;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemPrivateKey;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.client.PqsshClient;
import io.pqssh.common.transport.EarlyConnection;
import picocli.CommandLine.Command;

/**
 * {@code pqssh ssh}: OpenSSH's {@code ssh} with KEM authentication and post-quantum key exchange. Options and
 * ssh_config keywords are in docs/client.md; exit status is the remote command's, or 255 on any error (as ssh).
 */
@Command(name = "ssh",
        description = {"Log in to an SSH server and run a command or a shell (OpenSSH's ssh options; docs/client.md).",
                "Exit status: the remote command's, or 255 on an error. Options: pqssh ssh --help."})
public final class SshCommand implements Callable<Integer> {
    String destination;

    List<String> command = new ArrayList<>();

    /**
     * For {@code pqssh scp}/{@code pqssh sftp}: what to do with the authenticated session instead of a shell or
     * command (same configuration, identities, host key checking, agent and jumps as {@code pqssh ssh}).
     */
    public interface SessionUser {
        int use(ClientSession session) throws Exception;
    }

    SessionUser sessionUser;

    /** The TCP connection started before MINA's client was ready; closed at the end if MINA did not take it. */
    private EarlyConnection early;

    /** Set when this destination is reached through a ProxyCommand (ssh's "via proxy": no address of its own). */
    private boolean proxied;

    /** Set when this destination is reached through ProxyJump: the authenticated session to the last hop. */
    private ClientSession lastHop;

    /** The MINA client of the destination's login, whose attributes hold what the server said about methods. */
    private org.apache.sshd.client.SshClient minaClient;

    /** Logs in and runs {@code user} on the session; 255 when connecting or logging in fails, as {@link #call}. */
    public int callWith(SessionUser user) {
        this.sessionUser = user;
        return call();
    }

    // the command line, as SshArguments reads it (ssh's letters in comments)
    Integer port; // -p
    String loginName; // -l
    List<String> identities = new ArrayList<>(); // -i
    List<String> options = new ArrayList<>(); // -o
    String configFile; // -F
    int verbose; // -v, counted
    boolean quiet; // -q
    boolean version; // -V
    boolean printConfig; // -G
    String query; // -Q
    boolean noCommand; // -N
    boolean stdinNull; // -n
    boolean fork; // -f
    int tty; // -t, counted
    boolean noTty; // -T
    boolean subsystem; // -s
    String escapeChar; // -e
    boolean compression; // -C
    List<String> localForwards = new ArrayList<>(); // -L
    List<String> remoteForwards = new ArrayList<>(); // -R
    List<String> dynamicForwards = new ArrayList<>(); // -D
    String proxyJump; // -J
    String stdioForward; // -W
    boolean forwardAgent; // -A
    boolean noForwardAgent; // -a
    String forwardX11; // the last of -X, -Y, -x
    boolean help; // --help (pqssh's; ssh has none)
    int master; // -M, counted (twice: ask)
    String controlPath; // -S
    String muxCommand; // -O

    /**
     * {@code pqssh ssh ARGS} as a process (and as the start-up cache's training runs it): also sets up logging, which
     * must happen before the first logger, and the warm-up thread.
     */
    public static int main(List<String> args) {
        SshCommand c = parseOrExplain(args);
        if (c == null) {
            return 255;
        }
        libraryLogging(c.verbose >= 3);
        if (c.destination != null && !c.help) {
            io.pqssh.common.transport.EarlyConnection.prepareGroup();
            warmUp();
        }
        return c.runParsed();
    }

    /**
     * Start-up work every login needs and no option changes, on a second core while this thread reads the command
     * line, the configuration and known_hosts (docs/startup.md): the JCA providers (MINA's {@code SecurityUtils};
     * Bouncy Castle's provider set-up alone is ~50 ms), then pqssh's key types in MINA with their self-test (an
     * ML-DSA key, a signature and its check). The main thread's first use of either waits on that code's own lock;
     * a failure is met and reported again there ({@code MinaPqKeys} keeps its error, {@code SecurityUtils} retries).
     */
    private static void warmUp() {
        Thread t = new Thread(() -> {
            try {
                io.pqssh.common.security.LazyBouncyCastleProvider.install();
                org.apache.sshd.common.util.security.SecurityUtils.isBouncyCastleRegistered();
                io.pqssh.mina.keys.MinaPqKeys.ensureInstalled();
            } catch (RuntimeException | LinkageError e) {
                // reported by the main thread
            }
        }, "pqssh-warm-up");
        t.setDaemon(true);
        t.start();
    }

    /** {@code pqssh ssh ARGS}: reads the command line as ssh does, then runs it; the exit status. */
    public static int run(List<String> args) {
        SshCommand c = parseOrExplain(args);
        return c == null ? 255 : c.runParsed();
    }

    private static SshCommand parseOrExplain(List<String> args) {
        try {
            return SshArguments.parse(args);
        } catch (SshArguments.UsageException e) {
            System.err.println(e.getMessage());
            if (e.showUsage()) {
                System.err.println(SshArguments.USAGE);
            }
            return null;
        }
    }

    /**
     * ssh prints its own messages (ssh's wording, once each); MINA's and pqssh's log lines reach stderr only with
     * {@code -vvv}. Without it every logger is off, and SLF4J's no-op binding spares the simple logger's set-up (its
     * date format alone loads the locale data, ~30 ms of a login); verbosity WARN keeps SLF4J from announcing it.
     */
    public static void libraryLogging(boolean debug) {
        if (!debug) {
            System.setProperty("slf4j.provider", "org.slf4j.helpers.NOP_FallbackServiceProvider");
            System.setProperty("slf4j.internal.verbosity", "WARN");
            return;
        }
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
        System.setProperty("org.slf4j.simpleLogger.log.io.pqssh", "debug");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.sshd", "debug");
    }

    private int runParsed() {
        SshCommand c = this;
        if (c.help) {
            System.out.println(SshArguments.USAGE);
            return 0;
        }
        try {
            return c.call();
        } catch (RuntimeException e) {
            // one line, not a stack trace; 255 as ssh
            System.err.println("pqssh ssh: " + Errors.describe(e));
            return 255;
        }
    }

    /** A command for {@code pqssh scp}/{@code sftp} and jump hops, from ssh's command-line words. */
    public static SshCommand of(List<String> args) {
        try {
            return SshArguments.parse(args);
        } catch (SshArguments.UsageException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** ControlMaster/ControlPath/ControlPersist as resolved for this login (none for scp, sftp and jump hops). */
    private ConnectionSharing sharing = ConnectionSharing.NONE;

    /** Where the remote command's output and ssh's messages go (System.out/err at call time). */
    private PrintStream out;
    private PrintStream err;

    @Override
    public Integer call() {
        out = System.out;
        err = System.err;
        int verbosity = verbose;
        ClientLog log = new ClientLog(err, verbosity, quiet);
        try {
            if (version) {
                err.println(Queries.version());
                return 0;
            }
            if (query != null) {
                List<String> lines = Queries.query(query);
                lines.forEach(out::println);
                return 0;
            }
            if (destination == null) {
                err.println(SshArguments.USAGE);
                return 255;
            }
            ClientConfig config = resolve(log);
            if (printConfig) {
                printConfig(config);
                return 0;
            }
            if (verbosity == 0 && !quiet && config.value("LogLevel").isPresent()) {
                log = new ClientLog(err, Math.max(0, config.logVerbosity()), config.logQuiet());
            }
            java.util.Optional<String> refused = config.refuseConnection();
            if (refused.isPresent()) {
                // OpenSSH 10's RefuseConnection: the configuration forbids this destination
                log.fatal("pqssh: connection to " + config.originalHost() + " refused by configuration"
                        + " (RefuseConnection yes, " + refused.get() + ")");
                return 255;
            }
            for (String w : ConnectionSharing.isPersistChild() ? List.<String>of() : config.ignoredOptionWarnings()) {
                // once per keyword, before connecting: the option is accepted, and not carried out (ControlPersist's
                // background copy stays silent: the process that started it said so)
                log.error("pqssh: warning: " + w);
            }
            if (sessionUser == null) {
                sharing = ConnectionSharing.of(config, muxCommand);
                java.util.Optional<Integer> shared = sharing.beforeConnecting(this, config, log);
                if (shared.isPresent()) {
                    return shared.get();
                }
            } else if (muxCommand != null) {
                throw new ConfigException("-O is for pqssh ssh only");
            }
            return run(config, log);
        } catch (ConfigException e) {
            err.println("pqssh: " + e.getMessage());
            return 255;
        } catch (IllegalArgumentException e) {
            err.println("pqssh: " + e.getMessage());
            return 255;
        } finally {
            if (early != null) {
                early.close();
            }
            io.pqssh.common.transport.EarlyConnection.discardPreparedGroup();
        }
    }

    private ClientConfig resolve(ClientLog log) throws ConfigException {
        String host = destination;
        String user = null;
        Integer uriPort = null;
        if (destination.startsWith("ssh://")) {
            URI u = URI.create(destination);
            host = u.getHost();
            user = u.getUserInfo();
            uriPort = u.getPort() > 0 ? u.getPort() : null;
            if (host == null) {
                throw new ConfigException("invalid destination " + destination);
            }
        } else {
            int at = destination.lastIndexOf('@');
            if (at >= 0) {
                user = destination.substring(0, at);
                host = destination.substring(at + 1);
            }
        }
        if (host.isEmpty()) {
            throw new ConfigException("invalid destination " + destination + ": empty host name");
        }
        // before any file is read, as ssh: %h and %r may reach a shell (ProxyCommand, Match exec)
        io.pqssh.client.proxy.ProxyCommand.checkHostName(host);
        if (loginName != null) {
            io.pqssh.client.proxy.ProxyCommand.checkUserName(loginName);
        } else if (user != null) {
            io.pqssh.client.proxy.ProxyCommand.checkUserName(user);
        }
        List<String> opts = new ArrayList<>();
        // flags that set options directly come before -o (they win, as in ssh)
        if (escapeChar != null) {
            opts.add("EscapeChar=" + escapeChar);
        }
        if (noTty) {
            opts.add("RequestTTY=no");
        } else if (tty >= 2) {
            opts.add("RequestTTY=force");
        } else if (tty == 1) {
            opts.add("RequestTTY=yes");
        }
        if (noCommand) {
            opts.add("SessionType=none");
        } else if (subsystem) {
            opts.add("SessionType=subsystem");
        }
        if (stdinNull || fork) {
            opts.add("StdinNull=yes");
        }
        if (fork) {
            opts.add("ForkAfterAuthentication=yes");
        }
        if (compression) {
            opts.add("Compression=yes");
        }
        if (proxyJump != null) {
            opts.add("ProxyJump=" + proxyJump);
        }
        if (forwardAgent) {
            opts.add("ForwardAgent=yes");
        } else if (noForwardAgent) {
            opts.add("ForwardAgent=no");
        }
        // as ssh: -X sets ForwardX11 only (trusted or not is ForwardX11Trusted's, yes by default as in Debian's
        // ssh), -Y sets both, -x turns X11 forwarding off
        if ("X".equals(forwardX11)) {
            opts.add("ForwardX11=yes");
        } else if ("Y".equals(forwardX11)) {
            opts.add("ForwardX11=yes");
            opts.add("ForwardX11Trusted=yes");
        } else if ("x".equals(forwardX11)) {
            opts.add("ForwardX11=no");
        }
        if (quiet) {
            opts.add("LogLevel=QUIET");
        }
        if (master > 0) {
            opts.add("ControlMaster=" + (master > 1 ? "ask" : "yes"));
        }
        if (controlPath != null) {
            opts.add("ControlPath=" + controlPath);
        }
        opts.addAll(options);
        if (stdioForward != null) {
            // ssh -W: "Implies -N, -T, ExitOnForwardFailure and ClearAllForwardings", which -o can override
            io.pqssh.client.forward.StdioForward.parse(stdioForward);
            opts.addAll(List.of("SessionType=none", "RequestTTY=no", "ExitOnForwardFailure=yes",
                    "ClearAllForwardings=yes"));
        }
        List<ForwardSpec> forwards = new ArrayList<>();
        for (String f : localForwards) {
            forwards.add(ForwardSpec.parseCommandLine(ForwardSpec.Kind.LOCAL, f));
        }
        for (String f : remoteForwards) {
            forwards.add(ForwardSpec.parseCommandLine(ForwardSpec.Kind.REMOTE, f));
        }
        for (String f : dynamicForwards) {
            forwards.add(ForwardSpec.parseCommandLine(ForwardSpec.Kind.DYNAMIC, f));
        }
        ClientConfig.Request req = new ClientConfig.Request(host, user, uriPort, port, loginName, identities, opts,
                configFile, forwards, System.getProperty("user.name"), Path.of(System.getProperty("user.home")),
                ClientConfig.systemConfigFile());
        return ClientConfig.resolve(req, log::debug1);
    }

    /** {@code -G}: OpenSSH's {@code ssh -G} lines (ConfigDump). */
    private void printConfig(ClientConfig c) throws ConfigException {
        io.pqssh.client.ssh.ConfigDump.lines(c).forEach(out::println);
    }

    /**
     * Starts the TCP connection now, while the providers, key files and MINA's client are set up, instead of after
     * them (docs/startup.md); MINA's connect takes it over. Nothing is sent on it before then. Null when the name
     * does not resolve (MINA then reports that as usual).
     */
    private static EarlyConnection startEarly(String host, int port, ClientLog log) {
        try {
            InetSocketAddress a = new InetSocketAddress(host, port);
            if (a.isUnresolved()) {
                return null;
            }
            log.debug2("connection to " + a + " started early");
            return EarlyConnection.start(a);
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            return null;
        }
    }

    private int run(ClientConfig config, ClientLog log) throws ConfigException {
        if (log.debugEnabled(1)) {
            // the versions come from the jars' manifests: Bouncy Castle's lists a digest per class (~0.1 s to read)
            log.debug1(Queries.version());
        }
        String host = config.hostName();
        int p = config.port();
        String user = config.user();
        Prompter prompter = new Prompter(config.batchMode(), System.getenv());
        Forwarding.checkSupported(config);
        if (!config.proxyJump().isEmpty() && lastHop == null) {
            // log in to the jump hosts first; this destination is then reached through a channel of the last one
            ClientLog jumpLog = log;
            return io.pqssh.client.forward.JumpHosts.connect(config.proxyJump(), host, p, configFile, verbose,
                    quiet, (args, then) -> SshCommand.of(args).callWith(then::connect), hop -> {
                        lastHop = hop;
                        return run(config, jumpLog);
                    });
        }

        java.util.Optional<String> proxyCommand = lastHop == null ? config.proxyCommand() : java.util.Optional.empty();
        proxied = proxyCommand.isPresent();
        if (lastHop == null && early == null && !proxied
                && !"false".equals(System.getProperty("pqssh.ssh.earlyConnect"))) {
            early = startEarly(host, p, log);
        }
        io.pqssh.client.kex.ServerProposalCache kexCache = kexGuessCache(config);
        io.pqssh.client.kex.PreparedKemShare share = early != null && config.flag("GuessKex", true)
                ? prepareKemShare(config, kexCache, host, p) : null;
        // host certificates' CAs: the list as given (+/-/^ against OpenSSH's default, which the codec's own
        // refusal of SHA-1 ssh-rsa already matches)
        HostKeyCheck.caSignatureAlgorithms(config.string("CASignatureAlgorithms").isEmpty() ? null
                : io.pqssh.client.config.AlgorithmList.apply("CASignatureAlgorithms",
                        config.string("CASignatureAlgorithms").get(), CA_SIGNATURE_DEFAULT, CA_SIGNATURE_DEFAULT));
        PqsshClient.Builder b = PqsshClient.builder()
                .earlyConnection(lastHop == null ? early : null)
                .preparedKemShare(share)
                .serverKeyVerifier(HostKeyCheck.verifier(config.strictHostKeyChecking(), config.userKnownHostsFiles(),
                        config.globalKnownHostsFiles(),
                        config.flag("HashKnownHosts", false),
                        host, p, config.batchMode(), log, prompter, new HostKeyCheck.Enabled(
                                config.flag("PasswordAuthentication", true),
                                config.flag("KbdInteractiveAuthentication", true),
                                config.flag("ForwardAgent", false))))
                .hostKeyOrderFrom(config.userKnownHostsFile())
                .requirePostQuantumKex(config.flag("RequirePostQuantumKex", false))
                .warnWeakCrypto(config.flag("WarnWeakCrypto", true))
                .warningSink(log::error)
                .timeout(Duration.ofSeconds(config.connectTimeoutSeconds() > 0 ? config.connectTimeoutSeconds()
                        : 30))
                .bannerTimeout(config.connectTimeoutSeconds() > 0 ? Duration.ofSeconds(config.connectTimeoutSeconds())
                        : null)
                .authTimeout(prompter.canAsk() ? Duration.ofMinutes(10) : Duration.ofSeconds(
                        config.connectTimeoutSeconds() > 0 ? Math.max(30, config.connectTimeoutSeconds()) : 30));
        config.string("NoneProbe").ifPresent(v -> b.noneProbe(config.flag("NoneProbe", false)));
        config.string("GuessKex").ifPresent(v -> b.guessKex(config.flag("GuessKex", true)));
        b.kexGuessCache(kexCache);
        config.string("PubkeySignDirectly").ifPresent(v -> b.pubkeySignDirectly(config.flag("PubkeySignDirectly",
                false)));
        boolean earlyOpen = config.flag("EarlyChannelOpen", false);
        b.earlyChannelOpen(earlyOpen);
        List<String> kex = ClientSetup.kex(config);
        if (kex != null) {
            b.kex(kex);
        }
        b.preferredAuthentications(preferredAuthentications(config));
        b.customize(c -> {
            minaClient = c;
            ClientSetup.apply(c, config, log, prompter);
        });
        if (lastHop != null) {
            io.pqssh.client.forward.JumpHosts.through(b, lastHop, host, p);
        }
        if (proxied) {
            log.debug1("Executing proxy command: exec " + proxyCommand.get());
            io.pqssh.client.proxy.ProxyCommand command =
                    io.pqssh.client.proxy.ProxyCommand.of(proxyCommand.get(), System.getenv());
            b.proxy(config.flag("ProxyUseFdpass", false) ? io.pqssh.client.proxy.FdPassProxy.opener(command)
                    : io.pqssh.client.proxy.ProxyTransport.command(command));
            io.pqssh.client.forward.JumpHosts.target(b, host, p);
        }

        // identities
        Identities loader = new Identities(prompter, log, config.string("NumberOfPasswordPrompts")
                .map(Integer::parseInt).orElse(3), System.getenv("PQSSH_PASSPHRASE"));
        List<KemPrivateKey> kemKeys = new ArrayList<>();
        try {
            List<Path> files = config.identityFiles();
            Identities.Loaded ids;
            List<KeyPair> signatureKeys;
            List<Path> certFiles;
            List<Path> kemCertPlaces = new ArrayList<>();
            try {
                certFiles = config.certificateFiles();
                List<Path> idFiles = files.isEmpty() ? defaultIdentities(config.home()) : files;
                ids = loader.load(idFiles, !files.isEmpty(), "Identity file", certFiles.isEmpty());
                kemCertPlaces.addAll(idFiles);
                kemCertPlaces.addAll(config.identityKemFiles());
                signatureKeys = withCertificates(ids, certFiles, !files.isEmpty(), log);
                kemKeys.addAll(ids.kemKeys());
                Identities.Loaded kemIds = loader.load(config.identityKemFiles(), true,
                        "KEM identity file (IdentityKEMFile)");
                kemKeys.addAll(kemIds.kemKeys());
                if (!kemIds.signatureKeys().isEmpty()) {
                    throw new ConfigException("IdentityKEMFile holds a signature key, not an ML-KEM credential: use"
                            + " IdentityFile for it");
                }
            } catch (ConfigException e) {
                throw e;
            } catch (Exception e) {
                throw new ConfigException(Failures.oneLine(e), e);
            }
            KeyPair sigKey = null;
            for (KeyPair kp : signatureKeys) {
                b.identity(kp);
                if (sigKey == null
                        && !(kp.getPublic() instanceof org.apache.sshd.common.config.keys.OpenSshCertificate)) {
                    sigKey = kp;
                }
            }
            java.util.Optional<Path> agent = io.pqssh.client.agent.ClientAgent.socket(config);
            agent.ifPresent(a -> io.pqssh.client.agent.ClientAgent.install(b, a));
            if (!kemKeys.isEmpty() && config.flag("KEMAuthentication", true)) {
                KemPrivateKey kemKey = kemKeys.get(0);
                KemClientIdentity kemIdentity = new KemClientIdentity(kemKey, wireAlgorithm(config, kemKey), sigKey);
                // its certificate (docs/publickey-kem.md 9.5), offered instead of the bare key as ssh offers one
                b.kemIdentity(io.pqssh.client.ssh.KemCertificates.find(kemKey, certFiles, kemCertPlaces, log)
                        .map(kemIdentity::withCertificate).orElse(kemIdentity));
            } else if (agent.isPresent() && config.flag("KEMAuthentication", true)) {
                // the ML-KEM key may live in pqssh agent only (docs/agent-protocol.md)
                io.pqssh.client.agent.ClientAgent.kemIdentity(agent.get(), sigKey).ifPresent(b::kemIdentity);
            }
            return connectAndRun(b, config, log, user, host, p, earlyOpen);
        } finally {
            for (KemPrivateKey k : kemKeys) {
                try {
                    k.destroy();
                } catch (javax.security.auth.DestroyFailedException e) {
                    log.debug1("KEM key not destroyed: " + e.getMessage());
                }
            }
        }
    }

    /**
     * The servers' last KEX and host key lists, for the first_kex_packet_follows guess: {@code KexGuessCache FILE},
     * {@code none}, or by default {@code pqssh_kex_cache} beside the known_hosts file (docs/round-trips.md).
     */
    private static io.pqssh.client.kex.ServerProposalCache kexGuessCache(ClientConfig config) throws ConfigException {
        String v = config.string("KexGuessCache").orElse(null);
        if ((v != null && v.equalsIgnoreCase("none"))
                || (v == null && config.userKnownHostsFile().equals(Path.of("/dev/null")))) {
            return io.pqssh.client.kex.ServerProposalCache.none();
        }
        Path f = v != null ? config.path(v)
                : config.userKnownHostsFile().toAbsolutePath().resolveSibling("pqssh_kex_cache");
        return io.pqssh.client.kex.ServerProposalCache.file(f);
    }

    /**
     * Starts generating the KEM key pair of the key exchange this connection will run, when the KEX guess cache
     * knows the server: on a thread of its own, while this one reads key files and starts MINA (docs/startup.md).
     */
    private static io.pqssh.client.kex.PreparedKemShare prepareKemShare(ClientConfig config,
            io.pqssh.client.kex.ServerProposalCache cache, String host, int port) {
        boolean ownList = config.string("KexAlgorithms").isPresent();
        return io.pqssh.client.kex.PreparedKemShare.start(() -> {
            List<String> ours;
            try {
                ours = ownList ? ClientSetup.kex(config) : io.pqssh.mina.internal.kex.ClientKexNames.PQSSH;
            } catch (ConfigException e) {
                return java.util.Optional.empty(); // reported by the main thread
            }
            return cache.lookup(host, port).flatMap(known -> io.pqssh.client.kex.FirstKexGuess.negotiated(ours,
                    known.kex()));
        });
    }

    /** KEMAuthAlgorithms: the first entry's spelling goes on the wire, and it must name the key's algorithm. */
    private static String wireAlgorithm(ClientConfig config, KemPrivateKey key) throws ConfigException {
        List<String> algs = config.kemAuthAlgorithms().orElse(null);
        if (algs == null) {
            return null;
        }
        String first = algs.get(0);
        KemAlgorithm a = KemAlgorithm.require(first);
        if (a != key.algorithm()) {
            throw new ConfigException("KEMAuthAlgorithms " + first + " names " + a.sshName()
                    + " but the KEM identity is " + key.algorithm().sshName());
        }
        return first;
    }

    private static List<String> preferredAuthentications(ClientConfig c) {
        List<String> base = c.string("PreferredAuthentications").map(v -> List.of(v.split(",")))
                .orElse(List.of("publickey-kem", "publickey-kem-and", io.pqssh.mina.auth.hybrid.HybridAnd.NAME,
                        "publickey", "keyboard-interactive", "password"));
        List<String> out = new ArrayList<>();
        for (String m : base) {
            boolean on = switch (m) {
                case "password" -> c.flag("PasswordAuthentication", true);
                case "keyboard-interactive" -> c.flag("KbdInteractiveAuthentication", true);
                case "publickey" -> !c.string("PubkeyAuthentication").map(v -> v.equalsIgnoreCase("no")
                        || v.equalsIgnoreCase("false")).orElse(false);
                case "publickey-kem", "publickey-kem-and" -> c.flag("KEMAuthentication", true);
                default -> true;
            };
            if (on) {
                out.add(m);
            }
        }
        return out;
    }

    private int connectAndRun(PqsshClient.Builder b, ClientConfig config, ClientLog log, String user, String host,
            int p, boolean earlyOpen) throws ConfigException {
        String cmd = command.isEmpty() ? config.string("RemoteCommand").orElse(null) : String.join(" ", command);
        String sessionType = config.string("SessionType").orElse("default").toLowerCase(Locale.ROOT);
        if (sessionType.equals("subsystem") && cmd == null) {
            throw new ConfigException("-s: a subsystem name is required");
        }
        boolean forkAfterAuth = config.flag("ForkAfterAuthentication", false);
        if (forkAfterAuth && cmd == null && !sessionType.equals("none")) {
            throw new ConfigException("Cannot fork into background without a command to execute.");
        }
        if (forkAfterAuth && !Background.isChild()) {
            return Background.launch(err);
        }
        int attempts = config.string("ConnectionAttempts").map(Integer::parseInt).orElse(1);
        try (PqsshClient client = b.start()) {
            if (earlyOpen && cmd != null && !forkAfterAuth) {
                try {
                    return client.loginAndExec(user, host, p, cmd, unclosable(out), unclosable(err),
                            Duration.ofDays(365));
                } catch (Exception e) {
                    return fail(log, e, user, host, p);
                }
            }
            ClientSession session = null;
            // a status line on a terminal when connecting and logging in take more than a second (docs/startup.md)
            Progress connecting = Progress.start("pqssh: connecting to " + host + " and logging in ...");
            try {
                for (int attempt = 1; session == null; attempt++) {
                    log.debug1("Connecting to " + host + " port " + p + ".");
                    try {
                        session = client.login(user, host, p);
                    } catch (Exception e) {
                        if (attempt < attempts && Failures.connect(e, host, p) != null) {
                            log.debug1("connect attempt " + attempt + " failed: " + Failures.oneLine(e));
                            sleep(1000);
                            continue;
                        }
                        Progress.close(connecting);
                        return fail(log, e, user, host, p);
                    }
                }
            } finally {
                Progress.close(connecting);
            }
            try (ClientSession s = session) {
                // as ssh -v: a connection through a jump host has no address of its own
                log.debug1("Authenticated to " + host + (lastHop != null || proxied ? " (via proxy)"
                        : " ([" + remoteAddress(session) + "]:" + p + ")") + " using \""
                        + session.getAttribute(ClientSetup.AUTH_METHOD) + "\".");
                Forwarding.start(session, config, log);
                io.pqssh.client.mux.MuxMaster muxMaster = sharing.startMaster(session, config, log);
                if (muxMaster == null && ConnectionSharing.isPersistChild()) {
                    return 255; // said why ("ControlSocket ... already exists"); the first process reports it
                }
                if (muxMaster != null && ConnectionSharing.isPersistChild()) {
                    // ControlPersist's background master: no session of its own, until -O exit or idle
                    return sharing.persist(muxMaster, log);
                }
                if (forkAfterAuth) {
                    Background.detach();
                }
                int rc = 255;
                boolean endedWithoutStatus = false;
                Exception failure = null;
                try {
                    if (stdioForward != null) {
                        rc = io.pqssh.client.forward.StdioForward.parse(stdioForward).run(session, System.in,
                                unclosable(out), log, Duration.ofSeconds(
                                        config.connectTimeoutSeconds() > 0 ? config.connectTimeoutSeconds() : 30));
                    } else if (sessionType.equals("none")) {
                        session.waitFor(java.util.EnumSet.of(ClientSession.ClientSessionEvent.CLOSED), 0L);
                        rc = 0;
                    } else if (sessionUser != null) {
                        rc = sessionUser.use(session);
                    } else {
                        SessionRunner runner = new SessionRunner(session, log, System.in, out, err,
                                io.pqssh.client.ssh.Terminals.stdinIsTerminal())
                                .escapeCommandLine(config.flag("EnableEscapeCommandline", false))
                                .permitLocalCommand(config.flag("PermitLocalCommand", false))
                                .exitOnForwardFailure(config.flag("ExitOnForwardFailure", false));
                        rc = runner.run(cmd, sessionType.equals("subsystem"), tty(config),
                                config.flag("StdinNull", false), config.escapeChar(), environment(config));
                        endedWithoutStatus = runner.endedWithoutStatus();
                    }
                } catch (ConfigException e) {
                    throw e;
                } catch (Exception e) {
                    failure = e;
                }
                if (endedWithoutStatus && config.serverAliveIntervalSeconds() > 0
                        && !ClientSetup.serverNotResponding(session)) {
                    // the channel can close before MINA has told the listeners why the session ends (seen once in
                    // ServerAliveTest): wait for the session's own end, whose cause is recorded before it
                    session.waitFor(java.util.EnumSet.of(ClientSession.ClientSessionEvent.CLOSED),
                            Duration.ofSeconds(2).toMillis());
                }
                if (ClientSetup.serverNotResponding(session)) {
                    // ServerAliveCountMax keepalives unanswered: ssh's status (clientloop.c); the listener that saw
                    // it printed ssh's line
                    return 255;
                }
                if (muxMaster != null) {
                    // as ssh: the master's own session is over, its clients' sessions still run on the connection
                    muxMaster.awaitClients();
                    muxMaster.close();
                }
                if (failure != null) {
                    throw failure;
                }
                return rc;
            }
        } catch (ConfigException e) {
            throw e;
        } catch (Exception e) {
            return fail(log, e, user, host, p);
        }
    }

    private static String remoteAddress(ClientSession s) {
        java.net.SocketAddress a = s.getIoSession().getRemoteAddress();
        if (a instanceof java.net.InetSocketAddress i && i.getAddress() != null) {
            return i.getAddress().getHostAddress();
        }
        return String.valueOf(a);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static SessionRunner.Tty tty(ClientConfig c) {
        String v = c.string("RequestTTY").orElse("auto").toLowerCase(Locale.ROOT);
        return switch (v) {
            case "no", "false" -> SessionRunner.Tty.NO;
            case "yes", "true" -> SessionRunner.Tty.YES;
            case "force" -> SessionRunner.Tty.FORCE;
            default -> SessionRunner.Tty.AUTO;
        };
    }

    /** SetEnv NAME=value pairs, then SendEnv patterns matched against the local environment. */
    static Map<String, String> environment(ClientConfig c) throws ConfigException {
        Map<String, String> env = new LinkedHashMap<>();
        for (OptionValue v : c.values("SetEnv")) {
            for (String a : v.args()) {
                int eq = a.indexOf('=');
                if (eq <= 0) {
                    throw new ConfigException(v.source() + ": SetEnv: expected NAME=value, got \"" + a + "\"");
                }
                env.putIfAbsent(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        for (OptionValue v : c.values("SendEnv")) {
            for (String pattern : v.args()) {
                System.getenv().forEach((k, val) -> {
                    if (!pattern.startsWith("-") && Patterns.glob(k, pattern)) {
                        env.putIfAbsent(k, val);
                    }
                });
            }
        }
        return env;
    }

    private int fail(ClientLog log, Exception e, String user, String host, int port) {
        if (e instanceof PqsshClient.PostQuantumRequiredException) {
            log.fatal("pqssh: " + e.getMessage());
            return 255;
        }
        String refused = lastHop != null ? io.pqssh.client.forward.StdioForward.openFailure(e) : null;
        if (refused != null) {
            // the last hop would not connect to the destination: ssh -J's words (its ssh -W child's)
            log.fatal(refused);
            log.fatal("stdio forwarding failed");
            return 255;
        }
        java.util.Optional<List<String>> noFd = io.pqssh.client.proxy.FdPassProxy.failureLines(e);
        if (noFd.isPresent()) {
            noFd.get().forEach(log::fatal); // ProxyUseFdpass: ssh's lines, as OpenSSH 9.2 prints them
            return 255;
        }
        if (causedBy(e, PqsshClient.BannerTimeoutException.class)) {
            // ssh's two lines (OpenSSH 9.2, measured against a listener that never speaks)
            log.fatal("Connection timed out during banner exchange");
            log.fatal("Connection to " + host + " port " + port + " timed out");
            return 255;
        }
        if (causedBy(e, PqsshClient.KexTimeoutException.class)) {
            // sshpkt_fatal's words for a timed-out connection (ssh 9.2 itself has no bound here)
            log.fatal("Connection to " + host + " port " + port + " timed out");
            return 255;
        }
        if (causedBy(e, PqsshClient.ClosedBeforeBannerException.class)) {
            // ssh's two lines; a proxied connection has no address, and ssh names it "UNKNOWN port 65535"
            log.fatal("kex_exchange_identification: Connection closed by remote host");
            log.fatal("Connection closed by " + (proxied || lastHop != null ? "UNKNOWN port 65535"
                    : numericAddress(host) + " port " + port));
            return 255;
        }
        String c = Failures.connect(e, host, port);
        if (c != null) {
            log.fatal("pqssh: " + c);
            return 255;
        }
        String why = Failures.oneLine(e);
        if (why.contains("Server key did not validate") || HostKeyCheck.refused(minaClient)) {
            return 255; // HostKeyCheck said why, ending with ssh's "Host key verification failed."
        }
        if (why.contains("No more authentication methods")) {
            java.util.Optional<List<String>> methods = minaClient == null ? java.util.Optional.empty()
                    : ClientSetup.serverMethods(minaClient);
            if (methods.isPresent()) {
                // ssh's last words (sshconnect2.c), with the methods the server still offered
                log.fatal(user + "@" + host + ": Permission denied (" + String.join(",", methods.get()) + ").");
                return 255;
            }
            why = "Permission denied (no accepted authentication method)";
        }
        log.fatal("pqssh: " + user + "@" + host + ": " + why);
        if (log.debugEnabled(3)) {
            e.printStackTrace(err);
        }
        return 255;
    }

    /** The address ssh would name (it prints the peer's address, not the name); the name when it does not resolve. */
    private static String numericAddress(String host) {
        try {
            return java.net.InetAddress.getByName(host).getHostAddress();
        } catch (java.net.UnknownHostException | SecurityException e) {
            return host;
        }
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    static java.io.OutputStream unclosable(java.io.OutputStream out) {
        return new java.io.FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws java.io.IOException {
                out.flush();
            }
        };
    }

    /**
     * The signature keys in ssh's order with the user certificates: {@code CertificateFile} entries (each paired with
     * the loaded key it certifies), then the files' keys and the {@code -cert.pub} found beside them.
     */
    private static List<KeyPair> withCertificates(Identities.Loaded ids, List<Path> certFiles, boolean explicit,
            ClientLog log) {
        List<KeyPair> configured = new ArrayList<>();
        for (Path f : certFiles) {
            if (!Files.exists(f)) {
                log.error("Warning: certificate file " + f + " not accessible: No such file or directory.");
                continue;
            }
            io.pqssh.client.ssh.UserCertificates.read(f, log).ifPresent(c -> {
                log.debug1("certificate file " + f + " type " + io.pqssh.client.ssh.UserCertificates.describe(c));
                io.pqssh.client.ssh.UserCertificates.pair(c, ids.signatureKeys()).ifPresentOrElse(configured::add,
                        () -> log.debug1("Not using certificate " + f + ": no identity holds the key it certifies"));
            });
        }
        return io.pqssh.client.ssh.UserCertificates.order(configured, ids.perFile(), explicit);
    }

    /** OpenSSH 10's CASignatureAlgorithms default, then pqssh's post-quantum signature types. */
    private static final List<String> CA_SIGNATURE_DEFAULT;

    static {
        List<String> d = new ArrayList<>(List.of("ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
                "ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
                "rsa-sha2-512", "rsa-sha2-256"));
        for (io.pqssh.core.sig.SignatureKeyType t : io.pqssh.core.sig.SignatureKeyType.values()) {
            if (!d.contains(t.sshName())) {
                d.add(t.sshName());
            }
        }
        CA_SIGNATURE_DEFAULT = List.copyOf(d);
    }

    private static List<Path> defaultIdentities(Path home) {
        Path ssh = home.resolve(".ssh");
        List<Path> out = new ArrayList<>();
        for (String n : io.pqssh.client.ssh.ConfigDump.DEFAULT_IDENTITIES) {
            if (Files.isRegularFile(ssh.resolve(n))) {
                out.add(ssh.resolve(n));
            }
        }
        return out;
    }
}
