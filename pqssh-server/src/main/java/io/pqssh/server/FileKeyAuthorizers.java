package io.pqssh.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.server.auth.pubkey.PublickeyAuthenticator;
import org.apache.sshd.server.session.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.auth.KemKeyAuthorizer;
import io.pqssh.core.keys.authorized.AuthorizedKeyEntry;
import io.pqssh.core.keys.authorized.AuthorizedKeys;
import io.pqssh.mina.auth.SessionKemKeyAuthorizer;
import io.pqssh.server.login.AdmittingUserAuthFactory;
import io.pqssh.server.login.KeyRestrictions;

/**
 * Per-user authorization from files, read at each login (so edits apply at once, as in sshd): signature keys from
 * {@code AuthorizedKeysFile}; KEM keys from the same file (type {@code mlkem768} etc.) and from
 * {@code AuthorizedKEMKeysFile} (the research implementation's format). {@code from=} and {@code expiry-time=} are
 * enforced here; the session options ({@code no-pty}, {@code restrict}, {@code command=}, the forwarding flags) go to
 * the connection's {@link KeyRestrictions}, which the session layer enforces. With {@code StrictModes} (on in {@code pqssh server} unless
 * {@code StrictModes no}) a file is ignored when {@link UserPaths#strictModesRefusal} gives a reason; each refusal is
 * logged once (again only after the file passed or the reason changed).
 */
public final class FileKeyAuthorizers {
    private static final Logger LOG = LoggerFactory.getLogger(FileKeyAuthorizers.class);

    /** sshd's {@code fakepw()} home directory. */
    private static final Path FAKE_HOME = Path.of("/nonexist");

    private final String authorizedKeysPattern;
    private final String authorizedKemKeysPattern;
    private final boolean strictModes;
    private final Function<String, Optional<Path>> homes;
    private final Consumer<String> refusalLog;
    private final ConcurrentHashMap<Path, String> refused = new ConcurrentHashMap<>();
    private volatile CertificateAuthorizer certificates;
    private volatile Path revokedKeys;
    private volatile KeysCommand keysCommand;

    /** Without StrictModes (for embedding and tests whose files live in shared temporary directories). */
    public FileKeyAuthorizers(String authorizedKeysPattern, String authorizedKemKeysPattern) {
        this(authorizedKeysPattern, authorizedKemKeysPattern, false);
    }

    public FileKeyAuthorizers(String authorizedKeysPattern, String authorizedKemKeysPattern, boolean strictModes) {
        this(authorizedKeysPattern, authorizedKemKeysPattern, strictModes, UserPaths::home, LOG::warn);
    }

    /** {@code homes} maps a user to a home directory; {@code refusalLog} receives each StrictModes refusal. */
    FileKeyAuthorizers(String authorizedKeysPattern, String authorizedKemKeysPattern, boolean strictModes,
            Function<String, Optional<Path>> homes, Consumer<String> refusalLog) {
        this.authorizedKeysPattern = authorizedKeysPattern;
        this.authorizedKemKeysPattern = authorizedKemKeysPattern;
        this.strictModes = strictModes;
        this.homes = homes;
        this.refusalLog = refusalLog;
    }

    /** RevokedKeys (null: none): a KRL or a public key list, read at each login as sshd does. */
    public FileKeyAuthorizers revokedKeys(Path file) {
        this.revokedKeys = file;
        return this;
    }

    /**
     * sshd's {@code auth_key_is_revoked}: true when RevokedKeys revokes the key (a certificate: its key, its CA or
     * itself), logged as sshd does; an unreadable or malformed file revokes every key (sshd fails closed too).
     */
    private boolean revoked(byte[] blob) {
        Path file = revokedKeys;
        if (file == null) {
            return false;
        }
        String what;
        try {
            what = io.pqssh.mina.internal.auth.AuthAttempt.sshdKeyType(
                    io.pqssh.core.keys.PublicKeyLine.blobKeyType(blob)) + " " + fingerprint(blob);
        } catch (io.pqssh.core.keys.KeyFileException e) {
            what = "?";
        }
        try {
            Optional<String> why = io.pqssh.core.cert.RevokedKeys.check(file, blob);
            if (why.isPresent()) {
                LOG.error("Authentication key {} revoked by file {}", what, file);
                return true;
            }
            return false;
        } catch (IOException | io.pqssh.core.wire.MalformedMessageException e) {
            LOG.error("Error checking authentication key {} in revoked keys file {}: {}", what, file,
                    e.getMessage());
            return true;
        }
    }

