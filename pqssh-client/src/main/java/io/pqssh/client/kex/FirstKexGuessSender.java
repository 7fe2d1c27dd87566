package io.pqssh.client.kex;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.kex.KeyExchangeFactory;
import org.apache.sshd.common.session.ReservedSessionMessagesHandler;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.util.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.mina.kex.PqKex;

/**
 * Sends the client's first KEXINIT with {@code first_kex_packet_follows = TRUE}, followed at once by the guessed
 * exchange's first packet. MINA's hook for this is {@link ReservedSessionMessagesHandler#sendKexInitRequest}: it
 * sees the finished KEXINIT buffer and may write it itself. MINA keeps the buffer's payload as I_C after the hook
 * returns, so the flag is set in that buffer (I_C must be the bytes on the wire) and a copy is written, since
 * writing encodes a buffer in place.
 *
 * <p>Only the session's first KEXINIT carries a guess (re-keys run as MINA does), only when
 * {@link FirstKexGuess#plan} found from the {@link ServerProposalCache} that it will be right, and only when our
 * preferred method comes from a {@link GuessingKexFactory}. Registered as a session listener too: at
 * {@code sessionCreated} it applies the plan's order to the new session (after {@code HostKeyAlgorithmOrder}), once
 * the first keys are established it records the server's lists in the cache, and when the negotiated exchange came from
 * another factory (group exchange), nothing took the guess, so at {@code KexCompleted} it is dropped (with its key
 * pair) and recorded as wrong.
 */
public final class FirstKexGuessSender implements ReservedSessionMessagesHandler, SessionListener {
    private static final Logger LOG = LoggerFactory.getLogger(FirstKexGuessSender.class);
    private static final AttributeKey<Boolean> CONSIDERED = new AttributeKey<>();
    private static final AttributeKey<Boolean> PLANNED = new AttributeKey<>();
    private static final AttributeKey<Boolean> RECORDED = new AttributeKey<>();

    private final ServerProposalCache cache;
    private final BiFunction<String, Integer, Set<String>> knownHostKeyTypes;

    /**
     * @param cache             the servers' last lists
     * @param knownHostKeyTypes key types {@code known_hosts} holds for a host and port (empty when unknown)
     */
    public FirstKexGuessSender(ServerProposalCache cache, BiFunction<String, Integer, Set<String>> knownHostKeyTypes) {
        this.cache = java.util.Objects.requireNonNull(cache);
        this.knownHostKeyTypes = java.util.Objects.requireNonNull(knownHostKeyTypes);
    }

    @Override
    public void sessionCreated(Session session) {
        if (!(session instanceof ClientSession cs) || destination(cs) == null) {
            return;
        }
        SshdSocketAddress a = destination(cs);
        ServerProposalCache.Proposal known = cache.lookup(a.getHostName(), a.getPort()).orElse(null);
        if (known == null) {
            return;
        }
        List<String> kex = NamedResource.getNameList(cs.getKeyExchangeFactories());
        List<String> hostKeys = NamedResource.getNameList(cs.getSignatureFactories());
        Set<String> types = knownHostKeyTypes.apply(a.getHostName(), a.getPort());
        // a server with a host certificate: the certificate algorithm must stay ahead of the plain ones, as OpenSSH
        // negotiates (sshd lists its plain algorithms first), so that its CA and @revoked lines are applied
        boolean certs = known.hostKeys().stream()
                .anyMatch(org.apache.sshd.common.config.keys.KeyUtils::isCertificateAlgorithm);
        FirstKexGuess.Plan plan = FirstKexGuess.plan(kex, hostKeys, known,
                alg -> (!certs || org.apache.sshd.common.config.keys.KeyUtils.isCertificateAlgorithm(alg))
                        && io.pqssh.mina.internal.keys.HostKeyAlgorithmOrder.isKnown(alg, types), PqKex::isPostQuantum,
                io.pqssh.mina.keys.PqSignatureFactories::isPq);
        if (plan.guess()) {
            cs.setKeyExchangeFactories(FirstKexGuess.reorder(cs.getKeyExchangeFactories(), plan.kex()));
            cs.setSignatureFactories(FirstKexGuess.reorder(cs.getSignatureFactories(), plan.hostKeys()));
            cs.setAttribute(PLANNED, Boolean.TRUE);
        }
    }

