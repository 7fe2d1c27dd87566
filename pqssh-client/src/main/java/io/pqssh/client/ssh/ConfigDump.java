package io.pqssh.client.ssh;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import org.apache.sshd.common.NamedResource;

import io.pqssh.client.config.ClientConfig;
import io.pqssh.client.config.ConfigException;
import io.pqssh.client.config.ForwardSpec;
import io.pqssh.client.config.OptionValue;
import io.pqssh.client.config.Patterns;
import io.pqssh.client.config.Tokens;

/**
 * {@code pqssh ssh -G}: every option with its resolved value, in OpenSSH 9.2's {@code ssh -G} keys, spelling, value
 * formats and order (readconf.c's dump), so that the two outputs diff line by line. pqssh's own defaults differ where
 * pqssh uses another default (its post-quantum algorithm lists, its identity files); its own keywords follow ssh's
 * lines. docs/client.md lists every intended difference.
 */
public final class ConfigDump {
    /** Debian's GSSAPI key exchange patch default (pqssh has no GSSAPI; printed as Debian's ssh prints it). */
    private static final String GSSAPI_KEX = "gss-group14-sha256-,gss-group16-sha512-,gss-nistp256-sha256-,"
            + "gss-curve25519-sha256-,gss-group14-sha1-,gss-gex-sha1-";

    /** pqssh ssh's identity files when none is configured, in the order they are tried (in ~/.ssh). */
    public static final List<String> DEFAULT_IDENTITIES = List.of("id_mlkem768", "id_mlkem1024", "id_mlkem512",
            "id_mldsa44_ed25519", "id_rsa", "id_ecdsa", "id_ed25519");

    private final ClientConfig c;
    private final List<String> out = new ArrayList<>();

    private ConfigDump(ClientConfig c) {
        this.c = c;
    }

    /** The lines {@code -G} prints. */
    public static List<String> lines(ClientConfig c) throws ConfigException {
        ConfigDump d = new ConfigDump(c);
        d.dump();
        return List.copyOf(d.out);
    }