    /** A key's SHA256 fingerprint; a certificate's is its certified key's, as sshd prints it. */
    static String fingerprint(byte[] blob) {
        try {
            if (io.pqssh.core.cert.CertificateKeyTypes.isCertificate(io.pqssh.core.keys.PublicKeyLine.blobKeyType(
                    blob))) {
                return io.pqssh.core.keys.KeyFingerprints.sha256(
                        io.pqssh.core.cert.SshCertificate.parse(blob).certifiedKey());
            }
        } catch (io.pqssh.core.keys.KeyFileException | io.pqssh.core.wire.MalformedMessageException e) {
            // the fingerprint of the blob as sent, then
        }
        return io.pqssh.core.keys.KeyFingerprints.sha256(blob);
    }

    /** User certificates: TrustedUserCAKeys, AuthorizedPrincipalsFile, CASignatureAlgorithms (sshd's defaults: none). */
    public FileKeyAuthorizers certificates(Path trustedUserCaKeys, String authorizedPrincipalsFile,
            List<String> caSignatureAlgorithms) {
        this.certificates = new CertificateAuthorizer(trustedUserCaKeys, authorizedPrincipalsFile,
                caSignatureAlgorithms, homes).strictModes(strictModes);
        return this;
    }

    /** AuthorizedPrincipalsCommand and its user (null: none); after {@link #certificates}. */
    public FileKeyAuthorizers principalsCommand(String command, String commandUser) {
        if (command != null && certificates != null) {
            certificates.principalsCommand(new PrincipalsCommand(command, commandUser,
                    io.pqssh.server.login.SystemAccounts.INSTANCE), io.pqssh.server.login.SystemAccounts.INSTANCE);
        }
        return this;
    }

    /**
     * AuthorizedKeysCommand and its user (null: none): asked, as sshd, when the user's files do not authorize a key
     * (and, for a certificate, do not hold its CA); never for a user the login policy refused.
     */
    public FileKeyAuthorizers keysCommand(String command, String commandUser) {
        this.keysCommand = command == null ? null
                : new KeysCommand(command, commandUser, io.pqssh.server.login.SystemAccounts.INSTANCE);
        return this;
    }

    public PublickeyAuthenticator publickey() {
        return (CertificateOptionsEnforcing) (String user, PublicKey key, ServerSession session) -> {
            ByteArrayBuffer b = new ByteArrayBuffer();
            b.putRawPublicKey(key);
            String addr = address(session);
            boolean refused = AdmittingUserAuthFactory.refused(session, user);
            if (revoked(b.getCompactData())) {
                return false;
            }
            if (key instanceof org.apache.sshd.common.config.keys.OpenSshCertificate) {
                return certificateAccepted(session, user, refused, b.getCompactData(), addr);
            }
            Optional<AuthorizedKeyEntry> e = find(user, refused, b.getCompactData(), addr, endpoints(session));
            return !refused && e.isPresent() && accepted(session, e.get());
        };
    }

    public io.pqssh.mina.auth.SessionKemKeyAuthorizer kem() {
        return new SessionKemKeyAuthorizer() {
            @Override
            public boolean isAuthorized(ServerSession session, String user, KemCredential credential, String addr) {
                boolean refused = session != null && AdmittingUserAuthFactory.refused(session, user);
                if (credential.certificate().isPresent()) {
                    // mlkemN-cert-v01@pqssh.io (docs/publickey-kem.md 9.5): the same checks as a signature key's
                    byte[] blob = credential.publicKey();
                    return !revoked(blob) && certificateAccepted(session, user, refused, blob, addr);
                }
                byte[] blob = io.pqssh.core.keys.kem.KemPublicKey.blob(credential.algorithm(),
                        credential.encapsulationKey());
                if (revoked(blob)) {
                    return false;
                }
                Optional<AuthorizedKeyEntry> e = find(user, refused, blob, addr, endpoints(session));
                return !refused && e.isPresent() && accepted(session, e.get());
            }

            @Override
            public boolean isAuthorized(String user, KemCredential credential, String addr) {
                return isAuthorized(null, user, credential, addr);
            }
        };
    }

