package io.pqssh.client.kex;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.kex.KexProposalOption;

/**
 * RFC 4253 §7.1 {@code first_kex_packet_follows} on the client: the client's KEXINIT carries the flag and the key
 * exchange's first packet (for the hybrids: KEX_ECDH_INIT with the client's ML-KEM key and X25519 point) follows it
 * in the same flight, before the server's KEXINIT has been read. The guess is right when the first entries of both
 * sides' key exchange and host key algorithm lists are equal (the test OpenSSH's {@code proposals_match} and MINA's
 * {@code handleFirstKexPacketFollows} apply); then the server answers the guessed packet and one round trip is gone.
 * A wrong guess is discarded by the server and the client sends the packet of the negotiated exchange, costing
 * the bytes of the guess (about 1.2 KB for mlkem768x25519), so the client guesses only when {@link #plan} finds
 * that the guess will be right.
 */
public final class FirstKexGuess {
    /** What happened to this session's guess, for logs, tests and the lab. */
    public enum Outcome {
        /** The server's first choices equalled ours: the guessed packet was kept and not re-sent. */
        RIGHT,
        /** The server's first choices differ: the server drops the guess, the negotiated exchange starts fresh. */
        WRONG
    }

    /** Set on the client session when the negotiated exchange starts. */
    public static final AttributeKey<Outcome> OUTCOME = new AttributeKey<>();

    /** The options whose first entries decide the guess (RFC 4253 §7.1). */
    static final List<KexProposalOption> DECIDING = List.of(KexProposalOption.ALGORITHMS, KexProposalOption.SERVERKEYS);

    private FirstKexGuess() {
    }

    /** {@code true} when the first entries of the key exchange and host key lists agree. */
    public static boolean isRight(Map<KexProposalOption, String> client, Map<KexProposalOption, String> server) {
        for (KexProposalOption o : DECIDING) {
            String c = first(client.get(o));
            if (c.isEmpty() || !c.equals(first(server.get(o)))) {
                return false;
            }
        }
        return true;
    }

    /**
     * What the client offers and whether it guesses, for one connection. The guess is made only when it can be
     * right: {@code server} (that host's last KEXINIT, from a {@link ServerProposalCache}) shows that the first
     * entries will agree. Without knowledge there is no guess and the lists are left exactly as configured.
     *
     * <p>Moving the algorithm the negotiation would pick anyway (the first of ours the server offers) to the front
     * of our list changes nothing but the first entry, so the key exchange is reordered that way. The host key list
     * too; if that pick is not the server's first host key algorithm, the server's first is moved to the front only
     * if {@code known_hosts} holds a key of its type for the host (the connection stays verifiable).
     *
     * <p>The cache may be stale (the server changed its configuration) or, with host key checking off, written by
     * someone else: a classical algorithm is therefore never moved ahead of a post-quantum one, so a wrong cache
     * can cost a wrong guess but never a post-quantum key exchange or host key the real server offers.
     */
    public static Plan plan(List<String> kex, List<String> hostKeys, ServerProposalCache.Proposal server,
            java.util.function.Predicate<String> hostKeyTypeKnown,
            java.util.function.Predicate<String> postQuantumKex,
            java.util.function.Predicate<String> postQuantumHostKey) {
        if (server == null) {
            return new Plan(kex, hostKeys, false);
        }
        String kexPick = firstOffered(kex, server.kex());
        String hostPick = firstOffered(hostKeys, server.hostKeys());
        String serverKex = server.kex().isEmpty() ? "" : server.kex().get(0);
        String serverHost = server.hostKeys().isEmpty() ? "" : server.hostKeys().get(0);
        if (kexPick == null || hostPick == null || !kexPick.equals(serverKex)
                || downgrades(kex, kexPick, postQuantumKex)) {
            return new Plan(kex, hostKeys, false);
        }
        if (!hostPick.equals(serverHost)) {
            if (!hostKeys.contains(serverHost) || !hostKeyTypeKnown.test(serverHost)) {
                return new Plan(kex, hostKeys, false);
            }
            hostPick = serverHost;
        }
        if (downgrades(hostKeys, hostPick, postQuantumHostKey)) {
            return new Plan(kex, hostKeys, false);
        }
        return new Plan(toFront(kex, kexPick), toFront(hostKeys, hostPick), true);
    }

    /** {@code true} when moving classical {@code pick} to the front would put it ahead of a post-quantum entry. */
    private static boolean downgrades(List<String> names, String pick,
            java.util.function.Predicate<String> postQuantum) {
        if (postQuantum.test(pick)) {
            return false;
        }
        for (String n : names) {
            if (n.equals(pick)) {
                return false;
            }
            if (postQuantum.test(n)) {
                return true;
            }
        }
        return false;
    }

    /** The lists to offer and whether {@code first_kex_packet_follows} is set. */
    public static final class Plan {
        private final List<String> kex;
        private final List<String> hostKeys;
        private final boolean guess;

        Plan(List<String> kex, List<String> hostKeys, boolean guess) {
            this.kex = List.copyOf(kex);
            this.hostKeys = List.copyOf(hostKeys);
            this.guess = guess;
        }

        public List<String> kex() {
            return kex;
        }

        public List<String> hostKeys() {
            return hostKeys;
        }

        public boolean guess() {
            return guess;
        }
    }

    /** The key exchange negotiation picks (RFC 4253 §7.1: the client's first that the server offers), or empty. */
    public static java.util.Optional<String> negotiated(List<String> ours, List<String> theirs) {
        return java.util.Optional.ofNullable(firstOffered(ours, theirs));
    }

    private static String firstOffered(List<String> ours, List<String> theirs) {
        for (String n : ours) {
            if (theirs.contains(n)) {
                return n;
            }
        }
        return null;
    }

    private static List<String> toFront(List<String> names, String first) {
        List<String> out = new ArrayList<>(names.size());
        out.add(first);
        for (String n : names) {
            if (!n.equals(first)) {
                out.add(n);
            }
        }
        return out;
    }

    /** {@code factories} in the order of {@code names} (factories not named keep their relative order, last). */
    static <T extends org.apache.sshd.common.NamedResource> List<T> reorder(List<? extends T> factories,
            List<String> names) {
        List<T> out = new ArrayList<>(factories.size());
        for (String n : names) {
            for (T f : factories) {
                if (f.getName().equals(n) && !out.contains(f)) {
                    out.add(f);
                }
            }
        }
        for (T f : factories) {
            if (!out.contains(f)) {
                out.add(f);
            }
        }
        return out;
    }

    static String first(String nameList) {
        if (nameList == null) {
            return "";
        }
        int comma = nameList.indexOf(',');
        return (comma < 0 ? nameList : nameList.substring(0, comma)).trim();
    }
}
