package io.pqssh.mina.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.server.auth.pubkey.PublickeyAuthenticator;
import org.apache.sshd.server.session.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.auth.KemKeyAuthorizer;
import io.pqssh.core.keys.authorized.AuthorizedKeyEntry;
import io.pqssh.core.keys.authorized.AuthorizedKeys;
import io.pqssh.core.keys.authorized.RejectedLine;

/**
 * Per-user authorization from files, read at each login (so edits apply at once, as in sshd): signature keys from
 * {@code AuthorizedKeysFile}; KEM keys from the same file (type {@code mlkem768} etc.) and from
 * {@code AuthorizedKEMKeysFile} (the research implementation's format). {@code from=} and {@code expiry-time=} are
 * enforced; a key with {@code command=} is refused, since forced commands are not implemented and silently ignoring
 * one would grant more than the file says.
 */
public final class FileKeyAuthorizers {
    private static final Logger LOG = LoggerFactory.getLogger(FileKeyAuthorizers.class);

    private final String authorizedKeysPattern;
    private final String authorizedKemKeysPattern;

    public FileKeyAuthorizers(String authorizedKeysPattern, String authorizedKemKeysPattern) {
        this.authorizedKeysPattern = authorizedKeysPattern;
        this.authorizedKemKeysPattern = authorizedKemKeysPattern;
    }

    public PublickeyAuthenticator publickey() {
        return (String user, PublicKey key, ServerSession session) -> {
            ByteArrayBuffer b = new ByteArrayBuffer();
            b.putRawPublicKey(key);
            String addr = address(session);
            Optional<AuthorizedKeyEntry> e = keysFor(user).find(b.getCompactData(), addr, Instant.now());
            return e.isPresent() && allowed(user, e.get());
        };
    }

    public KemKeyAuthorizer kem() {
        return (user, credential, addr) -> {
            Optional<AuthorizedKeyEntry> e = keysFor(user).findKem(credential.algorithm(), credential.publicKey(),
                    addr, Instant.now());
            return e.isPresent() && allowed(user, e.get());
        };
    }

    private static boolean allowed(String user, AuthorizedKeyEntry e) {
        if (e.options().command().isPresent()) {
            LOG.warn("{}:{}: key for {} has command=, which pqssh server does not enforce yet: refused",
                    e.source(), e.lineNumber(), user);
            return false;
        }
        return true;
    }

    AuthorizedKeys keysFor(String user) {
        List<AuthorizedKeys> parts = new ArrayList<>();
        for (String pattern : authorizedKeysPattern.split("\\s+")) {
            load(pattern, user, false).ifPresent(parts::add);
        }
        if (authorizedKemKeysPattern != null && !authorizedKemKeysPattern.isBlank()
                && !"none".equalsIgnoreCase(authorizedKemKeysPattern)) {
            load(authorizedKemKeysPattern, user, true).ifPresent(parts::add);
        }
        return AuthorizedKeys.of(parts.toArray(AuthorizedKeys[]::new));
    }

    private static Optional<AuthorizedKeys> load(String pattern, String user, boolean kemFormat) {
        if ("none".equalsIgnoreCase(pattern)) {
            return Optional.empty();
        }
        Optional<Path> p = UserPaths.resolve(pattern, user);
        if (p.isEmpty() || !Files.isRegularFile(p.get())) {
            return Optional.empty();
        }
        try {
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
