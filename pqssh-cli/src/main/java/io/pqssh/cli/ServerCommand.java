package io.pqssh.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.keyprovider.KeyPairProvider;

import io.pqssh.server.daemon.DefaultHostKey;
import io.pqssh.server.daemon.Detach;
import io.pqssh.server.daemon.PidFile;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.server.PasswordFile;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.ServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pqssh server}: an SSH server configured with sshd_config keywords. Detaches as sshd does unless {@code -D}
 * or {@code -d} ({@link Detach}: a JVM cannot fork, so a copy of the process becomes the daemon), reloads its
 * configuration and keys on SIGHUP without dropping open sessions, writes {@code PidFile}. See docs/server-config.md.
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Run an SSH server with KEM user authentication and post-quantum key exchange.",
                "Keywords (file or -o): Port, ListenAddress, AddressFamily, HostKey, PidFile, AuthorizedKeysFile,",
                "Ciphers, MACs, HostKeyAlgorithms, PubkeyAcceptedAlgorithms, CASignatureAlgorithms,",
                "AuthorizedKEMKeysFile, KEMAuthentication, KEMAuthAlgorithms, AuthenticationMethods,",
                "PubkeyAuthentication, PasswordAuthentication, PasswordFile, KexAlgorithms, RequirePostQuantumKex,",
                "MaxAuthTries, MaxSessions, ClientAliveInterval, ClientAliveCountMax, ChannelTimeout,",
                "UnusedConnectionTimeout, LoginGraceTime, MaxPendingKEMChallenges, Subsystem sftp, AllowTcpForwarding, PermitOpen,",
                "PermitListen, GatewayPorts, AllowAgentForwarding, DisableForwarding, AllowStreamLocalForwarding,",
                "StreamLocalBindMask, StreamLocalBindUnlink, AllowUsers, DenyUsers, AllowGroups, DenyGroups,",
                "PrintMotd, MotdFile, PermitUserRC, PrintLastLog, PermitRootLogin, ForceCommand, ChrootDirectory;",
                "Include and Match (applied per connection; -T -C prints what a connection gets).",
                "Other sshd_config keywords: accepted with a warning or refused (docs/server-config.md).",
                "With -f, sshd's defaults apply (Port 22, every address, /etc/ssh host keys); without, 127.0.0.1:2222.",
                "Without HostKey: /etc/pqssh/ssh_host_ed25519_key (root) or ~/.config/pqssh/ (others).",
                "Detaches (as sshd) unless -D or -d; the daemon logs to syslog (facility AUTH) or to -E FILE.",
                "SIGHUP re-reads the configuration and keys; open sessions stay."})
public final class ServerCommand implements Callable<Integer> {
    @Option(names = {"-f", "--config"}, description = "Configuration file (sshd_config syntax).")
    Path config;

    @Option(names = "-o", description = "Keyword=value, overrides the file. Repeatable.")
    List<String> options = new ArrayList<>();

    @Option(names = "-p", description = "Port (0 picks a free one and prints it).")
    Integer port;

    @Option(names = "--port-file", description = "Write the bound port to this file once listening.")
    Path portFile;

    @Option(names = "-D", description = "Do not detach: stay in the foreground, log to stderr.")
    boolean foreground;

    @Option(names = "-E", paramLabel = "log_file", description = "Append the log to log_file instead of syslog"
            + " (detached) or stderr (-D, -d).")
    Path logFile;

    @Option(names = "-d", description = "Debug logging (SLF4J level debug) on stderr.")
    boolean debug;

    @Option(names = "-t", description = "Test mode (as sshd -t): check the configuration and host keys, exit 0 if"
            + " the server would start, 255 (with sshd's 'FILE line N: ...' message) if not.")
    boolean test;

    @Option(names = "-T", description = "Extended test mode (as sshd -T): print the effective configuration, one"
            + " lower-case keyword and its value a line.")
    boolean extendedTest;

    @Option(names = "-C", paramLabel = "connection_spec", description = "With -T: evaluate Match blocks for"
            + " user=,host=,addr=,laddr=,lport=,rdomain= (comma-separated).")
    String connectionSpec;

