package io.pqssh.mina.kex;

import java.util.Map;
import java.util.function.Consumer;

import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches every negotiated key exchange. With {@code RequirePostQuantumKex yes} a classical result is refused before
 * the exchange starts: SSH_MSG_DISCONNECT (KEY_EXCHANGE_FAILED) is the last packet sent, as in OpenSSH, with no
 * KEX init, KEX reply or NEWKEYS after it ({@link RefusedKeyExchange}); otherwise the server logs one line per classical connection (as OpenSSH 10.6 does) and
 * the client warns (OpenSSH 10.1's {@code WarnWeakCrypto}).
 */
public final class PostQuantumKexPolicy implements SessionListener {
    /** Set on a session that was refused, with the reason shown to the user. */
    public static final org.apache.sshd.common.AttributeRepository.AttributeKey<String> REFUSAL
            = new org.apache.sshd.common.AttributeRepository.AttributeKey<>();

    private static final Logger LOG = LoggerFactory.getLogger(PostQuantumKexPolicy.class);

    // MINA clears session attributes on close, so refusals are also kept here for the caller to explain
    private final Map<Session, String> refusals = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    private final boolean require;
    private final Consumer<String> warning;

    /**
     * @param require refuse classical key exchange
     * @param warning where a non-PQ warning goes (client: stderr; server: its log), or null for none
     */
    public PostQuantumKexPolicy(boolean require, Consumer<String> warning) {
        this.require = require;
        this.warning = warning;
    }

    @Override
    public void sessionNegotiationEnd(Session session, Map<KexProposalOption, String> clientProposal,
            Map<KexProposalOption, String> serverProposal, Map<KexProposalOption, String> negotiatedOptions,
            Throwable reason) {
        if (reason != null || negotiatedOptions == null) {
            return;
        }
        String kex = negotiatedOptions.get(KexProposalOption.ALGORITHMS);
        if (kex == null || PqKex.isPostQuantum(kex)) {
            return;
        }
        if (require) {
            String msg = "RequirePostQuantumKex: refusing classical key exchange " + kex + " with "
                    + session.getRemoteAddress();
            session.setAttribute(REFUSAL, msg);
            refusals.put(session, msg);
            LOG.warn(msg);
            // nothing may follow the DISCONNECT: MINA goes on to create the negotiated exchange, which would send
            // the client's KEX init or answer the peer's with a signed reply and NEWKEYS; this one sends nothing
            session.setKeyExchangeFactories(java.util.List.of(RefusedKeyExchange.factory(kex)));
            try {
                session.disconnect(SshConstants.SSH2_DISCONNECT_KEY_EXCHANGE_FAILED,
                        "post-quantum key exchange required, peer negotiated " + kex);
            } catch (java.io.IOException e) {
                session.close(true);
            }
        } else if (warning != null) {
            warning.accept(kex);
        }
    }

    /** Why this policy refused the session, if it did. */
    public String refusalFor(Session session) {
        return session == null ? null : refusals.get(session);
    }

    /** The client-side text, after OpenSSH 10.1. */
    public static String clientWarning(String kex) {
        return "** WARNING: connection is not using a post-quantum key exchange algorithm (" + kex + ").\n"
                + "** This session may be vulnerable to \"store now, decrypt later\" attacks.\n"
                + "** The server may need to be upgraded.";
    }
}
