package io.pqssh.client.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The client configuration for one destination, resolved as ssh resolves it: command-line flags, then {@code -o}
 * options, then the destination's {@code user@} and port, then {@code ~/.ssh/config} and the system-wide
 * {@code /etc/ssh/ssh_config} (or only {@code -F FILE}; {@code -F none} reads none), first value wins; a second pass
 * over the same files when one has {@code Match canonical/final}.
 */
public final class ClientConfig {
    /** StrictHostKeyChecking. */
    public enum HostKeyChecking { YES, ASK, ACCEPT_NEW, NO }

    /**
     * The system property that moves the system-wide file (a path, or {@code none}); for tests, so that they do not
     * depend on the machine's {@code /etc/ssh}.
     */
    public static final String SYSTEM_CONFIG_PROPERTY = "pqssh.systemSshConfig";

    /** What the command line says, before any file is read; {@code systemConfig} null reads no system file. */
    public record Request(String host, String destinationUser, Integer destinationPort, Integer portFlag,
            String loginFlag, List<String> identityFlags, List<String> options, String configFile,
            List<ForwardSpec> forwardFlags, String localUser, Path home, Path systemConfig) {
        public Request {
            identityFlags = List.copyOf(identityFlags);
            options = List.copyOf(options);
            forwardFlags = List.copyOf(forwardFlags);
        }
    }

    /** OpenSSH's system-wide client file, {@code /etc/ssh/ssh_config}, unless {@link #SYSTEM_CONFIG_PROPERTY} moves it. */
    public static Path systemConfigFile() {
        String p = System.getProperty(SYSTEM_CONFIG_PROPERTY, "/etc/ssh/ssh_config");
        return p.equalsIgnoreCase("none") ? null : Path.of(p);
    }

    private final Request request;
    private final Map<String, List<OptionValue>> values;
    private final Tokens.Context tokens;

    private ClientConfig(Request request, Map<String, List<OptionValue>> values) {
        this.request = request;
        this.values = values;
        this.tokens = new Tokens.Context(hostName(), request.host(), port(), user(), request.localUser(),
                request.home());
    }

    /** Reads everything for {@code request}; {@code debug} receives ssh-style debug lines. */
    public static ClientConfig resolve(Request request, Consumer<String> debug) throws ConfigException {
        OptionSet set = new OptionSet();
        ConfigReader reader = new ConfigReader(set, request.host(), request.localUser(), request.home(), debug);
        if (request.portFlag() != null) {
            set.force("Port", new OptionValue(List.of(String.valueOf(request.portFlag())), "command-line -p"));
        }
        if (request.loginFlag() != null) {
            set.force("User", new OptionValue(List.of(request.loginFlag()), "command-line -l"));
        }
        Keyword identityFile = Keywords.lookup("IdentityFile").orElseThrow();
        for (String i : request.identityFlags()) {
            set.offer(identityFile, new OptionValue(List.of(i), "command-line -i"));
        }
        for (String o : request.options()) {
            reader.commandLine(o);
        }
        if (request.destinationUser() != null) {
            set.setIfAbsent("User", new OptionValue(List.of(request.destinationUser()), "destination"));
        }
        if (request.destinationPort() != null) {
            set.setIfAbsent("Port", new OptionValue(List.of(String.valueOf(request.destinationPort())),
                    "destination"));
        }
        readFiles(request, reader);
        if (reader.wantsFinalPass()) {
            debug.accept("re-parsing configuration (final pass)");
            reader.finalPass(true);
            readFiles(request, reader);
        }
        return new ClientConfig(request, set.snapshot());
    }

    /** As ssh: {@code -F file} alone, or the user's file then the system-wide one. */
    private static void readFiles(Request request, ConfigReader reader) throws ConfigException {
        if (request.configFile() != null) {
            if (!request.configFile().equalsIgnoreCase("none")) {
                reader.file(Path.of(request.configFile()), true);
            }
            return;
        }
        reader.file(request.home().resolve(".ssh").resolve("config"), false);
        if (request.systemConfig() != null) {
            reader.systemFile(request.systemConfig());
        }
    }

    // ---- raw access (for options other code carries out)

