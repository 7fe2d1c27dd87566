package io.pqssh.core.keys;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/** The registry of private key codecs by key type name, filled once from the ServiceLoader. */
public final class PrivateKeyCodecs {
    private static final Map<String, PrivateKeyCodec> BY_NAME = load();

    private PrivateKeyCodecs() {
    }

    private static Map<String, PrivateKeyCodec> load() {
        Map<String, PrivateKeyCodec> m = new LinkedHashMap<>();
        for (PrivateKeyCodecProvider p : ServiceLoader.load(PrivateKeyCodecProvider.class,
                PrivateKeyCodecs.class.getClassLoader())) {
            for (PrivateKeyCodec c : p.codecs()) {
                for (String name : c.keyTypes()) {
                    PrivateKeyCodec prev = m.putIfAbsent(name, c);
                    if (prev != null && prev != c) {
                        throw new IllegalStateException("two codecs claim key type " + name);
                    }
                }
            }
        }
        return Collections.unmodifiableMap(m);
    }

    public static Optional<PrivateKeyCodec> forType(String keyType) {
        return Optional.ofNullable(BY_NAME.get(keyType));
    }

    public static Map<String, PrivateKeyCodec> all() {
        return BY_NAME;
    }
}