    private void dump() throws ConfigException {
        line("host", c.originalHost());
        line("user", c.user());
        line("hostname", c.hostName());
        line("port", String.valueOf(c.port()));

        // flags, in ssh's order
        line("addressfamily", lower("AddressFamily", "any"));
        yn("BatchMode", false);
        yn("CanonicalizeFallbackLocal", true);
        state("CanonicalizeHostname", "false");
        yn("CheckHostIP", false);
        yn("Compression", false);
        state("ControlMaster", "false");
        yn("EnableSSHKeysign", false);
        yn("ClearAllForwardings", false);
        yn("ExitOnForwardFailure", false);
        line("fingerprinthash", c.string("FingerprintHash").orElse("sha256").toUpperCase(Locale.ROOT));
        yn("ForwardX11", false);
        // Debian's ssh defaults it to yes (upstream: no)
        yn("ForwardX11Trusted", true);
        yn("GatewayPorts", false);
        yn("GSSAPIAuthentication", false);
        yn("GSSAPIKeyExchange", false);
        yn("GSSAPIDelegateCredentials", false);
        yn("GSSAPITrustDns", false);
        yn("GSSAPIRenewalForcesRekey", false);
        line("gssapikexalgorithms", c.string("GSSAPIKexAlgorithms").orElse(GSSAPI_KEX));
        yn("HashKnownHosts", false);
        yn("HostbasedAuthentication", false);
        yn("IdentitiesOnly", false);
        yn("KbdInteractiveAuthentication", true);
        yn("NoHostAuthenticationForLocalhost", false);
        yn("PasswordAuthentication", true);
        yn("PermitLocalCommand", false);
        yn("ProxyUseFdpass", false);
        state("PubkeyAuthentication", "true");
        state("RequestTTY", "auto");
        line("sessiontype", lower("SessionType", "default"));
        yn("StdinNull", false);
        yn("ForkAfterAuthentication", false);
        yn("StreamLocalBindUnlink", false);
        String strict = lower("StrictHostKeyChecking", "ask");
        line("stricthostkeychecking", strict.equals("off") ? "false" : truth(strict));
        yn("TCPKeepAlive", true);
        String tunnel = lower("Tunnel", "false");
        line("tunnel", tunnel.equals("yes") || tunnel.equals("true") ? "point-to-point" : truth(tunnel));
        state("VerifyHostKeyDNS", "false");
        yn("VisualHostKey", false);
        line("updatehostkeys", c.string("UpdateHostKeys").map(v -> truth(v.toLowerCase(Locale.ROOT)))
                .orElse(updateHostKeysDefault()));
        yn("EnableEscapeCommandline", false);

        // numbers
        line("canonicalizemaxdots", c.string("CanonicalizeMaxDots").orElse("1"));
        line("connectionattempts", c.string("ConnectionAttempts").orElse("1"));
        line("forwardx11timeout", seconds("ForwardX11Timeout", "1200"));
        line("numberofpasswordprompts", c.string("NumberOfPasswordPrompts").orElse("3"));
        line("serveralivecountmax", String.valueOf(c.serverAliveCountMax()));
        line("serveraliveinterval", String.valueOf(c.serverAliveIntervalSeconds()));
        line("requiredrsasize", c.string("RequiredRSASize").orElse("1024"));

        // strings
        optional("BindAddress");
        optional("BindInterface");
        line("ciphers", String.join(",", Algorithms.ciphers(c)));
        Optional<String> controlPath = c.string("ControlPath").filter(v -> !v.equalsIgnoreCase("none"));
        if (controlPath.isPresent()) {
            String shown;
            try {
                shown = c.controlPath(null).map(Path::toString).orElse(controlPath.get()); // %C too, as ssh
            } catch (ConfigException e) {
                shown = controlPath.get();
            }
            line("controlpath", shown);
        }
        line("hostkeyalgorithms", String.join(",", Algorithms.hostKey(c)));
        optional("HostKeyAlias");
        line("hostbasedacceptedalgorithms", c.string("HostbasedAcceptedAlgorithms")
                .orElse(String.join(",", Algorithms.hostKey(c))));
        Optional<String> agent = c.string("IdentityAgent");
        if (agent.isPresent()) {
            line("identityagent", agent.get().equalsIgnoreCase("none") || agent.get().equals("SSH_AUTH_SOCK")
                    ? agent.get() : expandedOrAsWritten(agent.get()));
        }
        optional("KbdInteractiveDevices");
        line("kexalgorithms", String.join(",", Algorithms.kex(c)));
        line("casignaturealgorithms", c.string("CASignatureAlgorithms")
                .orElse(String.join(",", Algorithms.signatures().stream().filter(n -> !n.contains("-cert-v01@"))
                        .toList())));
        optional("LocalCommand");
        optional("RemoteCommand");
        line("loglevel", logLevel());
        line("macs", String.join(",", Algorithms.macs(c)));
        c.string("PKCS11Provider").filter(v -> !v.equalsIgnoreCase("none")).ifPresent(v -> line("pkcs11provider", v));
        line("securitykeyprovider", c.string("SecurityKeyProvider").orElse("internal"));
        optional("PreferredAuthentications");
        line("pubkeyacceptedalgorithms", String.join(",", Algorithms.pubkey(c)));
        optional("RevokedHostKeys");
        line("xauthlocation", c.string("XAuthLocation").orElse("/usr/bin/xauth"));
        c.string("KnownHostsCommand").filter(v -> !v.equalsIgnoreCase("none"))
                .ifPresent(v -> line("knownhostscommand", v));

        forwards();

        // lists
        identityFiles();
        line("canonicaldomains", joined("CanonicalDomains", "none"));
        for (OptionValue v : c.values("CertificateFile")) {
            line("certificatefile", v.first());
        }
        line("globalknownhostsfile", files(c.globalKnownHostsFiles().stream().map(Object::toString).toList()));
        line("userknownhostsfile", files(c.userKnownHostsFiles().stream().map(Object::toString).toList()));
        for (String e : sendEnv()) {
            line("sendenv", e);
        }
        for (OptionValue v : c.values("SetEnv")) {
            for (String a : v.args()) {
                line("setenv", a);
            }
        }
        line("logverbose", joined("LogVerbose", "none"));
        line("permitremoteopen", joined("PermitRemoteOpen", "any"));

        // special cases
        line("addkeystoagent", addKeysToAgent());
        line("forwardagent", forwardAgent());
        long timeout = c.connectTimeoutSeconds();
        line("connecttimeout", c.string("ConnectTimeout").isEmpty() ? "none" : String.valueOf(timeout));
        line("tunneldevice", c.string("TunnelDevice").orElse("any:any"));
        // sic: ssh 9.2 spells this key with a capital P
        line("canonicalizePermittedcnames", joined("CanonicalizePermittedCNAMEs", "none"));
        line("controlpersist", controlPersist());
        line("escapechar", escapeChar());
        line("ipqos", ipqos());
        line("rekeylimit", c.rekeyBytes().orElse(0L) + " " + c.rekeySeconds().orElse(0L));
        line("streamlocalbindmask", "0" + Integer.toOctalString(c.streamLocalBindMask()));
        line("syslogfacility", c.string("SyslogFacility").orElse("USER").toUpperCase(Locale.ROOT));
        c.string("ProxyCommand").filter(v -> !v.equalsIgnoreCase("none")).ifPresent(v -> line("proxycommand", v));
        c.string("ProxyJump").filter(v -> !v.equalsIgnoreCase("none")).ifPresent(v -> line("proxyjump", v));

        // OpenSSH 10's and pqssh's own keywords, after ssh 9.2's lines
        c.string("Tag").ifPresent(v -> line("tag", v));
        c.string("ChannelTimeout").ifPresent(v -> line("channeltimeout", joined("ChannelTimeout", "none")));
        c.string("ObscureKeystrokeTiming").ifPresent(v -> line("obscurekeystroketiming", v));
        yn("RefuseConnection", false);
        yn("WarnWeakCrypto", true);
        yn("RequirePostQuantumKex", false);
        yn("KEMAuthentication", true);
        for (OptionValue v : c.values("IdentityKEMFile")) {
            line("identitykemfile", v.first());
        }
        optional("KEMAuthAlgorithms");
        optional("NoneProbe");
        optional("PubkeySignDirectly");
        optional("GuessKex");
        optional("KexGuessCache");
        optional("EarlyChannelOpen");
    }

