package io.pqssh.server;

import io.pqssh.mina.server.PreAuthLimits;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.mina.kex.PqKex;

/**
 * {@code pqssh server}'s configuration, in sshd_config syntax: one {@code Keyword value} per line, keywords
 * case-insensitive, {@code #} comments, first value wins for single-valued keywords (as in sshd). Unknown keywords
 * are an error naming the file and line, never ignored.
 */
public final class ServerConfig {
    /** The first ListenAddress's host (the default when there is none); {@link #listenSockets()} has them all. */
    public String listenAddress = "127.0.0.1";
    /** The first Port (the default when there is none); {@link #ports} has them all. */
    public int port = 2222;
    /** Every Port line (sshd listens on each); empty: {@link #port}. */
    public final List<Integer> ports = new ArrayList<>();
    /** Every ListenAddress line; empty: the wildcard address of {@link #addressFamily} ({@link #listenAddress}). */
    public final List<io.pqssh.server.config.ListenAddresses.Entry> listenAddresses = new ArrayList<>();
    /** AddressFamily: any, inet, inet6. */
    public String addressFamily = "any";
    public final List<Path> hostKeys = new ArrayList<>();
    /**
     * HostKeyAgent as written (null: none): a socket path, or {@code SSH_AUTH_SOCK} for the server's own
     * environment variable, as sshd ({@link #hostKeyAgentSocket}).
     */
    public String hostKeyAgent;
    /** HostCertificate: host certificates offered with the host keys they certify (accumulates, as in sshd). */
    public final List<Path> hostCertificates = new ArrayList<>();
    public String authorizedKeysFile = ".ssh/authorized_keys";
    public String authorizedKemKeysFile = ".ssh/authorized_kem_keys";
    /** TrustedUserCAKeys: CA public keys whose user certificates are accepted (null: none). */
    public Path trustedUserCaKeys;
    /** RevokedKeys: a KRL or a list of public keys refused at publickey (null: none). */
    public Path revokedKeys;
    /** AuthorizedPrincipalsFile (null or none: the certificate must list the user name). */
    public String authorizedPrincipalsFile;
    /** AuthorizedKeysCommand, the whole command line (null: none). */
    public String authorizedKeysCommand;
    /** AuthorizedKeysCommandUser (null: none; %u expanded at login). */
    public String authorizedKeysCommandUser;
    /** AuthorizedPrincipalsCommand, the whole command line (null: none). */
    public String authorizedPrincipalsCommand;
    /** AuthorizedPrincipalsCommandUser (null: none; %u expanded at login). */
    public String authorizedPrincipalsCommandUser;
    /** CASignatureAlgorithms (null: {@link CertificateAuthorizer#DEFAULT_CA_SIGNATURE_ALGORITHMS}). */
    public List<String> caSignatureAlgorithms;
    public boolean kemAuthentication = true;
    public Set<KemAlgorithm> kemAuthAlgorithms = EnumSet.of(KemAlgorithm.MLKEM768);
    public String authenticationMethods = "any";
    public boolean passwordAuthentication;
    /** keyboard-interactive with a {@code Password: } prompt checked against PasswordFile (sshd: PAM, default yes). */
    public boolean kbdInteractiveAuthentication;
    public boolean pubkeyAuthentication = true;
    public Path passwordFile;
    /** {@code UsePAM}: account checks and keyboard-interactive through the system's PAM (sshd's default no; Debian's file says yes). */
    public boolean usePam;
    public List<String> kexAlgorithms = PqKex.DEFAULT_ORDER;
    /** Ciphers, MACs, HostKeyAlgorithms, PubkeyAcceptedAlgorithms: effective lists (ServerAlgorithms' syntax). */
    public List<String> ciphers = ServerAlgorithms.CIPHERS.defaults();
    public List<String> macs = ServerAlgorithms.MACS.defaults();
    public List<String> hostKeyAlgorithms = ServerAlgorithms.HOST_KEY.defaults();
    public List<String> pubkeyAcceptedAlgorithms = ServerAlgorithms.PUBKEY.defaults();
    public boolean requirePostQuantumKex;
    public int maxAuthTries = 6;
    /** {@code MaxSessions}: open session channels per connection (sshd's default 10). */
    public int maxSessions = io.pqssh.server.session.SessionLimit.DEFAULT;
    /** ClientAliveInterval, ClientAliveCountMax, ChannelTimeout, UnusedConnectionTimeout (sshd's: all off). */
    public io.pqssh.server.session.ConnectionTimeouts.Settings timeouts =
            io.pqssh.server.session.ConnectionTimeouts.Settings.NONE;
    public Duration loginGraceTime = Duration.ofSeconds(120);
    public int maxPendingKemChallenges = 1024;
    public int maxPendingKemChallengesPerSource = 32;
    public boolean sftp = true;
    /** {@code Subsystem sftp PATH}: the sftp-server sessions run (null: OpenSSH's, wherever it is installed). */
    public String sftpServer;
    /** {@code PidFile}: where {@code pqssh server} writes its process id once listening; null (default) or none: nowhere. */
    public Path pidFile;
    /** sshd's StrictModes for authorized files (see {@link UserPaths#strictModesRefusal}). */
    public boolean strictModes = true;
    /** MaxStartups, PerSourceMaxStartups, PerSourceConnectRate, MaxPreauthPacketSize. */
    public PreAuthLimits.Settings preAuth = PreAuthLimits.Settings.defaults();

