package io.pqssh.mina.internal.kex;

import java.util.Optional;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.kex.KeyExchange;
import org.apache.sshd.common.kex.KeyExchangeFactory;
import org.apache.sshd.common.digest.Digest;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.agent.SessionBindings;

/**
 * What a client needs for {@code session-bind@openssh.com} ({@link SessionBindings}): the server's host key blob and
 * its signature over the exchange hash, exactly as sent in the reply of the connection's first key exchange
 * (KEXDH_REPLY, KEX_ECDH_REPLY, KEX_DH_GEX_REPLY: {@code string K_S, string f, string signature}). MINA keeps neither
 * after checking them, so the client's exchanges record them here.
 */
public final class InitialKexSignature {
    /** K_S and the signature of the first exchange; never replaced by a re-exchange. */
    private static final AttributeKey<byte[][]> FIRST_REPLY = new AttributeKey<>();
    private static final int SSH_MSG_KEXDH_REPLY = 31;
    private static final int SSH_MSG_KEX_DH_GEX_REPLY = 33;

    /** A bound session as the agent needs it. */
    public record Binding(byte[] hostKey, byte[] sessionId, byte[] signature) {
    }

    private InitialKexSignature() {
    }

    /** Records the reply's host key and signature if this is the session's first exchange's reply. */
    public static void record(Session session, int cmd, Buffer reply, boolean groupExchange) {
        if (cmd != (groupExchange ? SSH_MSG_KEX_DH_GEX_REPLY : SSH_MSG_KEXDH_REPLY)
                || session.getAttribute(FIRST_REPLY) != null || session.getSessionId() != null) {
            return;
        }
        Buffer peek = new ByteArrayBuffer(reply.array(), reply.rpos(), reply.available(), true);
        try {
            byte[] hostKey = peek.getBytes();
            peek.getBytes(); // the server's ephemeral value
            byte[] signature = peek.getBytes();
            session.setAttribute(FIRST_REPLY, new byte[][] {hostKey, signature});
        } catch (RuntimeException e) {
            // a malformed reply: MINA's own parsing fails the exchange
        }
    }

    /**
     * The host key blob (K_S) the server sent in the connection's first exchange, once its reply is in: for a host
     * certificate the certificate itself, which MINA replaces by the plain key when its own checks fail.
     */
    public static Optional<byte[]> firstHostKey(Session session) {
        byte[][] reply = session.getAttribute(FIRST_REPLY);
        return reply == null ? Optional.empty() : Optional.of(reply[0].clone());
    }

    /** The binding of an established session; empty before the first exchange has finished. */
    public static Optional<Binding> of(Session session) {
        byte[][] reply = session.getAttribute(FIRST_REPLY);
        byte[] sid = session.getSessionId();
        if (reply == null || sid == null) {
            return Optional.empty();
        }
        return Optional.of(new Binding(reply[0].clone(), sid, reply[1].clone()));
    }

    /** {@code factory}'s exchanges, recording their first reply. */
    public static KeyExchangeFactory recording(KeyExchangeFactory factory, boolean groupExchange) {
        return new KeyExchangeFactory() {
            @Override
            public String getName() {
                return factory.getName();
            }

            @Override
            public KeyExchange createKeyExchange(Session session) throws Exception {
                KeyExchange kex = factory.createKeyExchange(session);
                return new KeyExchange() {
                    @Override
                    public String getName() {
                        return kex.getName();
                    }

                    @Override
                    public Session getSession() {
                        return kex.getSession();
                    }

                    @Override
                    public void init(byte[] v_s, byte[] v_c, byte[] i_s, byte[] i_c) throws Exception {
                        kex.init(v_s, v_c, i_s, i_c);
                    }

                    @Override
                    public boolean next(int cmd, Buffer buffer) throws Exception {
                        record(session, cmd, buffer, groupExchange);
                        return kex.next(cmd, buffer);
                    }

                    @Override
                    public Digest getHash() {
                        return kex.getHash();
                    }

                    @Override
                    public byte[] getH() {
                        return kex.getH();
                    }

                    @Override
                    public byte[] getK() {
                        return kex.getK();
                    }
                };
            }
        };
    }
}