    /**
     * A user certificate, of a signature key ({@code publickey}) or of an ML-KEM key ({@code publickey-kem}): a
     * certificate never matches a plain authorized_keys line, only its CA (TrustedUserCAKeys or a
     * {@code cert-authority} line) can vouch for it. The accepted certificate's options go to the connection's
     * {@link KeyRestrictions} and sshd's {@code -CERT ... ID ... CA ...} text to its log line; without a session to
     * carry them (an embedding calling the authorizer directly) the certificate is refused.
     */
    private boolean certificateAccepted(ServerSession session, String user, boolean refused, byte[] certBlob,
            String addr) {
        if (session == null) {
            LOG.warn("certificate for {} refused: no session to enforce its options on", user);
            return false;
        }
        CertificateAuthorizer c = certificates != null ? certificates
                : new CertificateAuthorizer(null, null, null, homes);
        Optional<CertificateAuthorizer.Grant> g = c.authorize(certBlob, user, addr, endpoints(session),
                ca -> findCertAuthority(user, refused, ca, addr, certBlob, endpoints(session)));
        if (refused || g.isEmpty()) {
            return false;
        }
        io.pqssh.mina.internal.auth.AuthAttempt.recordCertificate(session, g.get().logText());
        KeyRestrictions.record(session, g.get().options());
        // the principals line's options on top (sshauthopt_merge: flags of both, its permitopen/environment)
        KeyRestrictions.record(session, g.get().principalOptions());
        return true;
    }

    /**
     * A key the file authorizes: its options go to the connection's {@link KeyRestrictions} (no-pty, restrict,
     * command=, the forwarding flags), which the session layer enforces. Without a session to carry them (an
     * embedding that calls the authorizer directly) a key with options that restrict sessions is refused rather
     * than granted more than the file says.
     */
    private static boolean accepted(ServerSession session, AuthorizedKeyEntry e) {
        if (session == null) {
            if (!e.options().isEmpty() && !KeyRestrictions.from(e.options()).equalsNone()) {
                LOG.warn("{}:{}: key has restricting options but no session to enforce them on: refused",
                        e.source(), e.lineNumber());
                return false;
            }
            return true;
        }
        KeyRestrictions.record(session, e.options());
        return true;
    }

    /**
     * The first entry of the user's files that authorizes {@code blob} for this client now, each file streamed
     * line by line ({@link AuthorizedKeys#find(Path, boolean, byte[], String, Instant)}): what a login costs the
     * server does not grow with what the user put in the files. Then AuthorizedKeysCommand's output, as sshd.
     */
    private Optional<AuthorizedKeyEntry> find(String user, boolean decoy, byte[] blob, String addr,
            PrincipalsCommand.Endpoints endpoints) {
        Instant now = Instant.now();
        for (String pattern : authorizedKeysPattern.split("\\s+")) {
            Optional<AuthorizedKeyEntry> e = findIn(pattern, user, false, decoy, blob, addr, now);
            if (e.isPresent()) {
                return e;
            }
        }
        if (kemFilesConfigured()) {
            Optional<AuthorizedKeyEntry> e = findIn(authorizedKemKeysPattern, user, true, decoy, blob, addr, now);
            if (e.isPresent()) {
                return e;
            }
        }
        KeysCommand c = keysCommand;
        return c == null || decoy ? Optional.empty() : c.find(user, blob, blob, false, addr, endpoints);
    }

    /**
     * The first {@code cert-authority} line of the user's authorized_keys files for this CA key, streamed; then of
     * AuthorizedKeysCommand's output for the certificate {@code certBlob}.
     */
    private Optional<AuthorizedKeyEntry> findCertAuthority(String user, boolean decoy, byte[] caBlob, String addr,
            byte[] certBlob, PrincipalsCommand.Endpoints endpoints) {
        Instant now = Instant.now();
        for (String pattern : authorizedKeysPattern.split("\\s+")) {
            Optional<Path> p = usableFile(pattern, user, decoy);
            if (p.isEmpty()) {
                continue;
            }
            try {
                Optional<AuthorizedKeyEntry> e = AuthorizedKeys.findCertAuthority(p.get(), caBlob, addr, now);
                if (e.isPresent()) {
                    return e;
                }
            } catch (IOException ex) {
                LOG.warn("cannot read {}: {}", p.get(), ex.getMessage());
            }
        }
        KeysCommand c = keysCommand;
        return c == null || decoy ? Optional.empty() : c.find(user, certBlob, caBlob, true, addr, endpoints);
    }