    /**
     * AllowTcpForwarding, PermitOpen, PermitListen, GatewayPorts, AllowAgentForwarding, DisableForwarding,
     * AllowStreamLocalForwarding, StreamLocalBindMask, StreamLocalBindUnlink.
     */
    public io.pqssh.server.forward.ForwardingPolicy forwarding =
            io.pqssh.server.forward.ForwardingPolicy.DEFAULT;

    /** {@code AcceptEnv}: patterns of the client's {@code env} variable names a session gets (sshd: none by default). */
    public final List<String> acceptEnv = new ArrayList<>();
    /** {@code PermitUserEnvironment} (null: no). */
    public io.pqssh.server.session.UserEnvironment permitUserEnvironment;
    /** PrintMotd, PermitUserRC, and pqssh's own MotdFile (default /etc/motd). */
    public boolean printMotd = true;
    public boolean permitUserRc = true;
    public Path motdFile = Path.of("/etc/motd");
    /** PrintLastLog: "Last login" on an interactive pty login (sshd's default yes). */
    public boolean printLastLog = true;

    /** sshd's steps before a session's command, from PrintMotd, MotdFile and PermitUserRC. */
    public io.pqssh.server.session.SessionPrelude sessionPrelude() {
        return new io.pqssh.server.session.SessionPrelude(printMotd ? motdFile : null, permitUserRc, true);
    }

    /** AllowUsers, DenyUsers, AllowGroups, DenyGroups. */
    public io.pqssh.server.login.AccessLists access = io.pqssh.server.login.AccessLists.NONE;

    /** PermitRootLogin: yes, prohibit-password (alias without-password), forced-commands-only, no. */
    public String permitRootLogin = "yes";
    /** X11Forwarding, X11DisplayOffset, X11UseLocalhost, XAuthLocation. */
    public io.pqssh.server.x11.X11Settings x11 = io.pqssh.server.x11.X11Settings.DEFAULT;
    /** Banner (null: none), VersionAddendum (null: none), TCPKeepAlive, Compression (yes/delayed or no). */
    public Path banner;
    public String versionAddendum;
    public boolean tcpKeepAlive;
    public boolean compression = true;
    /** PermitTTY: whether a session may have a pty (sshd's default yes). */
    public boolean permitTty = true;
    /** ForceCommand (null: none); {@code internal-sftp [options]} runs the sftp server without the shell. */
    public String forceCommand;
    /** ChrootDirectory (null: none), with sshd's %h, %u, %U and %% tokens not yet expanded. */
    public String chrootDirectory;
    /**
     * {@code SetEnv}: variables every session gets, set after the client's (AcceptEnv), the user's
     * (PermitUserEnvironment), PAM's and sshd's own USER, HOME, TERM..., but before SSH_CLIENT, SSH_CONNECTION,
     * SSH_TTY and SSH_ORIGINAL_COMMAND, which it cannot change (as OpenSSH 9.2's sshd, measured). First name wins.
     */
    public final java.util.Map<String, String> setEnv = new java.util.LinkedHashMap<>();
    /** True when sshd's defaults apply (a configuration file was given): sshd's host keys, not pqssh's own. */
    public boolean sshdDefaults;
    /** One line per keyword that is accepted but not applied (SshdKeywords' Warn verdicts), in file order. */
    public final java.util.Map<String, String> warnings = new java.util.LinkedHashMap<>();
    /** Match blocks that hold at least one keyword line: the first line of each, for the start-up refusal. */
    public final List<String> matchLines = new ArrayList<>();

    private final Set<String> seen = new java.util.HashSet<>();
    /** sshd: Port from the command line replaces the file's Port lines. */
    private boolean portsFromCommandLine;
    /** Accumulating keywords set by a matching Match block, whose global lines then no longer add up. */
    private final Set<String> setByMatch = new java.util.HashSet<>();

    /** sshd's host keys, used (those that exist) when an sshd_config names none. */
    public static final List<Path> SSHD_HOST_KEYS = List.of(Path.of("/etc/ssh/ssh_host_rsa_key"),
            Path.of("/etc/ssh/ssh_host_ecdsa_key"), Path.of("/etc/ssh/ssh_host_ed25519_key"));

