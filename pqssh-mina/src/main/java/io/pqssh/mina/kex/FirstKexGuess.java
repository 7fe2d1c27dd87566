package io.pqssh.mina.kex;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.signature.Signature;

/**
 * RFC 4253 §7.1 {@code first_kex_packet_follows} on the client: the client's KEXINIT carries the flag and the key
 * exchange's first packet (for the hybrids: KEX_ECDH_INIT with the client's ML-KEM key and X25519 point) follows it
 * in the same flight, before the server's KEXINIT has been read. The guess is right when the first entries of both
 * sides' key exchange and host key algorithm lists are equal (the test OpenSSH's {@code proposals_match} and MINA's
 * {@code handleFirstKexPacketFollows} apply); then the server answers the guessed packet and one round trip is gone.
 * A wrong guess is discarded by the server and the client sends the packet of the negotiated exchange, costing only
 * the bytes of the guess.
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
     * The client's host key algorithm order when it guesses: {@code ssh-ed25519} first, then the other plain
     * algorithms in {@code base} order, then certificate algorithms. MINA's default order starts with ECDSA
     * certificates, which only servers configured with a host certificate offer, so every guess against an
     * ordinary server would be wrong; OpenSSH's {@code sshd} lists {@code ssh-ed25519} first whenever it has that
     * key. Algorithms of keys {@code known_hosts} holds for the host still go in front of this order
     * ({@code HostKeyAlgorithmOrder}).
     */
    public static List<NamedFactory<Signature>> hostKeyOrder(List<? extends NamedFactory<Signature>> base) {
        List<NamedFactory<Signature>> ed25519 = new ArrayList<>();
        List<NamedFactory<Signature>> plain = new ArrayList<>();
        List<NamedFactory<Signature>> certificates = new ArrayList<>();
        for (NamedFactory<Signature> f : base) {
            String n = f.getName();
            if (n.equals("ssh-ed25519")) {
                ed25519.add(f);
            } else if (n.contains("-cert-v0")) {
                certificates.add(f);
            } else {
                plain.add(f);
            }
        }
        List<NamedFactory<Signature>> out = new ArrayList<>(ed25519);
        out.addAll(plain);
        out.addAll(certificates);
        return List.copyOf(out);
    }

    static String first(String nameList) {
        if (nameList == null) {
            return "";
        }
        int comma = nameList.indexOf(',');
        return (comma < 0 ? nameList : nameList.substring(0, comma)).trim();
    }
}