    private Optional<AuthorizedKeyEntry> findIn(String pattern, String user, boolean kemFormat, boolean decoy,
            byte[] blob, String addr, Instant now) {
        Optional<Path> p = usableFile(pattern, user, decoy);
        if (p.isEmpty()) {
            return Optional.empty();
        }
        try {
            return AuthorizedKeys.find(p.get(), kemFormat, blob, addr, now);
        } catch (IOException e) {
            LOG.warn("cannot read {}: {}", p.get(), e.getMessage());
            return Optional.empty();
        }
    }

    private boolean kemFilesConfigured() {
        return authorizedKemKeysPattern != null && !authorizedKemKeysPattern.isBlank()
                && !"none".equalsIgnoreCase(authorizedKemKeysPattern);
    }

    /** Every entry of the user's files (for tests and tools; logins use {@link #find}). */
    AuthorizedKeys keysFor(String user) {
        List<AuthorizedKeys> parts = new ArrayList<>();
        for (String pattern : authorizedKeysPattern.split("\\s+")) {
            load(pattern, user, false).ifPresent(parts::add);
        }
        if (kemFilesConfigured()) {
            load(authorizedKemKeysPattern, user, true).ifPresent(parts::add);
        }
        return AuthorizedKeys.of(parts.toArray(AuthorizedKeys[]::new));
    }

    private Optional<AuthorizedKeys> load(String pattern, String user, boolean kemFormat) {
        Optional<Path> p = usableFile(pattern, user, false);
        if (p.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(kemFormat ? AuthorizedKeys.loadKemKeys(p.get()) : AuthorizedKeys.load(p.get()));
        } catch (IOException e) {
            LOG.warn("cannot read {}: {}", p.get(), e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The file {@code pattern} names for the user, when it exists and StrictModes allows it; for a user the login
     * policy refused ({@code decoy}: unknown, locked, not allowed) the same look-ups with sshd's fake home
     * {@code /nonexist} ({@code fakepw()}), so the reply is the one a real account without the key gets, after the
     * same passwd look-up and path checks.
     */
    private Optional<Path> usableFile(String pattern, String user, boolean decoy) {
        if ("none".equalsIgnoreCase(pattern)) {
            return Optional.empty();
        }
        Optional<Path> home = homes.apply(user); // for a decoy too: the same passwd look-up
        if (decoy) {
            home = Optional.of(FAKE_HOME);
        }
        Optional<Path> p = UserPaths.resolve(pattern, user, home);
        if (p.isEmpty() || !Files.isRegularFile(p.get())) {
            return Optional.empty();
        }
        if (strictModes) {
            Optional<String> why;
            try {
                why = UserPaths.strictModesRefusal(p.get(), user, home);
            } catch (IOException e) {
                LOG.warn("cannot read {}: {}", p.get(), e.getMessage());
                return Optional.empty();
            }
            if (why.isPresent()) {
                if (!why.get().equals(refused.put(p.get(), why.get()))) {
                    refusalLog.accept("StrictModes: ignoring " + p.get() + " for " + user + ": " + why.get());
                }
                return Optional.empty();
            }
            refused.remove(p.get());
        }
        return p;
    }

    /** The connection's endpoints for %C (null when they are not IP sockets). */
    private static PrincipalsCommand.Endpoints endpoints(ServerSession session) {
        if (session != null && session.getClientAddress() instanceof java.net.InetSocketAddress c
                && session.getLocalAddress() instanceof java.net.InetSocketAddress l && c.getAddress() != null
                && l.getAddress() != null) {
            return new PrincipalsCommand.Endpoints(c.getAddress().getHostAddress(), c.getPort(),
                    l.getAddress().getHostAddress(), l.getPort());
        }
        return null;
    }

    private static String address(ServerSession session) {
        return session.getClientAddress() instanceof java.net.InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress()
                : String.valueOf(session.getClientAddress());
    }
}