    /** sshd's defaults, which apply whenever an sshd_config file is used (Port 22, every address, sshd's host keys). */
    public static ServerConfig sshd() {
        ServerConfig c = new ServerConfig();
        c.sshdDefaults = true;
        c.port = 22;
        c.listenAddress = "::";
        c.authorizedKeysFile = ".ssh/authorized_keys .ssh/authorized_keys2";
        c.permitRootLogin = "prohibit-password";
        c.pidFile = null;
        c.tcpKeepAlive = true;
        return c;
    }

    /** The file alone, with sshd's defaults (no -o options, no Match evaluation). */
    public static ServerConfig load(Path file) throws IOException, ConfigException {
        return load(file, List.of(), null);
    }

    /**
     * sshd's model: command-line {@code -o} lines first, then the file; for each keyword the first value wins. With
     * {@code ci} (a connection, or sshd's {@code -C}), lines of matching Match blocks override the global section;
     * every Match block's lines are checked either way.
     */
    public static ServerConfig load(Path file, List<String> options, io.pqssh.server.config.ConnectionInfo ci)
            throws IOException, ConfigException {
        return Source.read(file, options).evaluate(ci);
    }

    /**
     * A configuration as read once: the command-line lines and the file's lines (Include expanded, Match blocks
     * kept). {@link #evaluate} is the one function that turns it into settings, for the server's start (no
     * connection), for {@code -T -C} and for each connection once its user is known, so that {@code -T -C} prints
     * what a connection gets. Immutable.
     */
    public static final class Source {
        private final List<io.pqssh.server.config.ConfigLine> lines;
        private final List<String> options;
        private final boolean sshdModel;

        private Source(List<io.pqssh.server.config.ConfigLine> lines, List<String> options, boolean sshdModel) {
            this.lines = List.copyOf(lines);
            this.options = List.copyOf(options);
            this.sshdModel = sshdModel;
        }

        /** A file with sshd's defaults, after the command line's {@code -o} lines. */
        public static Source read(Path file, List<String> options) throws IOException, ConfigException {
            return new Source(io.pqssh.server.config.SshdConfigReader.read(file), options, true);
        }

        /** Command-line lines only (no file: pqssh's own defaults, no Match blocks). */
        public static Source options(List<String> options) {
            return new Source(List.of(), options, false);
        }

        /** Whether any Match block holds a keyword line (then each connection is evaluated). */
        public boolean hasMatchBlocks() {
            return lines.stream().anyMatch(l -> l.match() != null);
        }

        /** Whether a Match block tests the user's groups (which then have to be looked up per connection). */
        public boolean matchesGroups() {
            return lines.stream().anyMatch(l -> l.match() != null && l.match().usesGroups());
        }

        /** The values of {@code keyword} (lower case) anywhere: the global section, every Match block and -o. */
        public List<String> valuesAnywhere(String keyword) {
            List<String> out = new ArrayList<>();
            for (String o : options) {
                String[] kv = o.strip().split("\\s*=\\s*|\\s+", 2);
                if (kv.length == 2 && kv[0].equalsIgnoreCase(keyword)) {
                    out.add(kv[1].strip());
                }
            }
            lines.stream().filter(l -> l.keyword().equals(keyword)).forEach(l -> out.add(l.value()));
            return out;
        }

        /** The settings for {@code ci} (null: the server's start-up, where no Match block matches). */
        public ServerConfig evaluate(io.pqssh.server.config.ConnectionInfo ci) throws ConfigException {
            ServerConfig c = sshdModel ? sshd() : new ServerConfig();
            for (String o : options) {
                c.apply(o, "command-line line 0");
            }
            java.util.Map<io.pqssh.server.config.MatchCondition, ServerConfig> scratch =
                    new java.util.IdentityHashMap<>();
            for (io.pqssh.server.config.ConfigLine l : lines) {
                if (l.match() != null) {
                    ServerConfig s = scratch.computeIfAbsent(l.match(), m -> new ServerConfig());
                    if (s.seen.isEmpty()) {
                        c.matchLines.add(l.where() + ": Match " + l.match());
                    }
                    java.util.Optional<String> refused =
                            io.pqssh.server.config.SshdKeywords.refuseInMatch(l.keyword(), l.value());
                    if (refused.isPresent()) {
                        // fail closed: a keyword applied to every connection or to none could open what the
                        // block meant to close
                        throw new ConfigException(l.where() + ": " + io.pqssh.server.config.SshdKeywords
                                .find(l.keyword()).map(k -> k.name()).orElse(l.keyword()) + " " + l.value()
                                + ": not supported inside Match by pqssh server: " + refused.get());
                    }
                    s.apply(l.keyword(), l.value(), l.where()); // errors in blocks that do not match are still errors
                    if (l.match().matches(ci)) {
                        c.apply(l.keyword(), l.value(), l.where());
                        c.setByMatch.add(l.keyword());
                    }
                }
            }
            for (io.pqssh.server.config.ConfigLine l : lines) {
                if (l.match() == null && !c.setByMatch.contains(l.keyword())) {
                    c.apply(l.keyword(), l.value(), l.where());
                }
            }
            if (c.authorizedKeysCommand != null && c.authorizedKeysCommandUser == null) {
                throw new ConfigException("AuthorizedKeysCommand set without AuthorizedKeysCommandUser");
            }
            if (c.authorizedPrincipalsCommand != null && c.authorizedPrincipalsCommandUser == null) {
                throw new ConfigException("AuthorizedPrincipalsCommand set without AuthorizedPrincipalsCommandUser");
            }
            return c;
        }
    }