    private void line(String key, String value) {
        out.add(key + " " + value);
    }

    private void optional(String keyword) {
        c.value(keyword).ifPresent(v -> line(keyword.toLowerCase(Locale.ROOT), v.joined()));
    }

    private String lower(String keyword, String dflt) {
        return c.string(keyword).orElse(dflt).toLowerCase(Locale.ROOT);
    }

    /** A yes/no keyword as ssh prints it ({@code true} is {@code yes}). */
    private void yn(String keyword, boolean dflt) {
        line(keyword.toLowerCase(Locale.ROOT), c.flag(keyword, dflt) ? "yes" : "no");
    }

    /**
     * A keyword of several states, printed as ssh's multistate tables spell them: yes/true as {@code true}, no/false
     * as {@code false}, any other value as written (lower case).
     */
    private void state(String keyword, String dflt) {
        line(keyword.toLowerCase(Locale.ROOT), truth(lower(keyword, dflt)));
    }

    private static String truth(String v) {
        return switch (v) {
            case "yes", "true" -> "true";
            case "no", "false" -> "false";
            default -> v;
        };
    }

    /** Seconds of a time value, or {@code dflt} when unset. */
    private String seconds(String keyword, String dflt) {
        return c.string(keyword).map(v -> String.valueOf(io.pqssh.client.config.Validators.parseSeconds(v)))
                .orElse(dflt);
    }

    private String joined(String keyword, String dflt) {
        return c.value(keyword).map(OptionValue::joined).orElse(dflt);
    }

