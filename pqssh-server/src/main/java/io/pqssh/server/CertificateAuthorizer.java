package io.pqssh.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.cert.CertificateException;
import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.CertificateVerifier;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.authorized.AuthorizedKeyEntry;
import io.pqssh.core.keys.authorized.AuthorizedKeyOptions;
import io.pqssh.core.keys.authorized.OpenSshPatterns;

/**
 * sshd's user certificate checks ({@code auth2-pubkey.c}): a certificate is accepted when its CA is in
 * {@code TrustedUserCAKeys} (principals: {@code AuthorizedPrincipalsFile}, then {@code AuthorizedPrincipalsCommand}
 * when the file lists none of the certificate's; the user name when neither is set) or is a
 * {@code cert-authority} line of the user's authorized_keys (principals: its {@code principals=}, else the user
 * name); the CA's signature, the validity window, {@code CASignatureAlgorithms}, {@code source-address} and unknown
 * critical options are checked here with pqssh's own codec, whatever MINA checked before. The accepted certificate's
 * {@code force-command} and extensions become the connection's session restrictions, as authorized_keys options do,
 * together with the options of the principals line or {@code cert-authority} line that vouched for it.
 */
public final class CertificateAuthorizer {
    private static final Logger LOG = LoggerFactory.getLogger(CertificateAuthorizer.class);

    /** sshd's default CASignatureAlgorithms (OpenSSH 9.x) plus pqssh's post-quantum signature types. */
    public static final List<String> DEFAULT_CA_SIGNATURE_ALGORITHMS;

    static {
        List<String> d = new ArrayList<>(List.of("ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
                "ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
                "rsa-sha2-512", "rsa-sha2-256"));
        for (io.pqssh.core.sig.SignatureKeyType t : io.pqssh.core.sig.SignatureKeyType.values()) {
            if (!d.contains(t.sshName())) {
                d.add(t.sshName());
            }
        }
        DEFAULT_CA_SIGNATURE_ALGORITHMS = List.copyOf(d);
    }

    /**
     * What an accepted certificate grants: the options to enforce (the certificate's, and those of the
     * AuthorizedPrincipalsFile/Command line that named its principal or of the authorized_keys {@code cert-authority}
     * line that vouched for its CA: both apply, as sshd's {@code sshauthopt_merge})
     * and sshd's log text.
     */
    public record Grant(AuthorizedKeyOptions options, AuthorizedKeyOptions principalOptions, String logText) {
        public Grant(AuthorizedKeyOptions options, String logText) {
            this(options, AuthorizedKeyOptions.NONE, logText);
        }
    }

    private final Path trustedUserCaKeys;
    private final String principalsFilePattern;
    private final List<String> caSignatureAlgorithms;
    private final Function<String, Optional<Path>> homes;
    private PrincipalsCommand principalsCommand;
    private io.pqssh.server.login.AccountSource accounts = io.pqssh.server.login.SystemAccounts.INSTANCE;

    public CertificateAuthorizer(Path trustedUserCaKeys, String principalsFilePattern,
            List<String> caSignatureAlgorithms, Function<String, Optional<Path>> homes) {
        this.trustedUserCaKeys = trustedUserCaKeys;
        this.principalsFilePattern = principalsFilePattern == null || principalsFilePattern.equalsIgnoreCase("none")
                ? null : principalsFilePattern;
        this.caSignatureAlgorithms = caSignatureAlgorithms == null ? DEFAULT_CA_SIGNATURE_ALGORITHMS
                : List.copyOf(caSignatureAlgorithms);
        this.homes = homes;
    }

    private boolean strictModes;

    /**
     * sshd's StrictModes for AuthorizedPrincipalsFile ({@code auth_openprincipals} opens it with the same checks as
     * authorized_keys): a file that fails {@link UserPaths#strictModesRefusal} grants no principal.
     */
    public CertificateAuthorizer strictModes(boolean on) {
        this.strictModes = on;
        return this;
    }

    /** AuthorizedPrincipalsCommand (null: none), with the accounts its user and the logging-in user come from. */
    public CertificateAuthorizer principalsCommand(PrincipalsCommand command,
            io.pqssh.server.login.AccountSource accountSource) {
        this.principalsCommand = command;
        this.accounts = accountSource;
        return this;
    }

    /** As {@link #authorize(byte[], String, String, PrincipalsCommand.Endpoints, Function)} without %C's endpoints. */
    public Optional<Grant> authorize(byte[] certBlob, String user, String address,
            Function<byte[], Optional<AuthorizedKeyEntry>> certAuthorities) {
        return authorize(certBlob, user, address, null, certAuthorities);
    }