    /** The first value of a keyword, if any. */
    public Optional<OptionValue> value(String keyword) {
        List<OptionValue> l = values.get(canonical(keyword));
        return l == null || l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
    }

    /** Every value of an accumulating keyword, in order. */
    public List<OptionValue> values(String keyword) {
        return values.getOrDefault(canonical(keyword), List.of());
    }

    public Optional<String> string(String keyword) {
        return value(keyword).map(OptionValue::first);
    }

    /** A yes/no keyword, or {@code dflt} when unset. */
    public boolean flag(String keyword, boolean dflt) {
        return string(keyword).map(v -> v.equalsIgnoreCase("yes") || v.equalsIgnoreCase("true")).orElse(dflt);
    }

    private static String canonical(String keyword) {
        String k = keyword.toLowerCase(Locale.ROOT);
        return Keywords.aliases().getOrDefault(k, k);
    }

    /**
     * One line per keyword pqssh accepts without carrying it out ({@link Keyword.Status#WARNED}) whose resolved
     * value asks for something: what pqssh does instead, for a warning before connecting.
     */
    public List<String> ignoredOptionWarnings() {
        List<String> out = new ArrayList<>();
        for (Keyword k : Keywords.all()) {
            if (k.status() != Keyword.Status.WARNED) {
                continue;
            }
            Optional<OptionValue> v = value(k.name());
            if (v.isPresent() && !(v.get().args().size() == 1 && k.behavesAs(v.get().first()))) {
                out.add(k.name() + " " + v.get().joined() + " (" + v.get().source() + "): " + k.note());
            }
        }
        return out;
    }

    /** RekeyLimit's data amount in bytes, if set and not {@code default} (0: no limit by amount). */
    public Optional<Long> rekeyBytes() {
        return value("RekeyLimit").filter(v -> !v.first().equalsIgnoreCase("default"))
                .map(v -> Validators.parseSize(v.first()));
    }

    /** RekeyLimit's time in seconds, if given and not {@code default} (0, {@code none}: no limit by time). */
    public Optional<Long> rekeySeconds() {
        return value("RekeyLimit").filter(v -> v.args().size() == 2 && !v.args().get(1).equalsIgnoreCase("default"))
                .map(v -> Validators.parseSeconds(v.args().get(1)));
    }

    /** RefuseConnection yes (OpenSSH 10): where it was set, if it refuses this destination. */
    public Optional<String> refuseConnection() {
        return value("RefuseConnection").filter(v -> v.first().equalsIgnoreCase("yes")
                || v.first().equalsIgnoreCase("true")).map(OptionValue::source);
    }

    // ---- resolved, typed

    /** The name given on the command line (ssh's {@code %n}). */
    public String originalHost() {
        return request.host();
    }

    /** {@code HostName} with {@code %h} expanded, or the name given. */
    public String hostName() {
        return string("HostName").map(h -> Tokens.hostName(h, request.host())).orElse(request.host());
    }

    public int port() {
        return string("Port").map(Integer::parseInt).orElse(22);
    }

    public String user() {
        return string("User").orElse(request.localUser());
    }

    public String localUser() {
        return request.localUser();
    }

    public Path home() {
        return request.home();
    }

    public Tokens.Context tokens() {
        return tokens;
    }

    /** A file name keyword's value with tokens, ~ and ${VAR} expanded. */
    /**
     * ControlPath with its tokens ({@code %C} among them), {@code ~} and {@code ${VAR}} expanded; empty when unset
     * or {@code none}.
     */
    public Optional<Path> controlPath(String override) throws ConfigException {
        String v = override != null ? override : string("ControlPath").orElse(null);
        if (v == null || v.equalsIgnoreCase("none")) {
            return Optional.empty();
        }
        String jump = string("ProxyJump").filter(j -> !j.equalsIgnoreCase("none")).orElse("");
        return Optional.of(Path.of(Tokens.env(Tokens.tilde(Tokens.expandWithHash(v, tokens, jump), home()))));
    }

    public Path path(String value) throws ConfigException {
        return Path.of(Tokens.path(value, tokens));
    }

    /** Configured identity files (command line first), expanded; empty when none was configured. */
    public List<Path> identityFiles() throws ConfigException {
        List<Path> out = new ArrayList<>();
        for (OptionValue v : values("IdentityFile")) {
            if (!v.first().equalsIgnoreCase("none")) {
                out.add(path(v.first()));
            }
        }
        return out;
    }