    /** Applies one line ({@code -o Keyword=value} on the command line uses the same syntax with '='). */
    public void apply(String rawLine, String where) throws ConfigException {
        String line = rawLine.strip();
        if (line.isEmpty() || line.startsWith("#")) {
            return;
        }
        String[] kv = line.split("\\s*=\\s*|\\s+", 2);
        String value = kv.length > 1 ? kv[1].strip() : "";
        if (value.isEmpty()) {
            throw new ConfigException(where + ": missing value for " + kv[0]);
        }
        if (value.chars().anyMatch(ch -> ch < 0x20 && ch != '\t' || ch == 0x7f)) {
            throw new ConfigException(where + ": control character in the value of " + kv[0]);
        }
        String key = kv[0].toLowerCase(Locale.ROOT);
        if (key.equals("match") || key.equals("include")) {
            throw new ConfigException(where + ": " + kv[0] + " is only allowed in a configuration file");
        }
        if (io.pqssh.server.config.SshdKeywords.find(key).isEmpty()) {
            // as sshd: the keyword as the user wrote it, not lower-cased
            throw new ConfigException(where + ": Bad configuration option: " + kv[0]);
        }
        apply(key, value, where);
    }

    /** Applies one keyword (lower case) and its value. */
    public void apply(String key, String value, String where) throws ConfigException {
        String name = io.pqssh.server.config.SshdKeywords.find(key).map(k -> k.name()).orElse(key);
        if (key.equals("port") && portsFromCommandLine && !where.startsWith("command-line")) {
            return; // sshd -p: the file's Port lines are not used
        }
        // sshd: HostKey, HostCertificate, AcceptEnv, Port, ListenAddress and the four access lists add up over every
        // line; any other keyword's first value wins
        boolean first = seen.add(key) || key.equals("hostkey") || key.equals("hostcertificate")
                || key.equals("acceptenv") || key.equals("port")
                || key.equals("listenaddress") || key.equals("allowusers")
                || key.equals("denyusers") || key.equals("allowgroups") || key.equals("denygroups");
        if (!first) {
            return; // sshd: the first obtained value is used
        }
        if (io.pqssh.server.config.SshdKeywords.find(key).isEmpty()) {
            throw new ConfigException(where + ": Bad configuration option: " + name);
        }
        switch (io.pqssh.server.config.SshdKeywords.verdict(key, value)) {
            case io.pqssh.server.config.SshdKeywords.Verdict.Refuse r ->
                    throw new ConfigException(where + ": " + name + " " + value + ": not supported by pqssh server: "
                            + r.why());
            case io.pqssh.server.config.SshdKeywords.Verdict.Warn w ->
                    warnings.putIfAbsent(key, where + ": " + name + " " + value + ": accepted but not applied: "
                            + w.why());
            case io.pqssh.server.config.SshdKeywords.Verdict.Apply a -> {
            }
        }
        String[] kv = {name};
        try {
            switch (key) {
                case "port" -> {
                    if (ports.size() >= io.pqssh.server.config.ListenAddresses.MAX_PORTS) {
                        throw new IllegalArgumentException("too many ports.");
                    }
                    ports.add(parsePort(value));
                    port = ports.get(0);
                    portsFromCommandLine |= where.startsWith("command-line");
                }
                case "listenaddress" -> {
                    listenAddresses.add(io.pqssh.server.config.ListenAddresses.Entry.parse(value));
                    listenAddress = listenAddresses.get(0).host();
                }
                case "addressfamily" -> {
                    addressFamily = io.pqssh.server.config.ListenAddresses.family(value);
                    if (listenAddresses.isEmpty() && sshdDefaults) {
                        listenAddress = addressFamily.equals("inet") ? "0.0.0.0" : "::";
                    }
                }
                case "hostkey", "hostdsakey" -> hostKeys.add(Path.of(value));
                case "hostcertificate" -> hostCertificates.add(Path.of(value));
                // sshd's derelativise_path: a relative socket path is taken from the current directory
                case "hostkeyagent" -> hostKeyAgent = value.equalsIgnoreCase("none") ? null
                        : value.equals("SSH_AUTH_SOCK") ? value : Path.of(value).toAbsolutePath().toString();
                case "permitrootlogin" -> permitRootLogin = switch (value.toLowerCase(Locale.ROOT)) {
                    case "yes" -> "yes";
                    case "no" -> "no";
                    case "prohibit-password", "without-password" -> "prohibit-password";
                    case "forced-commands-only" -> "forced-commands-only";
                    default -> throw new IllegalArgumentException("unsupported option '" + value + "'");
                };
                case "usepam" -> usePam = yesNo(value);
                case "banner" -> banner = value.equalsIgnoreCase("none") ? null : Path.of(value);
                case "versionaddendum" -> versionAddendum = value.equalsIgnoreCase("none") ? null : value;
                case "tcpkeepalive", "keepalive" -> tcpKeepAlive = yesNo(value);
                case "compression" -> compression = switch (value.toLowerCase(Locale.ROOT)) {
                    case "yes", "delayed" -> true;
                    case "no" -> false;
                    default -> throw new IllegalArgumentException("expected yes, delayed or no, got '" + value + "'");
                };
                case "x11forwarding" -> x11 = x11.forwarding(yesNo(value));
                case "x11displayoffset" -> x11 = x11.displayOffset(value);
                case "x11uselocalhost" -> x11 = x11.useLocalhost(yesNo(value));
                case "xauthlocation" -> x11 = x11.xauthLocation(value);
                case "permittty" -> permitTty = yesNo(value);
                case "forcecommand" -> forceCommand = value.equalsIgnoreCase("none") ? null : value;
                case "chrootdirectory" -> chrootDirectory = value.equalsIgnoreCase("none") ? null : value;
                case "setenv" -> {
                    for (String arg : io.pqssh.common.text.ArgvSplit.split(value, false)) {
                        int eq = arg.indexOf('=');
                        if (eq <= 0) {
                            // sshd: fatal "Invalid environment." (a name is needed; "=x" has none either)
                            throw new IllegalArgumentException("Invalid environment.");
                        }
                        setEnv.putIfAbsent(arg.substring(0, eq), arg.substring(eq + 1));
                    }
                }
                case "pidfile" -> pidFile = value.equalsIgnoreCase("none") ? null : Path.of(value);
                case "authorizedkeysfile" -> authorizedKeysFile = value;
                case "authorizedkemkeysfile" -> authorizedKemKeysFile = value;
                case "revokedkeys" -> revokedKeys = value.equalsIgnoreCase("none") ? null : Path.of(value);
                case "trustedusercakeys" -> trustedUserCaKeys = value.equalsIgnoreCase("none") ? null : Path.of(value);
                case "authorizedprincipalsfile" -> authorizedPrincipalsFile = value;
                case "authorizedkeyscommand" -> authorizedKeysCommand = absoluteCommand(value);
                case "authorizedkeyscommanduser" ->
                        authorizedKeysCommandUser = value.equalsIgnoreCase("none") ? null : value;
                case "authorizedprincipalscommand" -> authorizedPrincipalsCommand = absoluteCommand(value);
                case "authorizedprincipalscommanduser" ->
                        authorizedPrincipalsCommandUser = value.equalsIgnoreCase("none") ? null : value;
                case "casignaturealgorithms" -> caSignatureAlgorithms = algorithms(ServerAlgorithms.CA_SIGNATURE, value,
                        where);
                case "ciphers" -> ciphers = algorithms(ServerAlgorithms.CIPHERS, value, where);
                case "macs" -> macs = algorithms(ServerAlgorithms.MACS, value, where);
                case "hostkeyalgorithms" -> hostKeyAlgorithms = algorithms(ServerAlgorithms.HOST_KEY, value, where);
                case "pubkeyacceptedalgorithms", "pubkeyacceptedkeytypes" -> pubkeyAcceptedAlgorithms =
                        algorithms(ServerAlgorithms.PUBKEY, value, where);
                case "kemauthentication" -> kemAuthentication = yesNo(value);
                case "kemauthalgorithms" -> kemAuthAlgorithms = kemAlgorithms(value);
                case "authenticationmethods" -> authenticationMethods = value;
                case "passwordauthentication" -> passwordAuthentication = yesNo(value);
                case "kbdinteractiveauthentication", "challengeresponseauthentication", "skeyauthentication" ->
                        kbdInteractiveAuthentication = yesNo(value);
                case "pubkeyauthentication", "dsaauthentication" -> pubkeyAuthentication = yesNo(value);
                case "passwordfile" -> passwordFile = Path.of(value);
                case "kexalgorithms" -> kexAlgorithms = algorithms(ServerAlgorithms.KEX, value, where);
                case "requirepostquantumkex" -> requirePostQuantumKex = yesNo(value);
                case "strictmodes" -> strictModes = yesNo(value);
                case "maxauthtries" -> maxAuthTries = positive(value);
                case "maxsessions" -> maxSessions = nonNegative(value);
                case "clientaliveinterval" -> timeouts = new io.pqssh.server.session.ConnectionTimeouts.Settings(
                        duration(value), timeouts.clientAliveCountMax(), timeouts.channelTimeouts(),
                        timeouts.unusedConnectionTimeout());
                case "clientalivecountmax" -> timeouts = new io.pqssh.server.session.ConnectionTimeouts.Settings(
                        timeouts.clientAliveInterval(), nonNegative(value), timeouts.channelTimeouts(),
                        timeouts.unusedConnectionTimeout());
                case "channeltimeout" -> timeouts = new io.pqssh.server.session.ConnectionTimeouts.Settings(
                        timeouts.clientAliveInterval(), timeouts.clientAliveCountMax(),
                        io.pqssh.server.session.ConnectionTimeouts.Settings.parseChannelTimeouts(value,
                                ServerConfig::duration),
                        timeouts.unusedConnectionTimeout());
                case "unusedconnectiontimeout" -> timeouts =
                        new io.pqssh.server.session.ConnectionTimeouts.Settings(timeouts.clientAliveInterval(),
                                timeouts.clientAliveCountMax(), timeouts.channelTimeouts(),
                                value.equalsIgnoreCase("none") ? java.time.Duration.ZERO : duration(value));
                case "logingracetime" -> loginGraceTime = duration(value);
                case "maxpendingkemchallenges" -> {
                    String[] p = value.split(":", -1);
                    if (p.length > 2) {
                        throw new IllegalArgumentException("expected global[:per-source], got '" + value + "'");
                    }
                    maxPendingKemChallenges = positive(p[0]);
                    maxPendingKemChallengesPerSource = p.length > 1 ? positive(p[1]) : maxPendingKemChallenges;
                }
                case "maxstartups" -> preAuth = preAuth.maxStartups(value);
                case "persourcemaxstartups" -> preAuth = preAuth.perSourceMaxStartups(value);
                case "persourceconnectrate" -> preAuth = preAuth.perSourceConnectRate(value);
                case "maxpreauthpacketsize" -> preAuth = preAuth.maxPreauthPacketSize(positive(value));
                case "subsystem" -> {
                    String[] sub = value.split("\\s+", 2);
                    if (!sub[0].equals("sftp")) {
                        throw new ConfigException(where + ": only the sftp subsystem is supported");
                    }
                    sftp = true;
                    // "internal-sftp [options]" is kept as it is: its options are internal-sftp's
                    if (sub.length > 1 && !sub[1].strip().equals("internal-sftp")) {
                        sftpServer = sub[1].strip();
                    }
                }
                case "printmotd" -> printMotd = yesNo(value);
                case "printlastlog" -> printLastLog = yesNo(value);
                case "permituserrc" -> permitUserRc = yesNo(value);
                case "motdfile" -> motdFile = Path.of(value);
                case "allowusers" -> access = access.allowUsers(value);
                case "denyusers" -> access = access.denyUsers(value);
                case "allowgroups" -> access = access.allowGroups(value);
                case "denygroups" -> access = access.denyGroups(value);
                case "allowtcpforwarding" -> forwarding = forwarding.allowTcpForwarding(
                        io.pqssh.server.forward.ForwardingPolicy.TcpForwarding.parse(value));
                case "permitopen" -> forwarding = forwarding.permitOpen(value);
                case "permitlisten" -> forwarding = forwarding.permitListen(value);
                case "gatewayports" -> forwarding = forwarding.gatewayPorts(
                        io.pqssh.server.forward.ForwardingPolicy.GatewayPorts.parse(value));
                case "acceptenv" -> acceptEnv.addAll(envPatterns(value));
                case "permituserenvironment" -> permitUserEnvironment =
                        io.pqssh.server.session.UserEnvironment.parse(value);
                case "allowagentforwarding" -> forwarding = forwarding.allowAgentForwarding(yesNo(value));
                case "disableforwarding" -> forwarding = forwarding.disableForwarding(yesNo(value));
                case "allowstreamlocalforwarding" -> forwarding = forwarding.allowStreamLocalForwarding(
                        io.pqssh.server.forward.ForwardingPolicy.TcpForwarding.parse(value));
                case "streamlocalbindmask" -> forwarding = forwarding.streamLocalBindMask(value);
                case "streamlocalbindunlink" -> forwarding = forwarding.streamLocalBindUnlink(yesNo(value));
                default -> {
                    // accepted (warned above) or a value pqssh applies anyway: nothing to store
                }
            }
        } catch (IllegalArgumentException e) {
            throw new ConfigException(where + ": " + kv[0] + ": " + e.getMessage());
        }
    }