    private static String files(List<String> files) {
        return files.isEmpty() ? "none" : String.join(" ", files);
    }

    private String expandedOrAsWritten(String value) {
        try {
            return Tokens.path(value, c.tokens());
        } catch (ConfigException e) {
            return value; // a token this version does not expand: shown as written rather than failing -G
        }
    }

    /**
     * ssh: yes when no UserKnownHostsFile was set (or only {@code ~/.ssh/known_hosts}, as written) and VerifyHostKeyDNS
     * is off; no otherwise.
     */
    private String updateHostKeysDefault() {
        boolean dns = c.string("VerifyHostKeyDNS").map(v -> !v.equalsIgnoreCase("no") && !v.equalsIgnoreCase("false"))
                .orElse(false);
        Optional<OptionValue> files = c.value("UserKnownHostsFile");
        boolean defaultFiles = files.isEmpty() || (files.get().args().size() == 1
                && files.get().first().equals("~/.ssh/known_hosts"));
        return !dns && defaultFiles ? "true" : "false";
    }

    private String logLevel() {
        String v = c.string("LogLevel").orElse("INFO").toUpperCase(Locale.ROOT);
        return v.equals("DEBUG1") ? "DEBUG" : v;
    }

    /** ssh's order: DynamicForward, LocalForward, RemoteForward; none when ClearAllForwardings. */
    private void forwards() throws ConfigException {
        List<ForwardSpec> all = c.forwards();
        for (ForwardSpec.Kind kind : List.of(ForwardSpec.Kind.DYNAMIC, ForwardSpec.Kind.LOCAL,
                ForwardSpec.Kind.REMOTE)) {
            for (ForwardSpec f : all) {
                if (f.kind() != kind) {
                    continue;
                }
                StringBuilder b = new StringBuilder(kind.name().toLowerCase(Locale.ROOT)).append("forward ");
                if (f.bindPath() != null) {
                    b.append(f.bindPath());
                } else if (f.bindAddress() == null) {
                    b.append(f.bindPort());
                } else {
                    b.append('[').append(f.bindAddress()).append("]:").append(f.bindPort());
                }
                if (kind != ForwardSpec.Kind.DYNAMIC) {
                    if (f.targetPath() != null) {
                        b.append(' ').append(f.targetPath());
                    } else if (f.targetHost() == null) {
                        b.append(" [socks]:0"); // a remote dynamic forward, as ssh stores it
                    } else {
                        b.append(" [").append(f.targetHost()).append("]:").append(f.targetPort());
                    }
                }
                out.add(b.toString());
            }
        }
    }

    /** As written in files; ssh expands {@code ~} in {@code -i} and {@code -o} identities. pqssh's defaults if none. */
    private void identityFiles() {
        List<OptionValue> files = c.values("IdentityFile");
        if (files.isEmpty()) {
            for (String n : DEFAULT_IDENTITIES) {
                line("identityfile", "~/.ssh/" + n);
            }
            return;
        }
        for (OptionValue v : files) {
            String f = v.first();
            if (v.source().startsWith("command-line") && (f.equals("~") || f.startsWith("~/"))) {
                f = c.home() + f.substring(1);
            }
            line("identityfile", f);
        }
    }

    /** SendEnv patterns in order; {@code -pattern} removes those given before it, as ssh. */
    private List<String> sendEnv() {
        Set<String> out = new LinkedHashSet<>();
        for (OptionValue v : c.values("SendEnv")) {
            for (String p : v.args()) {
                if (p.startsWith("-")) {
                    out.removeIf(e -> Patterns.glob(e, p.substring(1)));
                } else {
                    out.add(p);
                }
            }
        }
        return List.copyOf(out);
    }