    /**
     * Records the server's lists once the keys are established: by then its KEXINIT is covered by the exchange hash
     * the (verified) host key signed, so an unauthenticated peer cannot write the cache.
     */
    private void record(ClientSession cs) {
        SshdSocketAddress a = destination(cs);
        Map<KexProposalOption, String> serverProposal = cs.getServerKexProposals();
        if (a == null || serverProposal == null) {
            return;
        }
        String kex = serverProposal.get(KexProposalOption.ALGORITHMS);
        String hostKeys = serverProposal.get(KexProposalOption.SERVERKEYS);
        if (kex != null && hostKeys != null && !kex.isBlank() && !hostKeys.isBlank()) {
            cache.record(a.getHostName(), a.getPort(), new ServerProposalCache.Proposal(
                    Arrays.asList(kex.split(",")), Arrays.asList(hostKeys.split(","))));
        }
    }

    /** Offset from the end of a KEXINIT payload: boolean first_kex_packet_follows, then uint32 reserved. */
    private static final int FLAG_FROM_END = 5;

    /** Host (as the user named it) and port of a client session. */
    private static SshdSocketAddress destination(ClientSession s) {
        java.net.SocketAddress a = s.getConnectAddress();
        if (a instanceof SshdSocketAddress sa) {
            return sa;
        }
        if (a instanceof java.net.InetSocketAddress ia) {
            return new SshdSocketAddress(ia.getHostString(), ia.getPort());
        }
        return null;
    }

    @Override
    public IoWriteFuture sendKexInitRequest(Session session, Map<KexProposalOption, String> proposal, Buffer kexInit)
            throws Exception {
        if (session.isServerSession() || session.setAttribute(CONSIDERED, Boolean.TRUE) != null
                || session.getAttribute(PLANNED) == null) {
            return null;
        }
        String preferred = FirstKexGuess.first(proposal.get(KexProposalOption.ALGORITHMS));
        KeyExchangeFactory f = NamedResource.findByName(preferred, String.CASE_INSENSITIVE_ORDER,
                session.getKeyExchangeFactories());
        if (!(f instanceof GuessingKexFactory guessing)) {
            return null;
        }
        byte[] a = kexInit.array();
        int flag = kexInit.wpos() - FLAG_FROM_END;
        if (kexInit.available() < 1 + 16 + FLAG_FROM_END || a[kexInit.rpos()] != SshConstants.SSH_MSG_KEXINIT
                || a[flag] != 0) {
            return null; // not the layout we expect: send it unchanged
        }
        a[flag] = 1;
        Buffer copy = session.createBuffer(SshConstants.SSH_MSG_KEXINIT, kexInit.available());
        copy.putRawBytes(a, kexInit.rpos() + 1, kexInit.available() - 1);
        IoWriteFuture written = session.writePacket(copy);

        GuessableDhgClient guess = guessing.newExchange(session);
        guess.sendGuess(session.getClientVersion().getBytes(StandardCharsets.UTF_8), kexInit.getCompactData());
        session.setAttribute(GuessingKexFactory.PENDING, guess);
        LOG.debug("{}: KEXINIT with first_kex_packet_follows, guessed {} / {}", session, preferred,
                FirstKexGuess.first(proposal.get(KexProposalOption.SERVERKEYS)));
        return written;
    }

    @Override
    public void sessionEvent(Session session, Event event) {
        if (event == Event.KexCompleted && session.removeAttribute(GuessingKexFactory.PENDING) != null) {
            session.setAttribute(FirstKexGuess.OUTCOME, FirstKexGuess.Outcome.WRONG);
        }
        if (event == Event.KeyEstablished && session instanceof ClientSession cs
                && session.setAttribute(RECORDED, Boolean.TRUE) == null) {
            record(cs);
        }
    }
}
