package io.pqssh.inventory.scan;

import java.util.List;

/**
 * What a server's KEXINIT means for the migration.
 *
 * @param pqKexOffered post-quantum key exchange methods the server offers, in its order
 * @param openssh10Negotiates what a current OpenSSH 10 client with default settings would negotiate (null: none)
 * @param pqsshNegotiates what pqssh's default client would negotiate (null: none)
 * @param pqHostKeysOffered post-quantum host key algorithms offered
 * @param strictKex whether {@code kex-strict-s-v00@openssh.com} (Terrapin countermeasure) is offered
 * @param classicalOnly no post-quantum key exchange offered at all
 * @param weak weak algorithms offered, as {@code kind:name}
 * @param pqReady an OpenSSH 10 client (or pqssh) gets a post-quantum key exchange here
 * @param category pq-ready; non-standard-pq when post-quantum methods are offered but none that OpenSSH 10 or pqssh
 *     negotiates (withdrawn drafts, OQS or vendor names), so clients still fall back to a classical exchange; else
 *     classical-only
 */
public record Classification(List<String> pqKexOffered, String openssh10Negotiates, String pqsshNegotiates,
        List<String> pqHostKeysOffered, boolean strictKex, boolean classicalOnly, List<String> weak, boolean pqReady,
        String category) {

    /** The classification of a KEXINIT (remembered per distinct KEXINIT: {@link KexCache}). */
    public static Classification of(KexInit k) {
        return KexCache.of(k).classification();
    }

    static Classification compute(KexInit k) {
        List<String> pq = k.kex().stream().filter(n -> !Algorithms.isPseudoKex(n)).filter(Algorithms::isPqKex)
                .toList();
        String o = Algorithms.negotiate(Algorithms.OPENSSH10_CLIENT_KEX, k.kex());
        String p = Algorithms.negotiate(Algorithms.PQSSH_KEX, k.kex());
        boolean ready = (o != null && Algorithms.isPqKex(o)) || (p != null && Algorithms.isPqKex(p));
        return new Classification(pq, o, p,
                k.hostKey().stream().filter(Algorithms::isPqHostKey).toList(),
                k.kex().contains(Algorithms.STRICT_KEX_SERVER),
                pq.isEmpty(),
                Algorithms.weak(k), ready, ready ? "pq-ready" : !pq.isEmpty() ? "non-standard-pq" : "classical-only");
    }
}