    /** Configured CertificateFile entries (command line first), expanded; ssh has no {@code none} for them. */
    public List<Path> certificateFiles() throws ConfigException {
        List<Path> out = new ArrayList<>();
        for (OptionValue v : values("CertificateFile")) {
            out.add(path(v.first()));
        }
        return out;
    }

    public List<Path> identityKemFiles() throws ConfigException {
        List<Path> out = new ArrayList<>();
        for (OptionValue v : values("IdentityKEMFile")) {
            out.add(path(v.first()));
        }
        return out;
    }

    public boolean identitiesOnly() {
        return flag("IdentitiesOnly", false);
    }

    public HostKeyChecking strictHostKeyChecking() {
        String v = string("StrictHostKeyChecking").orElse("ask").toLowerCase(Locale.ROOT);
        return switch (v) {
            case "yes", "true" -> HostKeyChecking.YES;
            case "no", "off", "false" -> HostKeyChecking.NO;
            case "accept-new" -> HostKeyChecking.ACCEPT_NEW;
            default -> HostKeyChecking.ASK;
        };
    }

    /** The first UserKnownHostsFile (the one new keys are written to), default ~/.ssh/known_hosts; none: /dev/null. */
    public Path userKnownHostsFile() throws ConfigException {
        List<Path> files = userKnownHostsFiles();
        return files.isEmpty() ? Path.of("/dev/null") : files.get(0);
    }

    /**
     * UserKnownHostsFile as ssh reads it: every file of the list, tokens and ~ expanded; default
     * ~/.ssh/known_hosts and ~/.ssh/known_hosts2; {@code none} (alone) for no file.
     */
    public List<Path> userKnownHostsFiles() throws ConfigException {
        Optional<OptionValue> v = value("UserKnownHostsFile");
        if (v.isEmpty()) {
            Path ssh = request.home().resolve(".ssh");
            return List.of(ssh.resolve("known_hosts"), ssh.resolve("known_hosts2"));
        }
        List<Path> out = new ArrayList<>();
        for (String f : knownHostsList("UserKnownHostsFile", v.get().args())) {
            out.add(path(f));
        }
        return out;
    }

    /**
     * GlobalKnownHostsFile as ssh reads it: default /etc/ssh/ssh_known_hosts and /etc/ssh/ssh_known_hosts2,
     * {@code none} (alone) for no file; the names are taken as written (ssh expands no tokens or ~ in them).
     */
    public List<Path> globalKnownHostsFiles() throws ConfigException {
        Optional<OptionValue> v = value("GlobalKnownHostsFile");
        if (v.isEmpty()) {
            return List.of(Path.of("/etc/ssh/ssh_known_hosts"), Path.of("/etc/ssh/ssh_known_hosts2"));
        }
        return knownHostsList("GlobalKnownHostsFile", v.get().args()).stream().map(Path::of).toList();
    }

    private static List<String> knownHostsList(String keyword, List<String> args) throws ConfigException {
        if (args.get(0).equalsIgnoreCase("none")) {
            if (args.size() > 1) {
                throw new ConfigException("Invalid " + keyword + "s: \"none\" appears with other entries");
            }
            return List.of();
        }
        return args;
    }

    /** -L/-R/-D flags first, then the config's LocalForward/RemoteForward/DynamicForward. */
    public List<ForwardSpec> forwards() throws ConfigException {
        List<ForwardSpec> out = new ArrayList<>(request.forwardFlags());
        if (flag("ClearAllForwardings", false)) {
            return List.of();
        }
        for (String k : List.of("LocalForward", "RemoteForward", "DynamicForward")) {
            ForwardSpec.Kind kind = k.startsWith("Local") ? ForwardSpec.Kind.LOCAL
                    : k.startsWith("Remote") ? ForwardSpec.Kind.REMOTE : ForwardSpec.Kind.DYNAMIC;
            for (OptionValue v : values(k)) {
                out.add(ForwardSpec.parse(kind, v.args()));
            }
        }
        return out;
    }