    /**
     * {@code -T}: the configuration pqssh applies, one {@code keyword value} line each with sshd's lower-case
     * keywords and sshd's value spellings. Keywords pqssh accepts without applying show what pqssh does instead
     * (e.g. {@code usedns no}); pqssh's own keywords follow sshd's.
     */
    public List<String> effective() {
        List<String> o = new ArrayList<>();
        for (int p : ports.isEmpty() ? List.of(port) : ports) {
            o.add("port " + p);
        }
        o.add("addressfamily " + addressFamily);
        try {
            for (java.net.InetSocketAddress a : listenSockets()) {
                o.add("listenaddress " + io.pqssh.server.config.ListenAddresses.format(a));
            }
        } catch (java.net.UnknownHostException e) {
            o.add("listenaddress " + e.getMessage());
        }
        o.add("usepam " + yn(usePam));
        o.add("logingracetime " + loginGraceTime.toSeconds());
        o.add("maxauthtries " + maxAuthTries);
        o.add("maxsessions " + maxSessions);
        o.add("clientaliveinterval " + timeouts.clientAliveInterval().toSeconds());
        o.add("clientalivecountmax " + timeouts.clientAliveCountMax());
        o.add("unusedconnectiontimeout " + (timeouts.unusedConnectionTimeout().isZero() ? "none"
                : timeouts.unusedConnectionTimeout().toSeconds()));
        o.add("permitrootlogin " + (permitRootLogin.equals("prohibit-password") ? "without-password" : permitRootLogin));
        o.add("ignorerhosts yes");
        o.add("hostbasedauthentication no");
        o.add("pubkeyauthentication " + yn(pubkeyAuthentication));
        o.add("kerberosauthentication no");
        o.add("gssapiauthentication no");
        o.add("passwordauthentication " + yn(passwordAuthentication));
        o.add("kbdinteractiveauthentication " + yn(kbdInteractiveAuthentication));
        o.add("printmotd " + yn(printMotd));
        o.add("printlastlog " + yn(printLastLog));
        o.addAll(x11.sshdTLines());
        o.add("permittty " + yn(permitTty));
        o.add("permituserrc " + yn(permitUserRc));
        o.add("strictmodes " + yn(strictModes));
        o.add("permitemptypasswords no");
        o.add("compression " + yn(compression));
        o.add("tcpkeepalive " + yn(tcpKeepAlive));
        o.add("usedns no");
        o.add("exposeauthinfo no");
        o.add("pidfile " + (pidFile == null ? "none" : pidFile));
        o.add("banner " + (banner == null ? "none" : banner));
        o.add("forcecommand " + (forceCommand == null ? "none" : forceCommand));
        o.add("chrootdirectory " + (chrootDirectory == null ? "none" : chrootDirectory));
        setEnv.forEach((k, v) -> o.add("setenv " + k + "=" + v));
        o.add("trustedusercakeys " + (trustedUserCaKeys == null ? "none" : trustedUserCaKeys));
        o.add("authorizedprincipalsfile " + (authorizedPrincipalsFile == null ? "none" : authorizedPrincipalsFile));
        o.add("authorizedprincipalscommand " + (authorizedPrincipalsCommand == null ? "none"
                : authorizedPrincipalsCommand));
        o.add("authorizedprincipalscommanduser " + (authorizedPrincipalsCommandUser == null ? "none"
                : authorizedPrincipalsCommandUser));
        o.add("casignaturealgorithms " + String.join(",", caSignatureAlgorithms != null ? caSignatureAlgorithms
                : ServerAlgorithms.CA_SIGNATURE.defaults()));
        o.add("ciphers " + String.join(",", ciphers));
        o.add("macs " + String.join(",", macs));
        o.add("revokedkeys " + (revokedKeys == null ? "none" : revokedKeys));
        o.add("versionaddendum " + (versionAddendum == null ? "none" : versionAddendum));
        o.add("authorizedkeyscommand " + (authorizedKeysCommand == null ? "none" : authorizedKeysCommand));
        o.add("authorizedkeyscommanduser " + (authorizedKeysCommandUser == null ? "none"
                : authorizedKeysCommandUser));
        o.add("hostkeyagent " + (hostKeyAgent == null ? "none" : hostKeyAgent));
        o.add("kexalgorithms " + String.join(",", kexAlgorithms));
        o.add("hostkeyalgorithms " + String.join(",", hostKeyAlgorithms));
        o.add("pubkeyacceptedalgorithms " + String.join(",", pubkeyAcceptedAlgorithms));
        o.add("authorizedkeysfile " + authorizedKeysFile);
        List<Path> keys = hostKeys.isEmpty() && sshdDefaults ? SSHD_HOST_KEYS : hostKeys;
        for (Path k : keys) {
            o.add("hostkey " + k);
        }
        for (Path k : hostCertificates) {
            o.add("hostcertificate " + k);
        }
        for (String e : acceptEnv) {
            o.add("acceptenv " + e);
        }
        o.add("authenticationmethods " + authenticationMethods);
        o.add("subsystem sftp " + (sftpServer != null ? sftpServer : "internal-sftp"));
        o.add("maxstartups " + preAuth.startupsStart() + ":" + preAuth.startupsRate() + ":" + preAuth.startupsFull());
        o.add("persourcemaxstartups " + (preAuth.perSourceMaxStartups() == 0 ? "none"
                : preAuth.perSourceMaxStartups()));
        o.add("permittunnel no");
        o.add("permituserenvironment " + io.pqssh.server.session.UserEnvironment.sshdT(permitUserEnvironment));
        o.add("pubkeyauthoptions none");
        o.addAll(forwarding.sshdTLines());
        o.addAll(access.sshdTLines());
        o.add("authorizedkemkeysfile " + authorizedKemKeysFile);
        o.add("kemauthentication " + yn(kemAuthentication));
        o.add("requirepostquantumkex " + yn(requirePostQuantumKex));
        o.add("motdfile " + motdFile);
        return o;
    }

