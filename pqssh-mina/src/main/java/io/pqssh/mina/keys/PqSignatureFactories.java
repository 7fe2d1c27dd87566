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
    private static final Map<String, PqSignatureFactory> CERTIFICATES;

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
        Map<String, PqSignatureFactory> certs = new LinkedHashMap<>();
        for (SignatureKeyType t : PqPublicKey.TYPES) {
            PqSignatureFactory f = PqSignatureFactory.forCertificates(t);
            certs.put(f.getName(), f);
        }
        CERTIFICATES = java.util.Collections.unmodifiableMap(certs);
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

    /**
     * The certificate algorithms ({@code ssh-mldsa-65-cert-v01@openssh.com}, the composite's two, ...), one per
     * canonical key type, in the table's order.
     */
    public static Map<String, PqSignatureFactory> certificates() {
        return CERTIFICATES;
    }

    /** Whether {@code name} is a post-quantum signature algorithm (a plain key's or a certificate's). */
    public static boolean isPq(String name) {
        return BY_NAME.containsKey(name) || CERTIFICATES.containsKey(name);
    }

    /**
     * {@code base} (MINA's defaults, normally) followed by the PQ factories it lacks, the certificate algorithms
     * ahead of the plain ones as in OpenSSH's lists (so a host whose CA and plain key are both in {@code known_hosts}
     * is asked for its certificate, and {@code @revoked} applies to it). Classical algorithms stay first so a host whose classical key is already in
     * {@code known_hosts} keeps matching; {@link HostKeyAlgorithmOrder} moves the algorithms of known keys (and the
     * certificate algorithms when a {@code @cert-authority} line names the host) to the front per connection.
     */
    public static List<NamedFactory<Signature>> withPq(List<? extends NamedFactory<Signature>> base) {
        List<NamedFactory<Signature>> out = new ArrayList<>(base);
        List<NamedFactory<Signature>> pq = new ArrayList<>(CERTIFICATES.values());
        pq.addAll(CANONICAL);
        for (NamedFactory<Signature> f : pq) {
            if (out.stream().noneMatch(g -> g.getName().equals(f.getName()))) {
                out.add(f);
            }
        }
        return List.copyOf(out);
    }
}
