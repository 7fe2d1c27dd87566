package io.pqssh.client.kex;

import java.nio.charset.StandardCharsets;

import org.apache.sshd.client.kex.DHGClient;
import org.apache.sshd.common.kex.AbstractDH;
import org.apache.sshd.common.kex.DHFactory;
import org.apache.sshd.common.kex.KeyEncapsulationMethod;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;

import io.pqssh.mina.internal.kex.InitialKexSignature;

/**
 * MINA's client side of the (EC)DH and hybrid exchanges, able to send its first packet before the server's KEXINIT
 * is known. {@link #sendGuess} runs MINA's own {@code init}, which generates the key pair and writes the init
 * packet; the server's identification and KEXINIT enter the exchange hash only when the reply is processed, so
 * {@link #init} on a sent guess just records the real values instead of writing a second packet.
 */
final class GuessableDhgClient extends DHGClient {
    /** Stand-ins for V_S and I_S until the server's are read; MINA requires non-empty values. */
    private static final byte[] NOT_YET_READ = "not yet read".getBytes(StandardCharsets.US_ASCII);

    private boolean initSent;

    GuessableDhgClient(DHFactory factory, Session session) {
        super(factory, session);
    }

    /** Writes the exchange's first packet now; {@code i_c} is our KEXINIT payload as it went on the wire. */
    void sendGuess(byte[] v_c, byte[] i_c) throws Exception {
        super.init(NOT_YET_READ, v_c, NOT_YET_READ, i_c);
        initSent = true;
    }

    /** MINA's DH, with the KEM key pair made ahead when the client holds an untaken {@link PreparedKemShare}. */
    @Override
    protected AbstractDH getDH() throws Exception {
        AbstractDH dh = super.getDH();
        PreparedKemShare share = getSession().getFactoryManager().getAttribute(PreparedKemShare.KEY);
        if (share == null || !PreparedKemDH.wraps(dh)) {
            return dh;
        }
        KeyEncapsulationMethod.Client prepared = share.take(getName());
        if (prepared == null) {
            return dh;
        }
        log.debug("{}: {} with the KEM key pair made ahead", getSession(), getName());
        return new PreparedKemDH(dh, prepared);
    }

    @Override
    public boolean next(int cmd, Buffer buffer) throws Exception {
        InitialKexSignature.record(getSession(), cmd, buffer, false);
        return super.next(cmd, buffer);
    }

    @Override
    public void init(byte[] v_s, byte[] v_c, byte[] i_s, byte[] i_c) throws Exception {
        if (!initSent) {
            super.init(v_s, v_c, i_s, i_c);
            initSent = true;
            return;
        }
        // the guess was right: the server is answering the packet already sent
        this.v_s = v_s.clone();
        this.v_c = v_c.clone();
        this.i_s = i_s.clone();
        this.i_c = i_c.clone();
    }
}
