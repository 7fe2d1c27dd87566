package io.pqssh.client.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.pqssh.client.config.Keyword.Status;
import io.pqssh.client.config.Keyword.Validator;

/**
 * Every ssh_config keyword OpenSSH 10 knows, plus pqssh's own, with what pqssh does with each. An unknown keyword is
 * an error ("Bad configuration option", as ssh); docs/client.md lists the same table.
 */
public final class Keywords {
    private static final Map<String, Keyword> BY_NAME = new LinkedHashMap<>();
    private static final Map<String, String> ALIASES = new LinkedHashMap<>();

    static {
        // connection and host
        supported("Host", false, Validators.atLeast(1));
        supported("Match", false, Validators.atLeast(1));
        supported("Include", false, Validators.atLeast(1));
        supported("IgnoreUnknown", false, Validators.exactly(1));
        supported("Tag", false, Validators.exactly(1));
        supported("HostName", false, Validators.exactly(1));
        supported("Port", false, Validators.integer(1, 65535));
        supported("User", false, Validators.exactly(1));
        supported("ConnectTimeout", false, Validators.time());
        supported("ConnectionAttempts", false, Validators.integer(1, 1000));
        supported("ServerAliveInterval", false, Validators.time());
        supported("ServerAliveCountMax", false, Validators.integer(0, Integer.MAX_VALUE));
        supported("TCPKeepAlive", false, Validators.flag());
        supported("BatchMode", false, Validators.flag());
        supported("LogLevel", false, Validators.choice("QUIET", "FATAL", "ERROR", "INFO", "VERBOSE", "DEBUG",
                "DEBUG1", "DEBUG2", "DEBUG3"));
        supported("EscapeChar", false, Validators.escapeChar());
        supported("RequestTTY", false, Validators.choice("yes", "no", "force", "auto", "true", "false"));
        supported("RemoteCommand", false, Validators.atLeast(1));
        supported("SessionType", false, Validators.choice("none", "subsystem", "default"));
        supported("StdinNull", false, Validators.flag());
        supported("ForkAfterAuthentication", false, Validators.flag());
        supported("SetEnv", false, Validators.atLeast(1)); // the first SetEnv line wins whole, as ssh (not SendEnv)
        supported("SendEnv", true, Validators.atLeast(1));
        supported("Compression", false, Validators.flag());
        supported("RefuseConnection", false, Validators.flag());
        supported("RekeyLimit", false, Validators.rekeyLimit());
        // connection sharing (docs/client.md): ask/autoask are refused when the connection is made, not here
        supported("ControlMaster", false, Validators.choice("yes", "no", "ask", "auto", "autoask", "true", "false"));
        supported("ControlPath", false, Validators.exactly(1));
        supported("ControlPersist", false, Validators.persist());
        // host keys
        supported("StrictHostKeyChecking", false, Validators.choice("yes", "no", "ask", "accept-new", "off", "true",
                "false"));
        supported("UserKnownHostsFile", false, Validators.atLeast(1));
        supported("GlobalKnownHostsFile", false, Validators.atLeast(1));
        supported("HostKeyAlgorithms", false, Validators.exactly(1));
        supported("HashKnownHosts", false, Validators.flag());
        supported("FingerprintHash", false, Validators.choice("sha256", "md5"));
        // algorithms
        supported("KexAlgorithms", false, Validators.exactly(1));
        supported("Ciphers", false, Validators.exactly(1));
        supported("MACs", false, Validators.exactly(1));
        supported("PubkeyAcceptedAlgorithms", false, Validators.exactly(1));
        alias("PubkeyAcceptedKeyTypes", "PubkeyAcceptedAlgorithms");
        supported("WarnWeakCrypto", false, Validators.flag());
        // authentication
        supported("IdentityFile", true, Validators.exactly(1));
        supported("IdentitiesOnly", false, Validators.flag());
        supported("CertificateFile", true, Validators.exactly(1));
        supported("CASignatureAlgorithms", false, Validators.exactly(1));
        supported("PreferredAuthentications", false, Validators.exactly(1));
        supported("PasswordAuthentication", false, Validators.flag());
        supported("PubkeyAuthentication", false, Validators.choice("yes", "no", "unbound", "host-bound", "true",
                "false"));
        supported("KbdInteractiveAuthentication", false, Validators.flag());
        alias("ChallengeResponseAuthentication", "KbdInteractiveAuthentication");
        supported("NumberOfPasswordPrompts", false, Validators.integer(0, 1000));
        // forwarding: parsed here, carried out by the forwarding code
        supported("LocalForward", true, Validators.forward(ForwardSpec.Kind.LOCAL));
        supported("RemoteForward", true, Validators.forward(ForwardSpec.Kind.REMOTE));
        supported("DynamicForward", true, Validators.forward(ForwardSpec.Kind.DYNAMIC));
        supported("ProxyJump", false, Validators.exactly(1));
        supported("ProxyCommand", false, Validators.atLeast(1));
        supported("ForwardAgent", false, Validators.exactly(1));
        supported("IdentityAgent", false, Validators.exactly(1));
        supported("ExitOnForwardFailure", false, Validators.flag());
        supported("ClearAllForwardings", false, Validators.flag());
        supported("GatewayPorts", false, Validators.flag());
        supported("PermitRemoteOpen", false, Validators.atLeast(1));
        supported("StreamLocalBindMask", false, Validators.octalMask());
        supported("StreamLocalBindUnlink", false, Validators.flag());
        supported("ForwardX11", false, Validators.flag());
        supported("ForwardX11Trusted", false, Validators.flag());
        supported("ForwardX11Timeout", false, Validators.time());
        supported("XAuthLocation", false, Validators.exactly(1));
        // pqssh's own
        supported("RequirePostQuantumKex", false, Validators.flag());
        supported("KEMAuthentication", false, Validators.flag());
        supported("IdentityKEMFile", true, Validators.exactly(1));
        supported("KEMAuthAlgorithms", false, Validators.kemAlgorithms());
        supported("NoneProbe", false, Validators.flag());
        supported("PubkeySignDirectly", false, Validators.flag());
        supported("GuessKex", false, Validators.flag());
        supported("KexGuessCache", false, Validators.exactly(1));
        supported("EarlyChannelOpen", false, Validators.flag());
        supported("EnableEscapeCommandline", false, Validators.flag());
        supported("ProxyUseFdpass", false, Validators.flag());

        // OpenSSH ignores these itself: deprecated or removed options, and GSSAPI in builds without it
        for (String k : List.of("Protocol", "Cipher", "UseRoaming", "UseRsh", "FallBackToRsh", "UsePrivilegedPort",
                "RhostsRSAAuthentication", "RSAAuthentication", "CompressionLevel", "GlobalKnownHostsFile2",
                "UserKnownHostsFile2", "RhostsAuthentication", "DSAAuthentication", "AFSTokenPassing",
                "KerberosAuthentication", "KerberosTGTPassing", "GSSAPIAuthentication", "GSSAPIDelegateCredentials",
                "GSSAPIKeyExchange", "GSSAPIClientIdentity", "GSSAPIServerIdentity", "GSSAPIRenewalForcesRekey",
                "GSSAPITrustDns", "GSSAPIKexAlgorithms", "SmartcardDevice")) {
            put(new Keyword(k, Status.IGNORED, false, Validators.any(), null,
                    "as OpenSSH 10 ignores it (deprecated, or not compiled in)"));
        }

        // macOS's ssh only (its keychain); OpenSSH elsewhere rejects it, but a shared ~/.ssh/config often has it
        ignored("UseKeychain", "macOS keychain: pqssh asks for passphrases itself");

        // not implemented; they only tune something pqssh does not do, so ignoring them cannot weaken security
        ignored("CanonicalDomains", "used only with CanonicalizeHostname");
        ignored("CanonicalizeFallbackLocal", "used only with CanonicalizeHostname");
        ignored("CanonicalizeMaxDots", "used only with CanonicalizeHostname");
        ignored("CanonicalizePermittedCNAMEs", "used only with CanonicalizeHostname");
        ignored("EnableSSHKeysign", "hostbased authentication is not implemented");
        ignored("HostbasedAcceptedAlgorithms", "hostbased authentication is not implemented");
        alias("HostbasedKeyTypes", "HostbasedAcceptedAlgorithms");
        ignored("IPQoS", "the system's default type of service");
        ignored("KbdInteractiveDevices", "the server's default devices");
        ignored("LocalCommand", "runs only with PermitLocalCommand, which is not implemented");
        ignored("LogFacility", "pqssh logs to stderr only");
        ignored("LogVerbose", "pqssh has no per-function log levels");
        ignored("SecurityKeyProvider", "FIDO keys are not implemented");
        ignored("TunnelDevice", "tunnel devices are not implemented");
        ignored("UpdateHostKeys", "known_hosts is not updated from the server's hostkeys-00@openssh.com");

        // not implemented, ignoring cannot weaken security, but the user asked for something: one warning line
        warned("AddKeysToAgent", "no|false", "keys are not added to the agent");
        warned("AddressFamily", "any", "the addresses the name resolves to are tried in order");
        warned("BindAddress", null, "the system chooses the local address");
        warned("BindInterface", null, "the system chooses the local address");
        warned("CanonicalizeHostname", "no|false", "host names are not canonicalized; Host blocks match the name as given");
        warned("ChannelTimeout", "none", "channels have no inactivity timeout");
        warned("HostbasedAuthentication", "no|false", "hostbased authentication is not implemented");
        warned("KnownHostsCommand", "none", "the command is not run; keys it would print are unknown");
        warned("NoHostAuthenticationForLocalhost", "no|false", "host keys of localhost are checked as any other");
        warned("PermitLocalCommand", "no|false", "LocalCommand is not run (the ~C command line's !command is)");
        warned("PKCS11Provider", "none", "keys of a PKCS#11 token are not offered");
        warned("Tunnel", "no|false", "tunnel device forwarding is not implemented");
        warned("VisualHostKey", "no|false", "no ASCII art is shown");

        // not implemented, and ignoring them would weaken security: an error unless the value is what pqssh does
        unsupported("CheckHostIP", "no|false");
        unsupported("HostKeyAlias", null);
        unsupported("ObscureKeystrokeTiming", "no|false");
        unsupported("RequiredRSASize", null);
        unsupported("RevokedHostKeys", null);
        unsupported("VerifyHostKeyDNS", "no|false");
    }