    /** An algorithm list keyword's value; refused with sshd's own message ({@code FILE line N: Bad SSH2 ...}). */
    private static List<String> algorithms(ServerAlgorithms kind, String value, String where) throws ConfigException {
        try {
            return kind.resolve(value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(where + ": " + (e.getMessage().startsWith("'")
                    ? kind.keyword() + " " + e.getMessage() : e.getMessage()));
        }
    }

    /**
     * Every socket to listen on: each ListenAddress at its own port or at every Port, or the family's wildcard
     * address ({@link #listenAddress}) at every Port.
     */
    public List<java.net.InetSocketAddress> listenSockets() throws java.net.UnknownHostException {
        List<io.pqssh.server.config.ListenAddresses.Entry> entries = listenAddresses.isEmpty()
                ? List.of(new io.pqssh.server.config.ListenAddresses.Entry(listenAddress, 0)) : listenAddresses;
        return io.pqssh.server.config.ListenAddresses.resolve(entries, ports.isEmpty() ? List.of(port) : ports,
                addressFamily);
    }

    /**
     * The HostKeyAgent socket: the path, or for {@code SSH_AUTH_SOCK} the server's variable of that name (sshd uses
     * its environment then); empty without HostKeyAgent or when the variable is unset.
     */
    public java.util.Optional<Path> hostKeyAgentSocket() {
        if (hostKeyAgent == null) {
            return java.util.Optional.empty();
        }
        String p = hostKeyAgent.equals("SSH_AUTH_SOCK") ? System.getenv("SSH_AUTH_SOCK") : hostKeyAgent;
        return p == null || p.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(Path.of(p));
    }

    /** AuthorizedKeysCommand, AuthorizedPrincipalsCommand: sshd's "must be an absolute path"; none: null. */
    private static String absoluteCommand(String value) {
        if (value.equalsIgnoreCase("none")) {
            return null;
        }
        if (!value.startsWith("/")) {
            throw new IllegalArgumentException("must be an absolute path");
        }
        return value;
    }

    private static String yn(boolean b) {
        return b ? "yes" : "no";
    }

    /** sshd: whitespace-separated name patterns, lines accumulate; a pattern cannot hold '='. */
    private static List<String> envPatterns(String v) {
        List<String> out = new ArrayList<>();
        for (String p : v.split("\\s+")) {
            if (p.indexOf('=') >= 0) {
                throw new IllegalArgumentException("invalid environment name \"" + p + "\"");
            }
            out.add(p);
        }
        return out;
    }

    private static int parsePort(String v) {
        int p = Integer.parseInt(v);
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException("port out of range: " + v);
        }
        return p;
    }

