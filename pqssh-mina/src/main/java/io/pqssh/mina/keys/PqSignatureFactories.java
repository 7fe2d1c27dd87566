package io.pqssh.mina.keys;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.signature.Signature;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.mina.internal.keys.HostKeyAlgorithmOrder;

/** The PQ signature factories, one per key type name, and the lists pqssh gives MINA. */
public final class PqSignatureFactories {
    private static final Map<String, PqSignatureFactory> BY_NAME;
    private static final List<NamedFactory<Signature>> CANONICAL;

    static {
        Map<String, PqSignatureFactory> m = new LinkedHashMap<>();
        List<NamedFactory<Signature>> c = new ArrayList<>();
        for (SignatureKeyType t : PqPublicKey.TYPES) {
            for (String n : t.names()) {
                PqSignatureFactory f = new PqSignatureFactory(t, n);
                m.put(n, f);
                if (n.equals(t.sshName())) {
                    c.add(f);
                }
            }
        }
        BY_NAME = java.util.Collections.unmodifiableMap(m);
        CANONICAL = List.copyOf(c);
    }

    private PqSignatureFactories() {
    }

    /** One factory per canonical name, in the table's order (ML-DSA, composite, SLH-DSA, Falcon). */
    public static List<NamedFactory<Signature>> canonical() {
        return CANONICAL;
    }

    /** Factories for every name, aliases included. */
    public static Map<String, PqSignatureFactory> byName() {
        return BY_NAME;
    }

    public static boolean isPq(String name) {
        return BY_NAME.containsKey(name);
    }

    /**
     * {@code base} (MINA's defaults, normally) followed by the PQ factories it lacks. Classical algorithms stay first
     * so a host whose classical key is already in {@code known_hosts} keeps matching; {@link HostKeyAlgorithmOrder}
     * moves the algorithms of known keys to the front per connection.
     */
    public static List<NamedFactory<Signature>> withPq(List<? extends NamedFactory<Signature>> base) {
        List<NamedFactory<Signature>> out = new ArrayList<>(base);
        for (NamedFactory<Signature> f : CANONICAL) {
            if (out.stream().noneMatch(g -> g.getName().equals(f.getName()))) {
                out.add(f);
            }
        }
        return List.copyOf(out);
    }
}