    private String addKeysToAgent() {
        Optional<OptionValue> v = c.value("AddKeysToAgent");
        if (v.isEmpty()) {
            return "false";
        }
        List<String> words = new ArrayList<>();
        for (String a : v.get().args()) {
            String l = a.toLowerCase(Locale.ROOT);
            words.add(switch (l) {
                case "yes", "true", "no", "false", "ask", "confirm" -> truth(l);
                default -> String.valueOf(io.pqssh.client.config.Validators.parseSeconds(a));
            });
        }
        return String.join(" ", words);
    }

    private String forwardAgent() {
        String v = c.string("ForwardAgent").orElse("no");
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "yes", "true" -> "yes";
            case "no", "false" -> "no";
            default -> expandedOrAsWritten(v);
        };
    }

    private String controlPersist() {
        String v = c.string("ControlPersist").orElse("no").toLowerCase(Locale.ROOT);
        return switch (v) {
            case "no", "false" -> "no";
            case "yes", "true" -> "yes";
            default -> {
                long s = io.pqssh.client.config.Validators.parseSeconds(v);
                yield s == 0 ? "yes" : String.valueOf(s);
            }
        };
    }

    /** ssh's vis(3) of the escape character: {@code ~}, {@code none}, control characters as {@code \^X}. */
    private String escapeChar() {
        int e = c.escapeChar();
        if (e < 0) {
            return "none";
        }
        if (e < 32) {
            return "\\^" + (char) (e + 64);
        }
        return String.valueOf((char) e);
    }

    private String ipqos() {
        Optional<OptionValue> v = c.value("IPQoS");
        if (v.isEmpty()) {
            return "lowdelay throughput";
        }
        String first = v.get().first().toLowerCase(Locale.ROOT);
        String second = v.get().args().size() > 1 ? v.get().args().get(1).toLowerCase(Locale.ROOT) : first;
        return first + " " + second;
    }

    /** The algorithm lists as this configuration resolves them (pqssh's defaults when unset). */
    static final class Algorithms {
        private Algorithms() {
        }

        static List<String> kex(ClientConfig c) throws ConfigException {
            List<String> l = ClientSetup.kex(c);
            return l != null ? l : io.pqssh.mina.internal.kex.KexInitDefaults.CLIENT_KEX;
        }

        static List<String> signatures() {
            return NamedResource.getNameList(io.pqssh.mina.internal.kex.KexInitDefaults.hostKeyAlgorithms());
        }

        static List<String> hostKey(ClientConfig c) throws ConfigException {
            return list(c, "HostKeyAlgorithms", signatures(), signatures());
        }

        static List<String> pubkey(ClientConfig c) throws ConfigException {
            return list(c, "PubkeyAcceptedAlgorithms", signatures(), signatures());
        }

        static List<String> ciphers(ClientConfig c) throws ConfigException {
            List<String> defaults = NamedResource.getNameList(io.pqssh.common.cipher.TransportCiphers.defaults());
            List<String> supported = new ArrayList<>();
            for (org.apache.sshd.common.cipher.BuiltinCiphers b : org.apache.sshd.common.cipher.BuiltinCiphers.VALUES) {
                if (b.isSupported() && b != org.apache.sshd.common.cipher.BuiltinCiphers.none) {
                    supported.add(b.getName());
                }
            }
            supported.addAll(defaults);
            return list(c, "Ciphers", defaults, supported);
        }

        static List<String> macs(ClientConfig c) throws ConfigException {
            List<String> defaults = NamedResource.getNameList(io.pqssh.mina.internal.kex.KexInitDefaults.macs());
            List<String> supported = new ArrayList<>();
            for (org.apache.sshd.common.mac.BuiltinMacs b : org.apache.sshd.common.mac.BuiltinMacs.VALUES) {
                if (b.isSupported()) {
                    supported.add(b.getName());
                }
            }
            return list(c, "MACs", defaults, supported);
        }

        private static List<String> list(ClientConfig c, String keyword, List<String> defaults,
                List<String> supported) throws ConfigException {
            Optional<String> spec = c.string(keyword);
            return spec.isEmpty() ? defaults
                    : io.pqssh.client.config.AlgorithmList.apply(keyword, spec.get(), defaults, supported);
        }
    }
}
