package io.pqssh.server.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one table of sshd_config keywords (OpenSSH 10.5's servconf.c) and what {@code pqssh server} does with each:
 * applies it, accepts it with one warning line because ignoring it cannot weaken security, or refuses to start.
 * UsePAM is ServerConfig's (the PAM code reads it); every verdict lives here, so that a keyword's status is decided
 * in one place.
 */
public final class SshdKeywords {
    /** What pqssh does with one keyword and value. */
    public sealed interface Verdict {
        /** Applied by ServerConfig. */
        record Apply() implements Verdict {
        }

        /** Not applied; ignoring it cannot weaken security. {@code why} is the warning line's reason. */
        record Warn(String why) implements Verdict {
        }

        /** Not applied, and ignoring it could: the server does not start. */
        record Refuse(String why) implements Verdict {
        }
    }

    /** A keyword as sshd spells it, and whether sshd allows it inside a Match block. */
    public record Keyword(String name, boolean inMatch) {
    }

    private static final Map<String, Keyword> TABLE = new LinkedHashMap<>();

    static {
        // name:M = allowed inside Match (SSHCFG_ALL), name:G = global only
        String all = "AcceptEnv:M AddressFamily:G AFSTokenPassing:G AllowAgentForwarding:M AllowGroups:M"
                + " AllowStreamLocalForwarding:M AllowTcpForwarding:M AllowUsers:M AuthenticationMethods:M"
                + " AuthorizedKeysCommand:M AuthorizedKeysCommandUser:M AuthorizedKeysFile:M AuthorizedKeysFile2:M"
                + " AuthorizedPrincipalsCommand:M AuthorizedPrincipalsCommandUser:M AuthorizedPrincipalsFile:M"
                + " Banner:M CASignatureAlgorithms:M ChallengeResponseAuthentication:M ChannelTimeout:M CheckMail:G"
                + " ChrootDirectory:M Ciphers:G ClientAliveCountMax:M ClientAliveInterval:M Compression:G"
                + " DenyGroups:M DenyUsers:M DisableForwarding:M DSAAuthentication:G ExposeAuthInfo:M"
                + " FingerprintHash:G ForceCommand:M GatewayPorts:M GSSAPIAuthentication:M"
                + " GSSAPICleanupCredentials:G GSSAPIDelegateCredentials:G GSSAPIStrictAcceptorCheck:G"
                + " HostbasedAcceptedAlgorithms:M HostBasedAcceptedKeyTypes:M HostbasedAuthentication:M"
                + " HostbasedUsesNameFromPacketOnly:M HostCertificate:G HostDSAKey:G HostKey:G HostKeyAgent:G"
                + " HostKeyAlgorithms:G IgnoreRhosts:M IgnoreUserKnownHosts:G Include:M IPQoS:M"
                + " KbdInteractiveAuthentication:M KeepAlive:G KerberosAuthentication:M KerberosGetAFSToken:G"
                + " KerberosOrLocalPasswd:G KerberosTgtPassing:G KerberosTicketCleanup:G KexAlgorithms:G"
                + " KeyRegenerationInterval:G ListenAddress:G LoginGraceTime:G LogLevel:M LogVerbose:M MACs:G"
                + " Match:M MaxAuthTries:M MaxSessions:M MaxStartups:G ModuliFile:G PAMServiceName:M"
                + " PasswordAuthentication:M PermitEmptyPasswords:M PermitListen:M PermitOpen:M PermitRootLogin:M"
                + " PermitTTY:M PermitTunnel:M PermitUserEnvironment:G PermitUserRC:M PerSourceMaxStartups:G"
                + " PerSourceNetBlockSize:G PerSourcePenalties:G PerSourcePenaltyExemptList:G PidFile:G Port:G"
                + " PrintLastLog:G PrintMotd:G Protocol:G PubkeyAcceptedAlgorithms:M PubkeyAcceptedKeyTypes:M"
                + " PubkeyAuthentication:M PubkeyAuthOptions:M RDomain:M RefuseConnection:M RekeyLimit:M"
                + " RequiredRSASize:M ReverseMappingCheck:G RevokedKeys:M RHostsAuthentication:G"
                + " RhostsRSAAuthentication:M RSAAuthentication:M SecurityKeyProvider:G ServerKeyBits:G SetEnv:M"
                + " SKeyAuthentication:M SshdAuthPath:G SshdSessionPath:G StreamLocalBindMask:M"
                + " StreamLocalBindUnlink:M StrictModes:G Subsystem:M SyslogFacility:G TCPKeepAlive:G"
                + " TrustedUserCAKeys:M UnusedConnectionTimeout:M UseDNS:G UseLogin:G UsePAM:G"
                + " UsePrivilegeSeparation:G VerifyReverseMapping:G VersionAddendum:G X11DisplayOffset:M"
                + " X11Forwarding:M X11UseLocalhost:M XAuthLocation:G"
                // pqssh's own keywords (not sshd's): global only
                + " AuthorizedKEMKeysFile:G KEMAuthentication:G KEMAuthAlgorithms:G PasswordFile:G"
                + " RequirePostQuantumKex:G MaxPendingKEMChallenges:G PerSourceConnectRate:G"
                + " MaxPreauthPacketSize:G MotdFile:G";
        for (String e : all.split(" ")) {
            String[] p = e.split(":");
            TABLE.put(p[0].toLowerCase(Locale.ROOT), new Keyword(p[0], p[1].equals("M")));
        }
    }

    /** Keywords that are pqssh's own, not sshd's. */
    public static final Set<String> PQSSH_ONLY = Set.of("authorizedkemkeysfile", "kemauthentication",
            "kemauthalgorithms", "passwordfile", "requirepostquantumkex", "maxpendingkemchallenges",
            "persourceconnectrate", "maxpreauthpacketsize", "motdfile");

    /** sshd's keywords that are marked deprecated or ignored (sshd logs and goes on). */
    private static final Set<String> DEPRECATED = Set.of("serverkeybits", "keyregenerationinterval",
            "rhostsauthentication", "rhostsrsaauthentication", "rsaauthentication", "checkmail", "uselogin",
            "verifyreversemapping", "reversemappingcheck", "authorizedkeysfile2", "useprivilegeseparation",
            "kerberostgtpassing", "afstokenpassing", "protocol");

    private SshdKeywords() {
    }

    public static Optional<Keyword> find(String keyword) {
        return Optional.ofNullable(TABLE.get(keyword.toLowerCase(Locale.ROOT)));
    }

    /** Every keyword, in the table's order. */
    public static Map<String, Keyword> all() {
        return Collections.unmodifiableMap(TABLE);
    }

    /**
     * The verdict for a keyword (lower case) with its value. Keywords ServerConfig applies give Apply; value-dependent
     * ones are accepted when the value is what pqssh does anyway.
     */
    public static Verdict verdict(String key, String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        if (DEPRECATED.contains(key)) {
            return new Verdict.Warn("deprecated/ignored by sshd as well");
        }
        return switch (key) {
            // Not implemented by pqssh; ignoring them only removes features, methods or log detail.
            case "pamservicename" -> v.equals("sshd") ? apply()
                    : refuse("PAM runs service sshd (/etc/pam.d/sshd) only; another stack would be ignored");
            case "loglevel", "logverbose" -> warn("the log level is set by -d (debug) only");
            case "syslogfacility" -> warn("the daemon logs to facility AUTH");
            case "usedns" -> v.equals("no") ? apply() : warn("client addresses are never resolved (as UseDNS no)");
            case "ipqos" -> warn("IP QoS marks are not set");
            case "fingerprinthash" -> warn("logs show SHA256 fingerprints");
            case "modulifile" -> warn("no Diffie-Hellman group exchange is offered");
            case "gssapiauthentication", "kerberosauthentication", "hostbasedauthentication" ->
                    v.equals("no") ? apply() : warn("this authentication method is not offered");
            case "gssapicleanupcredentials", "gssapidelegatecredentials", "gssapistrictacceptorcheck",
                 "kerberosgetafstoken", "kerberosorlocalpasswd", "kerberosticketcleanup",
                 "hostbasedusesnamefrompacketonly", "hostbasedacceptedalgorithms", "hostbasedacceptedkeytypes",
                 "ignoreuserknownhosts" -> warn("the authentication method it tunes is not offered");
            case "ignorerhosts" -> warn("rhosts files are never read (as IgnoreRhosts yes)");
            case "permitemptypasswords" -> v.equals("no") ? apply() : warn("empty passwords are never accepted");
            case "exposeauthinfo" -> v.equals("no") ? apply() : warn("SSH_USER_AUTH is not set");
            case "securitykeyprovider", "sshdsessionpath", "sshdauthpath" -> warn("not used by pqssh");
            case "persourcepenaltyexemptlist" -> warn("PerSourcePenalties are not implemented");
            case "persourcepenalties" -> v.equals("no") ? apply()
                    : refuse("PerSourcePenalties are not implemented (use PerSourceMaxStartups/PerSourceConnectRate)");
            // Ignoring these could admit what the admin meant to refuse: refused unless the value is pqssh's own.
            case "permittunnel" -> v.equals("no") ? apply() : refuse("tun forwarding is not implemented");
            case "pubkeyauthoptions" -> v.equals("none") ? apply() : refuse("PubkeyAuthOptions is not implemented");
            case "requiredrsasize" -> refuse("RequiredRSASize is not implemented");
            case "refuseconnection" -> v.equals("no") ? apply() : refuse("RefuseConnection is not implemented");
            case "rdomain" -> refuse("routing domains are not implemented");
            case "persourcenetblocksize" -> refuse("PerSourceNetBlockSize is not implemented (per-source limits"
                    + " count single addresses)");
            case "rekeylimit" -> refuse("RekeyLimit is not implemented (MINA's rekey limits apply)");
            default -> apply();
        };
    }

    /**
     * Keywords pqssh applies to one connection when a Match block sets them: the auth service reads them once the
     * user name is known, the forwarding filter, timeouts, session limit and session launch read them per
     * connection ({@code io.pqssh.server.ConnectionConfig}).
     */
    public static final Set<String> PER_CONNECTION = Set.of("permitrootlogin", "passwordauthentication",
            "pubkeyauthentication", "dsaauthentication", "kbdinteractiveauthentication",
            "challengeresponseauthentication", "skeyauthentication", "authenticationmethods", "authorizedkeysfile",
            "authorizedprincipalsfile", "trustedusercakeys", "allowtcpforwarding", "allowstreamlocalforwarding",
            "allowagentforwarding", "gatewayports", "permitopen", "permitlisten", "disableforwarding",
            "streamlocalbindmask", "streamlocalbindunlink", "clientaliveinterval", "clientalivecountmax",
            "channeltimeout", "unusedconnectiontimeout", "maxsessions", "banner", "forcecommand", "chrootdirectory",
            "maxauthtries", "permittty", "authorizedprincipalscommand", "authorizedprincipalscommanduser",
            "authorizedkeyscommand", "authorizedkeyscommanduser",
            "x11forwarding", "x11displayoffset", "x11uselocalhost", "setenv");

    /**
     * Keywords whose accepted values change nothing pqssh does (its behaviour is that value anyway): harmless in a
     * Match block.
     */
    private static final Set<String> CONSTANT_WHEN_APPLIED = Set.of("permittunnel",
            "pamservicename", "gssapiauthentication",
            "kerberosauthentication",
            "hostbasedauthentication", "permitemptypasswords", "exposeauthinfo", "pubkeyauthoptions",
            "refuseconnection");

    /**
     * Why {@code key value} cannot stand inside a Match block, if it cannot: a keyword pqssh applies only
     * server-wide. Refused verdicts are refused by ServerConfig anyway; warned ones change nothing.
     */
    public static Optional<String> refuseInMatch(String key, String value) {
        if (!(verdict(key, value) instanceof Verdict.Apply) || PER_CONNECTION.contains(key)
                || CONSTANT_WHEN_APPLIED.contains(key)) {
            return Optional.empty();
        }
        return Optional.of("pqssh applies it to the whole server only, not per connection (move it out of the"
                + " Match block)");
    }

    private static Verdict apply() {
        return new Verdict.Apply();
    }

    private static Verdict warn(String why) {
        return new Verdict.Warn(why);
    }

    private static Verdict refuse(String why) {
        return new Verdict.Refuse(why);
    }
}