    /**
     * Checks a user certificate for {@code user} logging in from {@code address} ({@code endpoints}: the
     * connection, for AuthorizedPrincipalsCommand's %C); {@code certAuthorities} finds the user's authorized_keys
     * {@code cert-authority} line for a CA key blob. Empty when refused (the reason is logged).
     */
    public Optional<Grant> authorize(byte[] certBlob, String user, String address,
            PrincipalsCommand.Endpoints endpoints, Function<byte[], Optional<AuthorizedKeyEntry>> certAuthorities) {
        SshCertificate cert;
        try {
            cert = SshCertificate.parse(certBlob);
        } catch (io.pqssh.core.wire.MalformedMessageException e) {
            LOG.info("refusing certificate for {}: {}", user, e.getMessage());
            return Optional.empty();
        }
        long now = Instant.now().getEpochSecond();
        try {
            // the CA's signature, type and validity first: nothing about an unverified certificate is trusted
            CertificateVerifier.check(cert, CertificateType.USER, null, now, caSignatureAlgorithms);
            List<String> accepted = null;
            PrincipalsCommand.PrincipalLine line = null;
            // the options of the line that vouched (principals line or cert-authority line), merged below
            AuthorizedKeyOptions lineOptions = AuthorizedKeyOptions.NONE;
            if (trustedCa(cert.signatureKey())) {
                if (principalsFilePattern == null && principalsCommand == null) {
                    accepted = List.of(user);
                } else {
                    line = authorizedPrincipals(cert, certBlob, user, endpoints).orElse(null);
                    accepted = line == null ? List.of() : List.of(line.principal());
                    lineOptions = line == null ? lineOptions : line.options();
                }
            } else {
                Optional<AuthorizedKeyEntry> e = certAuthorities.apply(cert.signatureKey());
                if (e.isPresent()) {
                    accepted = e.get().options().principals().isPresent() ? e.get().options().principalList()
                            : List.of(user);
                    // sshd's check_authkey_line merges the cert-authority line's options with the certificate's
                    lineOptions = e.get().options();
                }
            }
            if (accepted == null) {
                throw new CertificateException("certificate signed by unrecognized authority "
                        + KeyFingerprints.sha256(cert.signatureKey()));
            }
            if (cert.principals().isEmpty()) {
                throw new CertificateException("Certificate lacks principal list");
            }
            if (cert.principals().stream().noneMatch(accepted::contains)) {
                throw new CertificateException("Certificate invalid: name is not a listed principal");
            }
            String source = cert.criticalOption("source-address");
            // sshd's addr_match_cidr_list: addresses and CIDR blocks only; an invalid list refuses the certificate
            if (source != null && OpenSshPatterns.addrMatchCidrList(null, source) == OpenSshPatterns.ERROR) {
                throw new CertificateException("Certificate source-address contents invalid");
            }
            if (source != null && OpenSshPatterns.addrMatchCidrList(address, source) != OpenSshPatterns.MATCH) {
                throw new CertificateException("Authentication tried for " + user + " with valid certificate but"
                        + " not from a permitted source address (" + address + ").");
            }
            AuthorizedKeyOptions certOptions = options(cert);
            if (line != null) {
                principalOptionsAllow(line, user, address, now);
            }
            // sshauthopt_merge: a command= of the line and a different force-command of the certificate refuse
            String lineCommand = lineOptions.command().orElse(null);
            String certCommand = cert.criticalOption("force-command");
            if (lineCommand != null && certCommand != null && !lineCommand.equals(certCommand)) {
                LOG.error("forced command options do not match");
                throw new CertificateException("forced command options do not match");
            }
            return Optional.of(new Grant(certOptions, lineOptions, logText(cert)));
        } catch (CertificateException | io.pqssh.core.wire.MalformedMessageException e) {
            LOG.info("refusing certificate ID {} serial {} for {}: {}", io.pqssh.mina.internal.log.LogText.escape(
                    cert.keyId()), Long.toUnsignedString(cert.serial()), user, e.getMessage());
            return Optional.empty();
        }
    }

