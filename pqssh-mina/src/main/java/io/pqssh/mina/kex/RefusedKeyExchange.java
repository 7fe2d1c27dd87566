package io.pqssh.mina.kex;

import org.apache.sshd.common.digest.Digest;
import org.apache.sshd.common.kex.KeyExchange;
import org.apache.sshd.common.kex.KeyExchangeFactory;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * The exchange MINA runs for a session whose negotiated key exchange was refused ({@link PostQuantumKexPolicy}):
 * it sends nothing and answers nothing. MINA creates the negotiated exchange after the negotiation listeners have
 * run, so without this the client would still send its KEX init and the server would answer the peer's with a
 * signed reply and NEWKEYS after the DISCONNECT.
 */
final class RefusedKeyExchange implements KeyExchange {
    private final String name;
    private final Session session;

    private RefusedKeyExchange(String name, Session session) {
        this.name = name;
        this.session = session;
    }

    /** The only key exchange factory left to a refused session, under the negotiated name. */
    static KeyExchangeFactory factory(String negotiated) {
        return new KeyExchangeFactory() {
            @Override
            public String getName() {
                return negotiated;
            }

            @Override
            public KeyExchange createKeyExchange(Session session) {
                return new RefusedKeyExchange(negotiated, session);
            }
        };
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public Session getSession() {
        return session;
    }

    @Override
    public void init(byte[] v_s, byte[] v_c, byte[] i_s, byte[] i_c) {
        // no KEX init: the DISCONNECT is the last packet
    }

    @Override
    public boolean next(int cmd, Buffer buffer) {
        // the peer's KEX packets are dropped unanswered; the exchange never completes
        return false;
    }

    @Override
    public Digest getHash() {
        throw new IllegalStateException("key exchange " + name + " was refused");
    }

    @Override
    public byte[] getH() {
        throw new IllegalStateException("key exchange " + name + " was refused");
    }

    @Override
    public byte[] getK() {
        throw new IllegalStateException("key exchange " + name + " was refused");
    }
}
