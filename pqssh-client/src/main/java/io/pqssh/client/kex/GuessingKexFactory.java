package io.pqssh.client.kex;

import java.util.Objects;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.kex.DHFactory;
import org.apache.sshd.common.kex.KeyExchange;
import org.apache.sshd.common.kex.KeyExchangeFactory;
import org.apache.sshd.common.session.Session;

/**
 * Client key exchange factory for one (EC)DH or hybrid method that can hand out the exchange whose first packet was
 * sent as a guess (see {@link FirstKexGuess}). MINA calls {@link #createKeyExchange} once both KEXINITs are in:
 * the guessed exchange is returned only if it is for this method and the guess is right; otherwise a fresh
 * exchange, which sends its own first packet as usual.
 */
public final class GuessingKexFactory implements KeyExchangeFactory {
    /** The exchange whose first packet went out with our KEXINIT; taken (and cleared) at negotiation. */
    static final AttributeKey<GuessableDhgClient> PENDING = new AttributeKey<>();

    private final DHFactory dh;

    public GuessingKexFactory(DHFactory dh) {
        this.dh = Objects.requireNonNull(dh);
    }

    @Override
    public String getName() {
        return dh.getName();
    }

    /** A new exchange that has not sent anything yet. */
    GuessableDhgClient newExchange(Session session) {
        return new GuessableDhgClient(dh, session);
    }

    @Override
    public KeyExchange createKeyExchange(Session session) throws Exception {
        GuessableDhgClient guessed = session.removeAttribute(PENDING);
        if (guessed != null) {
            boolean right = guessed.getName().equals(getName())
                    && FirstKexGuess.isRight(session.getClientKexProposals(), session.getServerKexProposals());
            session.setAttribute(FirstKexGuess.OUTCOME, right ? FirstKexGuess.Outcome.RIGHT : FirstKexGuess.Outcome.WRONG);
            if (right) {
                return guessed;
            }
        }
        return newExchange(session);
    }

    @Override
    public String toString() {
        return "GuessingKexFactory[" + getName() + "]";
    }
}