    private boolean trustedCa(byte[] caBlob) {
        if (trustedUserCaKeys == null || !Files.isRegularFile(trustedUserCaKeys)) {
            return false;
        }
        try {
            for (String line : Files.readAllLines(trustedUserCaKeys)) {
                String[] f = line.strip().split("\\s+");
                if (f.length >= 2 && !f[0].startsWith("#")
                        && java.security.MessageDigest.isEqual(decode(f[1]), caBlob)) {
                    return true;
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot read TrustedUserCAKeys {}: {}", trustedUserCaKeys, e.getMessage());
        }
        return false;
    }

    private static byte[] decode(String b64) {
        try {
            return Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            return new byte[0];
        }
    }

    /**
     * sshd's order: the file's first line naming one of the certificate's principals; the command's only when the
     * file has none.
     */
    private Optional<PrincipalsCommand.PrincipalLine> authorizedPrincipals(SshCertificate cert, byte[] certBlob,
            String user, PrincipalsCommand.Endpoints endpoints) {
        Optional<PrincipalsCommand.PrincipalLine> line = principalsFilePattern == null ? Optional.empty()
                : principalsFromFile(cert, user);
        if (line.isEmpty() && principalsCommand != null) {
            line = accounts.byName(user).flatMap(a -> principalsCommand.match(cert, certBlob, a, endpoints));
        }
        return line;
    }

    /**
     * sshd's {@code auth_authorise_keyopts(..., "principals")} on the matched line's options: {@code expiry-time},
     * {@code from=} (the client's address), and no {@code cert-authority} or {@code principals=} on such a line.
     */
    private static void principalOptionsAllow(PrincipalsCommand.PrincipalLine line, String user, String address,
            long now) throws CertificateException {
        AuthorizedKeyOptions o = line.options();
        String refused = "Refused by certificate principals options";
        if (o.principals().isPresent() && !o.certAuthority()) {
            LOG.info("principals: principals on non-CA key ({})", line.location());
            throw new CertificateException(refused);
        }
        if (o.certAuthority()) {
            LOG.info("principals: cert-authority flag invalid here ({})", line.location());
            throw new CertificateException(refused);
        }
        if (o.expiryTime().isPresent() && o.expiryTime().get().getEpochSecond() < now) {
            LOG.info("principals: entry expired at {} ({})", o.expiryTime().get(), line.location());
            throw new CertificateException(refused);
        }
        // from=: sshd's match_host_and_ip, the address standing for the host name (UseDNS no)
        if (o.denialReason(address, null, Instant.ofEpochSecond(now)).isPresent()) {
            LOG.info("principals: Authentication tried for {} with correct key but not from a permitted host"
                    + " (host={}, ip={}, required={}).", user, address, address,
                    io.pqssh.mina.internal.log.LogText.escape(o.from().orElse("")));
            throw new CertificateException(refused);
        }
    }

    /** AuthorizedPrincipalsFile: read as the command's output (a missing file grants nothing). */
    private Optional<PrincipalsCommand.PrincipalLine> principalsFromFile(SshCertificate cert, String user) {
        Optional<Path> home = homes.apply(user);
        Optional<Path> p = UserPaths.resolve(principalsFilePattern, user, home);
        if (p.isEmpty() || !Files.isRegularFile(p.get())) {
            return Optional.empty();
        }
        try {
            if (strictModes) {
                Optional<String> why = UserPaths.strictModesRefusal(p.get(), user, home);
                if (why.isPresent()) {
                    LOG.warn("Authentication refused: StrictModes: ignoring AuthorizedPrincipalsFile {} for {}: {}",
                            p.get(), user, why.get());
                    return Optional.empty();
                }
            }
            return PrincipalsCommand.match(Files.readString(p.get()), p.get().toString(), cert.principals());
        } catch (IOException e) {
            LOG.warn("cannot read AuthorizedPrincipalsFile {}: {}", p.get(), e.getMessage());
            return Optional.empty();
        }
    }

    /** The certificate's force-command and (missing) extensions as authorized_keys options. */
    static AuthorizedKeyOptions options(SshCertificate cert) throws CertificateException {
        StringBuilder o = new StringBuilder("restrict");
        String[][] map = {{"permit-pty", "pty"}, {"permit-port-forwarding", "port-forwarding"},
            {"permit-agent-forwarding", "agent-forwarding"}, {"permit-X11-forwarding", "X11-forwarding"},
            {"permit-user-rc", "user-rc"}};
        for (String[] m : map) {
            if (cert.hasExtension(m[0])) {
                o.append(',').append(m[1]);
            }
        }
        try {
            String command = cert.criticalOption("force-command");
            if (command != null) {
                o.append(",command=\"").append(command.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            }
            return AuthorizedKeyOptions.parse(o.toString(), ZoneOffset.UTC);
        } catch (io.pqssh.core.wire.MalformedMessageException | AuthorizedKeyOptions.OptionsException e) {
            throw new CertificateException("Certificate options: " + e.getMessage());
        }
    }

    /** sshd: {@code ED25519-CERT SHA256:... ID key_id (serial N) CA ED25519 SHA256:...}. */
    static String logText(SshCertificate cert) {
        return label(cert.keyType()) + "-CERT " + KeyFingerprints.sha256(cert.certifiedKey()) + " ID "
                + io.pqssh.mina.internal.log.LogText.escape(cert.keyId()) + " (serial "
                + Long.toUnsignedString(cert.serial()) + ") CA " + label(peek(cert.signatureKey())) + " "
                + KeyFingerprints.sha256(cert.signatureKey());
    }

    private static String peek(byte[] blob) {
        try {
            return new io.pqssh.core.wire.SshReader(blob).getUtf8();
        } catch (io.pqssh.core.wire.MalformedMessageException e) {
            return "?";
        }
    }

    private static String label(String type) {
        if (type.equals("ssh-ed25519")) {
            return "ED25519";
        }
        if (type.equals("ssh-rsa")) {
            return "RSA";
        }
        if (type.startsWith("ecdsa-sha2-")) {
            return "ECDSA";
        }
        String t = type.startsWith("ssh-") ? type.substring(4) : type;
        return t.replace("@openssh.com", "").toUpperCase(java.util.Locale.ROOT);
    }
}