    /**
     * {@code PermitRemoteOpen} as ssh reads it: where a remote dynamic forwarding ({@code -R [bind:]port}) may
     * connect. {@code any} (default), {@code none}, or {@code host:port} entries ({@code *} for either, {@code [v6]:port}),
     * compared literally with what the SOCKS client asked for (no DNS).
     */
    public java.util.function.BiPredicate<String, Integer> permitRemoteOpen() throws ConfigException {
        Optional<OptionValue> v = value("PermitRemoteOpen");
        if (v.isEmpty() || (v.get().args().size() == 1 && v.get().first().equalsIgnoreCase("any"))) {
            return (h, p) -> true;
        }
        if (v.get().args().size() == 1 && v.get().first().equalsIgnoreCase("none")) {
            return (h, p) -> false;
        }
        List<io.pqssh.common.forward.HostPortPattern> allowed = new ArrayList<>();
        for (String a : v.get().args()) {
            try {
                allowed.add(io.pqssh.common.forward.HostPortPattern.parse(a, true));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(v.get().source() + ": PermitRemoteOpen: " + e.getMessage());
            }
        }
        List<io.pqssh.common.forward.HostPortPattern> list = List.copyOf(allowed);
        return (h, p) -> io.pqssh.common.forward.HostPortPattern.anyMatches(list, h, p);
    }

    /** StreamLocalBindMask: the mask for Unix sockets the client creates for -L (default 0177: owner only). */
    public int streamLocalBindMask() {
        return string("StreamLocalBindMask").map(v -> Integer.parseInt(v, 8)).orElse(0177);
    }

    /** ProxyJump hops ({@code none} or unset: empty). */
    public List<String> proxyJump() {
        String v = string("ProxyJump").orElse("none");
        return v.equalsIgnoreCase("none") ? List.of() : List.of(v.split(","));
    }

    /** ProxyCommand with its tokens expanded; empty when unset, {@code none}, or shadowed by ProxyJump. */
    public Optional<String> proxyCommand() throws ConfigException {
        Optional<String> v = string("ProxyCommand").filter(c -> !c.equalsIgnoreCase("none"));
        return v.isEmpty() ? v : Optional.of(Tokens.proxyCommand(v.get(), tokens));
    }

    /** ConnectTimeout in seconds; 0 when unset (the TCP connect's own timeout, as ssh). */
    public long connectTimeoutSeconds() {
        return string("ConnectTimeout").map(Validators::parseSeconds).orElse(0L);
    }

    public long serverAliveIntervalSeconds() {
        return string("ServerAliveInterval").map(Validators::parseSeconds).orElse(0L);
    }

    public int serverAliveCountMax() {
        return string("ServerAliveCountMax").map(Integer::parseInt).orElse(3);
    }

    public boolean batchMode() {
        return flag("BatchMode", false);
    }

    /** LogLevel as a verbosity: -1 QUIET/FATAL/ERROR, 0 INFO, 1 VERBOSE... 3 DEBUG3 (ssh's -v counts). */
    public int logVerbosity() {
        String v = string("LogLevel").orElse("INFO").toUpperCase(Locale.ROOT);
        return switch (v) {
            case "QUIET", "FATAL", "ERROR" -> -1;
            case "VERBOSE" -> 0;
            case "DEBUG", "DEBUG1" -> 1;
            case "DEBUG2" -> 2;
            case "DEBUG3" -> 3;
            default -> 0;
        };
    }

    public boolean logQuiet() {
        return string("LogLevel").map(v -> List.of("QUIET", "FATAL", "ERROR").contains(v.toUpperCase(Locale.ROOT)))
                .orElse(false);
    }

    /** EscapeChar: the byte, or -1 for none; default {@code ~}. */
    public int escapeChar() {
        String v = string("EscapeChar").orElse("~");
        if (v.equalsIgnoreCase("none")) {
            return -1;
        }
        if (v.length() == 2 && v.charAt(0) == '^') {
            return v.charAt(1) & 31;
        }
        return v.charAt(0);
    }

    /** KEMAuthAlgorithms as written (the first entry's spelling is sent), if set. */
    public Optional<List<String>> kemAuthAlgorithms() {
        return string("KEMAuthAlgorithms").map(v -> List.of(v.split(",")));
    }
}
