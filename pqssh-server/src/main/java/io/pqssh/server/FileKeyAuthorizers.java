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
import io.pqssh.core.keys.authorized.RejectedLine;
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

    public PublickeyAuthenticator publickey() {
        return (String user, PublicKey key, ServerSession session) -> {
            ByteArrayBuffer b = new ByteArrayBuffer();
            b.putRawPublicKey(key);
            String addr = address(session);
            boolean refused = AdmittingUserAuthFactory.refused(session, user);
            Optional<AuthorizedKeyEntry> e = keysFor(user, refused).find(b.getCompactData(), addr, Instant.now());
            return !refused && e.isPresent() && accepted(session, e.get());
        };
    }

    public KemKeyAuthorizer kem() {
        return new SessionKemKeyAuthorizer() {
            @Override
            public boolean isAuthorized(ServerSession session, String user, KemCredential credential, String addr) {
                boolean refused = session != null && AdmittingUserAuthFactory.refused(session, user);
                Optional<AuthorizedKeyEntry> e = keysFor(user, refused).findKem(credential.algorithm(),
                        credential.publicKey(), addr, Instant.now());
                return !refused && e.isPresent() && accepted(session, e.get());
            }

            @Override
            public boolean isAuthorized(String user, KemCredential credential, String addr) {
                return isAuthorized(null, user, credential, addr);
            }
        };
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

    AuthorizedKeys keysFor(String user) {
        return keysFor(user, false);
    }

    /**
     * The user's keys; for a user the login policy refused ({@code decoy}: unknown, locked, not allowed) the same
     * look-ups with sshd's fake home {@code /nonexist} ({@code fakepw()}), so the reply is the one a real account
     * without the key gets, after the same passwd look-up and path checks.
     */
    private AuthorizedKeys keysFor(String user, boolean decoy) {
        List<AuthorizedKeys> parts = new ArrayList<>();
        for (String pattern : authorizedKeysPattern.split("\\s+")) {
            load(pattern, user, false, decoy).ifPresent(parts::add);
        }
        if (authorizedKemKeysPattern != null && !authorizedKemKeysPattern.isBlank()
                && !"none".equalsIgnoreCase(authorizedKemKeysPattern)) {
            load(authorizedKemKeysPattern, user, true, decoy).ifPresent(parts::add);
        }
        return AuthorizedKeys.of(parts.toArray(AuthorizedKeys[]::new));
    }

    private Optional<AuthorizedKeys> load(String pattern, String user, boolean kemFormat, boolean decoy) {
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
        try {
            if (strictModes) {
                Optional<String> why = UserPaths.strictModesRefusal(p.get(), user, home);
                if (why.isPresent()) {
                    if (!why.get().equals(refused.put(p.get(), why.get()))) {
                        refusalLog.accept("StrictModes: ignoring " + p.get() + " for " + user + ": " + why.get());
                    }
                    return Optional.empty();
                }
                refused.remove(p.get());
            }
            AuthorizedKeys k = kemFormat ? AuthorizedKeys.loadKemKeys(p.get()) : AuthorizedKeys.load(p.get());
            for (RejectedLine r : k.rejected()) {
                LOG.warn("{}", r);
            }
            return Optional.of(k);
        } catch (IOException e) {
            LOG.warn("cannot read {}: {}", p.get(), e.getMessage());
            return Optional.empty();
        }
    }

    private static String address(ServerSession session) {
        return session.getClientAddress() instanceof java.net.InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress()
                : String.valueOf(session.getClientAddress());
    }
}
