package io.pqssh.mina.keys;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.session.SessionContext;

/**
 * Host keys for a MINA server from key pairs of any type (PQ ones from {@link PqKeyPairs}). MINA's default
 * {@link KeyPairProvider} methods take the key type from the private key, which PQ private keys do not carry, so this
 * provider keys every pair by its public key's type. One key per type; the first wins.
 */
public final class PqKeyPairProvider implements KeyPairProvider {
    private final Map<String, KeyPair> byType;

    private PqKeyPairProvider(Map<String, KeyPair> byType) {
        this.byType = byType;
    }

    public static PqKeyPairProvider of(List<KeyPair> pairs) {
        Map<String, KeyPair> m = new LinkedHashMap<>();
        for (KeyPair kp : pairs) {
            String type = KeyUtils.getKeyType(kp.getPublic());
            if (type == null) {
                throw new IllegalArgumentException("host key of unknown type " + kp.getPublic().getAlgorithm());
            }
            m.putIfAbsent(type, kp);
        }
        if (m.isEmpty()) {
            throw new IllegalArgumentException("no host keys");
        }
        return new PqKeyPairProvider(java.util.Collections.unmodifiableMap(m));
    }

    /** Loads every file now, so a bad host key stops the server at start-up with the file's name. */
    public static PqKeyPairProvider fromFiles(List<Path> files, char[] passphrase) throws IOException {
        List<KeyPair> all = new ArrayList<>();
        for (Path f : files) {
            try {
                all.addAll(PqKeyPairs.load(f, passphrase));
            } catch (GeneralSecurityException | io.pqssh.core.keys.KeyFileException e) {
                String m = e.getMessage() == null ? e.toString() : e.getMessage();
                throw new IOException(m.startsWith(f.toString()) ? m : f + ": " + m, e);
            }
        }
        return of(all);
    }

    @Override
    public Iterable<KeyPair> loadKeys(SessionContext session) {
        return byType.values();
    }

    @Override
    public KeyPair loadKey(SessionContext session, String type) {
        KeyPair kp = byType.get(type);
        if (kp == null) {
            kp = byType.get(KeyUtils.getCanonicalKeyType(type));
        }
        return kp;
    }

    @Override
    public Iterable<String> getKeyTypes(SessionContext session) {
        return byType.keySet();
    }

    @Override
    public String toString() {
        return "PqKeyPairProvider" + byType.keySet();
    }
}