    private static int nonNegative(String v) {
        int n = Integer.parseInt(v.strip());
        if (n < 0) {
            throw new IllegalArgumentException("must not be negative: " + v);
        }
        return n;
    }

    private static int positive(String v) {
        int n = Integer.parseInt(v.strip());
        if (n < 1) {
            throw new IllegalArgumentException("must be positive: " + v);
        }
        return n;
    }

    static boolean yesNo(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "yes", "true" -> true;
            case "no", "false" -> false;
            default -> throw new IllegalArgumentException("expected yes or no, got '" + v + "'");
        };
    }

    static Set<KemAlgorithm> kemAlgorithms(String v) {
        Set<KemAlgorithm> s = EnumSet.noneOf(KemAlgorithm.class);
        for (String n : v.split(",")) {
            s.add(KemAlgorithm.require(n.strip()));
        }
        return s;
    }

    /** sshd time format: plain seconds or a number with s, m, h suffix. */
    static Duration duration(String v) {
        String s = v.strip().toLowerCase(Locale.ROOT);
        if (s.startsWith("-")) {
            throw new IllegalArgumentException("negative time value '" + v + "'");
        }
        char unit = s.charAt(s.length() - 1);
        if (Character.isDigit(unit)) {
            return Duration.ofSeconds(Long.parseLong(s));
        }
        long n = Long.parseLong(s.substring(0, s.length() - 1));
        try {
            return switch (unit) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> throw new IllegalArgumentException("bad time value '" + v + "'");
            };
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("time value out of range '" + v + "'");
        }
    }

    /** A configuration error with file and line. */
    public static final class ConfigException extends Exception {
        private static final long serialVersionUID = 1L;

        public ConfigException(String message) {
            super(message);
        }
    }
}