    private Keywords() {
    }

    private static void supported(String name, boolean accumulates, Validator v) {
        put(new Keyword(name, Status.SUPPORTED, accumulates, v, null, null));
    }

    private static void unsupported(String name, String behavesAs) {
        put(new Keyword(name, Status.UNSUPPORTED, false, Validators.atLeast(1), behavesAs,
                behavesAs == null ? "not implemented" : "not implemented; '" + behavesAs + "' accepted"));
    }

    private static void ignored(String name, String why) {
        put(new Keyword(name, Status.IGNORED, false, Validators.atLeast(1), null, why));
    }

    private static void warned(String name, String behavesAs, String instead) {
        put(new Keyword(name, Status.WARNED, false, Validators.atLeast(1), behavesAs, instead));
    }

    private static void put(Keyword k) {
        BY_NAME.put(k.lowerName(), k);
    }

    private static void alias(String alias, String target) {
        ALIASES.put(alias.toLowerCase(Locale.ROOT), target.toLowerCase(Locale.ROOT));
    }

    /** The keyword for a spelling (case-insensitive; aliases resolve to their keyword). */
    public static Optional<Keyword> lookup(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        n = ALIASES.getOrDefault(n, n);
        return Optional.ofNullable(BY_NAME.get(n));
    }

    public static Collection<Keyword> all() {
        return Collections.unmodifiableCollection(BY_NAME.values());
    }

    /** Alias spelling (lower case) to keyword name (lower case). */
    public static Map<String, String> aliases() {
        return Collections.unmodifiableMap(ALIASES);
    }

    static List<String> names() {
        List<String> out = new ArrayList<>();
        BY_NAME.values().forEach(k -> out.add(k.name()));
        return out;
    }
}
