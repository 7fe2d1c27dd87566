package io.pqssh.mina;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.apache.sshd.client.auth.AbstractUserAuth;
import org.apache.sshd.client.auth.AbstractUserAuthFactory;
import org.apache.sshd.client.auth.UserAuth;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.util.buffer.Buffer;

import io.pqssh.core.auth.ChallengeRejectedException;
import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.kem.KemPrivateKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * A test-only client method that speaks {@code publickey-kem} on the wire but lets the test decide what the request
 * carries and what is sent back for a challenge: the honest response, a crafted one, several, or nothing at all
 * (the challenge then stays pending on the server). It counts what it saw, so a test can assert that the server
 * never issued a challenge.
 */
final class RogueKemClientAuth extends AbstractUserAuth {
    /** Methods this rogue already sent a request for on a session (one attempt per session, like the real one). */
    private static final AttributeKey<Boolean> SENT_KEM = new AttributeKey<>();
    private static final AttributeKey<Boolean> SENT_KEM_AND = new AttributeKey<>();

    /** A challenge as received, with the response an honest client would send (null if it would refuse). */
    record Received(ClientSession session, KemAuthRequest request, KemChallenge challenge, byte[] honest) {
    }

    /** Decides what to send for a challenge. An empty list means: answer nothing, keep the challenge pending. */
    @FunctionalInterface
    interface Responder {
        List<byte[]> onChallenge(Received received);
    }

    /** Factory, script and counters for one test. */
    static final class Factory extends AbstractUserAuthFactory {
        final KemAuthMethod method;
        final KemPrivateKey key;
        final String alg;
        /** Builds the request's method-specific fields (after the method name); null sends the correct ones. */
        volatile Function<KemCredential, byte[]> rawFields;
        volatile Responder responder = r -> r.honest() == null ? List.of() : List.of(r.honest());

        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger challenges = new AtomicInteger();
        final AtomicInteger responses = new AtomicInteger();
        final AtomicInteger otherMessages = new AtomicInteger();
        final List<Received> received = new CopyOnWriteArrayList<>();

        Factory(KemPrivateKey key) {
            this(KemAuthMethod.PUBLICKEY_KEM, key, key.algorithm().sshName());
        }

        Factory(KemAuthMethod method, KemPrivateKey key, String alg) {
            super(method.wireName());
            this.method = method;
            this.key = Objects.requireNonNull(key);
            this.alg = alg;
        }

        Factory respond(Responder r) {
            this.responder = Objects.requireNonNull(r);
            return this;
        }

        Factory rawRequest(Function<KemCredential, byte[]> fields) {
            this.rawFields = fields;
            return this;
        }

        /** Sends the response unchanged but transformed by {@code f}. */
        Factory transform(Function<byte[], byte[]> f) {
            return respond(r -> List.of(f.apply(r.honest())));
        }

        @Override
        public UserAuth createUserAuth(ClientSession session) {
            return new RogueKemClientAuth(this);
        }
    }

    private final Factory f;
    private KemAuthRequest sent;

    private RogueKemClientAuth(Factory f) {
        super(f.method.wireName());
        this.f = f;
    }

    @Override
    protected boolean sendAuthDataRequest(ClientSession session, String service) throws Exception {
        AttributeKey<Boolean> once = f.method == KemAuthMethod.PUBLICKEY_KEM ? SENT_KEM : SENT_KEM_AND;
        if (session.getAttribute(once) != null) {
            return false;
        }
        session.setAttribute(once, Boolean.TRUE);
        KemCredential cred = new KemCredential(f.alg, f.key.publicKey());
        byte[] fields;
        Function<KemCredential, byte[]> raw = f.rawFields;
        if (raw != null) {
            fields = raw.apply(cred);
        } else {
            if (f.method != KemAuthMethod.PUBLICKEY_KEM) {
                throw new IllegalStateException("the rogue builds only publickey-kem requests itself");
            }
            sent = KemAuthRequest.kem(session.getUsername(), service, cred);
            byte[] payload = sent.encode();
            // skip byte 50, user, service and method name: what remains are the method's own fields
            SshReader in = new SshReader(payload);
            in.getByte();
            in.getString();
            in.getString();
            in.getString();
            fields = in.getRaw(in.remaining());
        }
        f.requests.incrementAndGet();
        writeRequest(session, session.getUsername(), service, f.method.wireName(), fields);
        return true;
    }

    @Override
    protected boolean processAuthDataRequest(ClientSession session, String service, Buffer buffer)
            throws Exception {
        int cmd = buffer.getUByte();
        if (cmd != KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE) {
            f.otherMessages.incrementAndGet();
            return false;
        }
        f.challenges.incrementAndGet();
        byte[] rest = new byte[buffer.available()];
        buffer.getRawBytes(rest);
        KemChallenge challenge;
        try {
            challenge = KemChallenge.decodeFields(new SshReader(rest));
        } catch (MalformedMessageException e) {
            return false;
        }
        byte[] honest = null;
        if (sent != null) {
            try {
                honest = KemAuthClient.respond(session.getSessionId(), sent, challenge, f.key);
            } catch (ChallengeRejectedException e) {
                honest = null;
            }
        }
        Received r = new Received(session, sent, challenge, honest);
        f.received.add(r);
        for (byte[] response : f.responder.onChallenge(r)) {
            writeResponse(session, response);
            f.responses.incrementAndGet();
        }
        return true;
    }

    /** SSH_MSG_USERAUTH_REQUEST with the given method and raw method-specific fields. */
    static void writeRequest(ClientSession session, String user, String service, String method, byte[] fields)
            throws java.io.IOException {
        Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_REQUEST, 64 + fields.length);
        out.putString(user);
        out.putString(service);
        out.putString(method);
        out.putRawBytes(fields);
        session.writePacket(out);
    }

    /** SSH_MSG_USERAUTH_KEM_RESPONSE carrying {@code string response}, whatever its length. */
    static void writeResponse(ClientSession session, byte[] response) throws java.io.IOException {
        Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE, 8 + response.length);
        out.putBytes(response);
        session.writePacket(out);
    }
}