    private PqsshServer current;
    private ServerConfig currentConfig;
    private ServerConfig.Source currentSource;
    private final List<PqsshServer> draining = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if (test || extendedTest) {
            return testMode();
        }
        if (connectionSpec != null) {
            throw new IllegalArgumentException("-C needs -T");
        }
        boolean daemon = Detach.isDaemon();
        if (!foreground && !debug && !daemon) {
            return Detach.launch(System.err); // as sshd: detach unless -D or -d
        }
        if (daemon) {
            Detach.newSession();
        }
        // sshd's first steps: sessions never inherit an umask that lets group or others write (umask |= 022)
        io.pqssh.server.daemon.Libc.restrictUmask();
        // as sshd's strnvis on every log message: one log record stays one line, whatever it quotes from a peer
        io.pqssh.server.log.OneLinePrintStream.installOnStderr();
        // the daemon's log destination is opened now, so a -E file that cannot be written is reported on the terminal
        PrintStream log = logFile != null ? Detach.logFile(logFile) : null;
        if (log != null && !daemon) {
            System.setErr(io.pqssh.server.log.OneLinePrintStream.wrap(log));
        }
        if (debug) {
            // read by slf4j-simple when the first logger is made, which is after this point
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
        }
        Loaded loaded = loadConfig();
        currentConfig = loaded.config();
        currentSource = loaded.source();
        current = start(currentConfig, currentSource);
        printListening(current);
        io.pqssh.server.login.LoginPolicy logins = io.pqssh.server.login.LoginPolicy.forThisProcess();
        System.err.println(logins.switchesUsers()
                ? "pqssh server: running as root: each session runs as the account that logged in"
                : "pqssh server: not running as root: only user " + logins.onlyUser().orElseThrow() + " can log in");
        CountDownLatch stop = new CountDownLatch(1);
        ScheduledExecutorService control = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pqssh-server-control");
            t.setDaemon(true);
            return t;
        });
        java.util.concurrent.atomic.AtomicReference<PidFile> pid = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable shutdown = () -> {
            if (stopped.compareAndSet(false, true)) {
                control.shutdownNow();
                closeAll();
                PidFile p;
                synchronized (pid) { // a PidFile written after this point would outlive the server
                    p = pid.get();
                }
                if (p != null) {
                    p.close();
                }
            }
            stop.countDown();
        };
        // any other way out of the JVM (System.exit elsewhere, a signal without a handler) still cleans up here
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown, "pqssh-server-shutdown"));
        // sshd: SIGTERM ends the listener with exit 0 after "Received signal 15; terminating."
        // The JVM ends here as it would have without the handler, only with sshd's status. Installed before the
        // port and PidFile say the server is up, so whoever reads them and signals gets sshd's behaviour.
        TerminateSignal.install(signal -> {
            System.err.println("pqssh server: Received signal " + signal + "; terminating.");
            shutdown.run();
            System.exit(0);
        });
        HangupSignal.install(() -> control.execute(this::reload));
        control.scheduleWithFixedDelay(this::closeDrained, 2, 2, TimeUnit.SECONDS);
        writePortFile();
        if (currentConfig.pidFile != null) {
            synchronized (pid) {
                if (!stopped.get()) {
                    pid.set(PidFile.write(currentConfig.pidFile));
                }
            }
        }
        if (daemon) {
            if (log == null) {
                Path socket = Detach.syslogSocket();
                if (!Files.exists(socket)) {
                    System.err.println("pqssh server: warning: no syslog socket " + socket
                            + ": the log is lost (use -E FILE, or -D to log to stderr)");
                }
                log = Detach.syslog(socket);
            }
            Detach.ready(log);
            printListening(current);
        }
        stop.await();
        return 0;
    }

    /**
     * sshd's -t and -T. -t checks what a start checks (the file, Match blocks, host keys); -T prints the effective
     * configuration and does not refuse Match blocks, since evaluating them is its purpose.
     */
    private int testMode() {
        try {
            io.pqssh.server.config.ConnectionInfo ci = null;
            if (connectionSpec != null) {
                if (!extendedTest) {
                    throw new ServerConfig.ConfigException("-C needs -T");
                }
                ci = io.pqssh.server.config.ConnectionInfo.parse(connectionSpec, ServerCommand::groupsOf);
            }
            ServerConfig.Source source = readSource();
            ServerConfig c = source.evaluate(ci);
            c.warnings.values().forEach(w -> System.err.println("pqssh server: warning: " + w));
            try {
                c.listenSockets(); // as sshd's parser: a ListenAddress that does not resolve is a bad file
            } catch (java.net.UnknownHostException e) {
                throw new ServerConfig.ConfigException(e.getMessage());
            }
            checkAddressFamily(c, source);
            if (extendedTest) {
                c.effective().forEach(System.out::println);
                System.out.flush();
                return 0;
            }
            hostKeys(c); // sshd -t loads the host keys too
            return 0;
        } catch (ServerConfig.ConfigException e) {
            System.err.println(e.getMessage());
            System.err.println((config != null ? config : "command-line") + ": terminating, 1 bad configuration"
                    + " options");
            return 255;
        } catch (Exception e) {
            System.err.println("pqssh server: " + Errors.describe(e));
            return 255;
        }
    }

    /** The user's groups for Match Group in -T -C (as sshd, through the system's group database). */
    private static List<String> groupsOf(String user) {
        try {
            Process p = new ProcessBuilder("/usr/bin/id", "-Gn", "--", user).redirectErrorStream(false).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return p.waitFor() == 0 ? List.of(out.strip().split("\\s+")) : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /**
     * With a file, sshd's model and defaults (Port 22, every address, sshd's host keys); -o and -p values come first
     * (first value wins, as in sshd). Without one, pqssh's own defaults (127.0.0.1:2222, pqssh's host key).
     */
    private ServerConfig.Source readSource() throws Exception {
        List<String> cmd = new ArrayList<>(options);
        if (port != null) {
            cmd.add("Port " + port);
        }
        return config != null ? ServerConfig.Source.read(config, cmd) : ServerConfig.Source.options(cmd);
    }

    /** The configuration a start or reload runs with: the server-wide settings, and the source for Match. */
    private record Loaded(ServerConfig config, ServerConfig.Source source) {
    }

    private Loaded loadConfig() throws Exception {
        ServerConfig.Source source = readSource();
        ServerConfig c = source.evaluate(null);
        c.warnings.values().forEach(w -> System.err.println("pqssh server: warning: " + w));
        return new Loaded(c, source);
    }

    /** One line per socket, as sshd's "Server listening on ADDR port PORT." lines. */
    private static void printListening(PqsshServer s) {
        for (java.net.InetSocketAddress a : s.boundAddresses()) {
            System.err.println("pqssh server listening on " + io.pqssh.server.config.ListenAddresses.format(a));
        }
    }

    /** sshd's AddressFamily also limits forwarded-port listeners; pqssh's follow GatewayPorts alone. */
    private static void checkAddressFamily(ServerConfig c, ServerConfig.Source source)
            throws ServerConfig.ConfigException {
        // GatewayPorts is also applied per connection: a Match block's value must pass the same check
        boolean global = c.forwarding.gatewayPorts() != io.pqssh.server.forward.ForwardingPolicy.GatewayPorts.NO;
        boolean anywhere = source.valuesAnywhere("gatewayports").stream().anyMatch(v -> !v.equalsIgnoreCase("no"));
        if (!c.addressFamily.equals("any") && (global || anywhere)) {
            throw new ServerConfig.ConfigException("AddressFamily " + c.addressFamily + " with GatewayPorts "
                    + (global ? c.forwarding.gatewayPorts().name().toLowerCase(java.util.Locale.ROOT)
                            : "other than no (in a Match block)") + " is not supported:"
                    + " remote forwarding listeners would not be limited to the address family");
        }
    }

    private static PqsshServer start(ServerConfig c, ServerConfig.Source source) throws Exception {
        checkAddressFamily(c, source);
        // every connection is evaluated once its user is known (as sshd): Match blocks, and the global
        // ForceCommand and ChrootDirectory, reach the sessions through that evaluation
        ServerConfig.Source matches = source;
        io.pqssh.server.login.LoginPolicy logins =
                io.pqssh.server.login.LoginPolicy.forThisProcess().withAccessLists(c.access);
        // UsePAM yes: account checks for every method and keyboard-interactive through PAM, as sshd
        io.pqssh.server.login.PamLogins pam = c.usePam
                ? io.pqssh.server.login.PamLogins.checked(io.pqssh.server.login.PamLogins.SSHD) : null;
        PqsshServer.Builder b = PqsshServer.builder().listen(c.listenSockets())
                .hostKeys(hostKeys(c)).hostCertificates(c.hostCertificates).kex(c.kexAlgorithms).ciphers(c.ciphers)
                .macs(c.macs)
                .hostKeyAlgorithms(c.hostKeyAlgorithms).pubkeyAcceptedAlgorithms(c.pubkeyAcceptedAlgorithms)
                .requirePostQuantumKex(c.requirePostQuantumKex)
                .authenticationMethods(c.authenticationMethods).maxAuthTries(c.maxAuthTries)
                .maxSessions(c.maxSessions).connectionTimeouts(c.timeouts)
                .loginGraceTime(c.loginGraceTime).sftp(c.sftp).banner(c.banner).versionAddendum(c.versionAddendum)
                .tcpKeepAlive(c.tcpKeepAlive).compression(c.compression).preAuthLimits(c.preAuth)
                // as sshd: root runs each session as the login's account; anyone else can only log in as itself
                .logins(pam == null ? logins : logins.withPam(pam))
                .sessionPrelude(c.sessionPrelude()).x11(c.x11).sftpServer(c.sftpServer)
                // the 'invalid user' of sshd's log lines (refusing is the LoginPolicy's business)
                .validUser(user -> io.pqssh.server.UserPaths.home(user).isPresent())
                .forwarding(c.forwarding).acceptEnv(c.acceptEnv).permitUserEnvironment(c.permitUserEnvironment)
                // as sshd: pty logins in utmp, wtmp and lastlog, and "Last login" (PrintLastLog)
                .loginRecords(new io.pqssh.server.daemon.SystemLoginRecords(), c.printLastLog);
        // per connection (Match) for publickey, publickey-kem and publickey-kem-and alike, as sshd
        io.pqssh.server.ConnectionKeyAuthorizers auth = new io.pqssh.server.ConnectionKeyAuthorizers(c);
        io.pqssh.server.login.RootLogin root = new io.pqssh.server.login.RootLogin(
                io.pqssh.server.login.RootLogin.Mode.parse(c.permitRootLogin),
                io.pqssh.server.login.SystemAccounts.INSTANCE);
        // with Match blocks: a method any block enables is offered, and each connection's evaluation says whether
        // it is enabled for that connection (PqsshUserAuthService)
        boolean pubkey = c.pubkeyAuthentication || enabledInMatch(matches, "pubkeyauthentication", "dsaauthentication");
        boolean password = c.passwordAuthentication || enabledInMatch(matches, "passwordauthentication");
        boolean kbd = c.kbdInteractiveAuthentication || enabledInMatch(matches, "kbdinteractiveauthentication",
                "challengeresponseauthentication", "skeyauthentication");
        if (matches != null) {
            b.matchEvaluator(new io.pqssh.server.ConnectionConfig.Evaluator(matches, ServerCommand::groupsOf));
        }
        if (pubkey) {
            b.publickey(root.publickey(auth.publickey()));
        }
        if (c.kemAuthentication) {
            b.kem(KemServerSettings.builder().allowedAlgorithms(c.kemAuthAlgorithms)
                    .authorizer(root.kem(auth.kem()))
                    .maxPending(c.maxPendingKemChallenges, c.maxPendingKemChallengesPerSource).build());
        }
        if (password) {
            if (c.passwordFile == null) {
                throw new IllegalArgumentException("PasswordAuthentication yes needs a PasswordFile"
                        + " (lines from 'pqssh passwd USER')");
            }
            b.password(root.password(new PasswordFile(c.passwordFile)));
        }
        if (kbd && pam != null) {
            if (!c.permitRootLogin.equals("yes") || matches != null
                    && !matches.valuesAnywhere("permitrootlogin").stream().allMatch("yes"::equalsIgnoreCase)) {
                // PAM's conversation is not wrapped by RootLogin yet: rather no start than root by password
                throw new IllegalArgumentException("KbdInteractiveAuthentication yes with UsePAM yes needs"
                        + " PermitRootLogin yes for now (pqssh cannot yet refuse root in PAM's conversation)");
            }
            b.pamKeyboardInteractive(pam);
        } else if (kbd) {
            if (c.passwordFile == null) {
                throw new IllegalArgumentException("KbdInteractiveAuthentication yes needs a PasswordFile"
                        + " (lines from 'pqssh passwd USER')");
            }
            b.keyboardInteractive(root.password(new PasswordFile(c.passwordFile)));
        }
        return b.start();
    }

    /** Whether a Match block (or the global section) sets one of {@code keywords} to yes. */
    private static boolean enabledInMatch(ServerConfig.Source matches, String... keywords) {
        if (matches == null) {
            return false;
        }
        for (String k : keywords) {
            if (matches.valuesAnywhere(k).stream().anyMatch(v -> v.equalsIgnoreCase("yes")
                    || v.equalsIgnoreCase("true"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * SIGHUP: re-reads the configuration and host keys. A configuration that does not load leaves the running
     * server as it is; otherwise the old server stops listening (its sessions go on, and it is closed once they
     * have ended) and a new one takes the port. If the new one cannot start, the old configuration is started again.
     */
    synchronized void reload() {
        System.err.println("pqssh server: SIGHUP: reloading " + (config != null ? config : "the configuration"));
        ServerConfig next;
        ServerConfig.Source nextSource;
        try {
            Loaded loaded = loadConfig();
            next = loaded.config();
            nextSource = loaded.source();
            if (next.port == 0 && next.ports.size() <= 1) {
                next.port = current.port(); // a random port stays the same across reloads
                next.ports.clear();
            }
            hostKeys(next); // key files are checked before the running server is touched
        } catch (Exception e) {
            System.err.println("pqssh server: reload failed, keeping the running configuration: "
                    + Errors.describe(e));
            return;
        }
        PqsshServer old = current;
        old.stopListening();
        try {
            current = start(next, nextSource);
            currentConfig = next;
            currentSource = nextSource;
        } catch (Exception e) {
            System.err.println("pqssh server: cannot start with the new configuration (" + Errors.describe(e)
                    + "); starting the previous one again");
            try {
                ServerConfig previous = currentConfig;
                if (previous.ports.size() <= 1) {
                    previous.port = old.port();
                    previous.ports.clear();
                }
                current = start(previous, currentSource);
            } catch (Exception e2) {
                System.err.println("pqssh server: cannot listen any more: " + Errors.describe(e2));
                current = old;
                return;
            }
        }
        draining.add(old);
        System.err.println("pqssh server: reloaded; listening on " + current.boundAddresses().stream()
                .map(io.pqssh.server.config.ListenAddresses::format).collect(java.util.stream.Collectors.joining(" "))
                + " (" + old.activeSessions() + " open sessions stay on the previous configuration)");
        try {
            writePortFile();
        } catch (IOException e) {
            System.err.println("pqssh server: cannot write the port file: " + e.getMessage());
        }
        closeDrained();
    }

    private synchronized void closeAll() {
        for (PqsshServer s : draining) {
            closeQuietly(s);
        }
        draining.clear();
        closeQuietly(current);
    }

    private static void closeQuietly(PqsshServer s) {
        try {
            s.close();
        } catch (IOException e) {
            System.err.println("pqssh server: " + e.getMessage());
        }
    }

    private synchronized void closeDrained() {
        draining.removeIf(s -> {
            if (s.activeSessions() > 0) {
                return false;
            }
            try {
                s.close();
            } catch (IOException ignored) {
                // nothing left to do for a server without sessions
            }
            return true;
        });
    }

    private void writePortFile() throws IOException {
        if (portFile != null) {
            // whole or not at all: a reader that polls for the file (scripts, the lab) must never see it empty
            Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp" + ProcessHandle.current().pid());
            Files.writeString(tmp, current.port() + "\n");
            Files.move(tmp, portFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static KeyPairProvider hostKeys(ServerConfig c) throws Exception {
        List<Path> keys = new ArrayList<>(c.hostKeys);
        if (keys.isEmpty() && c.sshdDefaults) {
            ServerConfig.SSHD_HOST_KEYS.stream().filter(Files::exists).forEach(keys::add);
        }
        if (keys.isEmpty()) {
            DefaultHostKey.Location def = DefaultHostKey.ensure(DefaultHostKey.directory());
            System.err.println(def.describe());
            keys.add(def.file());
        }
        List<Path> files = new ArrayList<>();
        List<java.security.KeyPair> agentKeys = new ArrayList<>();
        for (Path k : keys) {
            // HostKeyAgent: a key whose private file is absent (or a public key file) is the agent's, as sshd
            java.util.Optional<java.security.PublicKey> pub = c.hostKeyAgent == null ? java.util.Optional.empty()
                    : io.pqssh.server.AgentHostKeys.agentPublicKey(k);
            if (pub.isPresent()) {
                agentKeys.add(io.pqssh.server.AgentHostKeys.keyPair(pub.get(), hostKeyAgentSocket(c, k)));
                continue;
            }
            if (!Files.exists(k)) {
                throw new IllegalArgumentException("HostKey " + k + ": no such file");
            }
            KeyFilePermissions.checkPrivateKeyFile(k);
            files.add(k);
        }
        // every type: PQ signature keys through pqssh, Ed25519/RSA/ECDSA (ssh-keygen files) through MINA
        KeyPairProvider fromFiles = io.pqssh.mina.keys.PqKeyPairProvider.fromFiles(files, null);
        if (agentKeys.isEmpty()) {
            return fromFiles;
        }
        List<java.security.KeyPair> all = new ArrayList<>();
        fromFiles.loadKeys(null).forEach(all::add);
        all.addAll(agentKeys);
        return io.pqssh.mina.keys.PqKeyPairProvider.of(all);
    }

    /**
     * The HostKeyAgent socket an agent-held host key needs; the server does not start without one it can reach
     * (sshd logs "Could not connect to agent" and then cannot load the key).
     */
    private static Path hostKeyAgentSocket(ServerConfig c, Path key) {
        Path socket = c.hostKeyAgentSocket().orElseThrow(() -> new IllegalArgumentException("HostKey " + key
                + ": Could not connect to agent \"" + c.hostKeyAgent + "\": SSH_AUTH_SOCK is not set"));
        try (io.pqssh.core.agent.AgentClient a = io.pqssh.core.agent.AgentClient.connect(socket)) {
            return socket;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("HostKey " + key + ": Could not connect to agent \"" + socket
                    + "\": " + e.getMessage());
        }
    }

    /**
     * SIGHUP through {@code sun.misc.Signal} (module jdk.unsupported, exported on purpose for such uses by JEP 260;
     * the JDK has no supported API for it, and {@code jdk.internal.misc.Signal} is closed). On a JVM without it the
     * server runs without reload and says so.
     */
    static final class HangupSignal {
        private HangupSignal() {
        }

        static void install(Runnable action) {
            try {
                // started with SIGHUP ignored (nohup, or a parent that ignores it), HotSpot silently declines the
                // handler and reload never happens; sshd installs its own regardless, so the disposition is reset
                java.lang.foreign.Linker l = java.lang.foreign.Linker.nativeLinker();
                java.lang.invoke.MethodHandle signal = l.downcallHandle(l.defaultLookup().find("signal")
                        .orElseThrow(), java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.ADDRESS,
                                java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.ADDRESS));
                java.lang.foreign.MemorySegment previous = (java.lang.foreign.MemorySegment) signal.invokeExact(1,
                        java.lang.foreign.MemorySegment.NULL);
            } catch (Throwable e) {
                System.err.println("pqssh server: cannot reset SIGHUP to its default: " + e);
            }
            try {
                sun.misc.Signal.handle(new sun.misc.Signal("HUP"), s -> action.run());
            } catch (IllegalArgumentException | LinkageError e) {
                System.err.println("pqssh server: SIGHUP reload unavailable: " + e);
            }
        }
    }

    /**
     * SIGTERM as sshd handles it: an orderly stop (listeners and sessions closed, PidFile removed) and exit status 0,
     * instead of the JVM's 143. SIGINT keeps the JVM's handling (shutdown hooks, then 130): sshd does not catch it
     * either. SIGQUIT, which sshd treats like SIGTERM with status 255, is the JVM's thread dump and cannot be taken.
     * Same mechanism as {@link HangupSignal}.
     */
    static final class TerminateSignal {
        static final int SIGTERM = 15;

        private TerminateSignal() {
        }

        static void install(java.util.function.IntConsumer action) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal("TERM"), s -> action.accept(s.getNumber()));
            } catch (IllegalArgumentException | LinkageError e) {
                System.err.println("pqssh server: SIGTERM handling unavailable (the JVM's exit status 143"
                        + " applies): " + e);
            }
        }
    }
}
