package io.pqssh.mina.internal.auth;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.PublicKey;
import java.util.Collection;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.server.auth.AbstractUserAuth;
import org.apache.sshd.server.auth.pubkey.PublickeyAuthenticator;
import org.apache.sshd.server.session.ServerSession;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemAuthServer;
import io.pqssh.core.auth.KemResponse;
import io.pqssh.core.auth.PendingChallenge;
import io.pqssh.core.auth.PendingChallengeLimiter;
import io.pqssh.core.auth.UnusableKemCredentialException;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.mina.auth.SessionKemKeyAuthorizer;
import io.pqssh.mina.internal.log.LogText;

/**
 * Server side of {@code publickey-kem} and {@code publickey-kem-and} for one request. MINA creates one instance per
 * USERAUTH_REQUEST and destroys it when the next request arrives or auth ends; the pending challenge itself lives in
 * the connection's {@link ConnectionChallenge}, so a connection never holds more than one slot, and the slot is freed
 * on answer, expiry ({@link KemServerSettings#challengeTimeout()}), a new request, and disconnection.
 */
public final class ServerKemUserAuth extends AbstractUserAuth {
    private final KemAuthMethod method;
    private final KemServerSettings settings;

    public ServerKemUserAuth(KemAuthMethod method, KemServerSettings settings) {
        super(method.wireName());
        this.method = method;
        this.settings = settings;
    }

    @Override
    protected Boolean doAuth(Buffer buffer, boolean init) throws Exception {
        return init ? onRequest(buffer) : onResponse(buffer);
    }

    private Boolean onRequest(Buffer buffer) throws Exception {
        ServerSession session = getServerSession();
        String user = LogText.escape(getUsername());
        KemAuthRequest request;
        try {
            request = KemAuthRequest.decodeMethodFields(getUsername(), getService(), method,
                    MinaBuffers.remaining(buffer));
        } catch (UnusableKemCredentialException e) {
            // as the reference server: a well-formed request with an unknown algorithm or a wrong key length fails
            log.info("{} for {} from {}: {}", method.wireName(), user, session.getClientAddress(), e.getMessage());
            return Boolean.FALSE;
        } catch (MalformedMessageException e) {
            log.warn("{} from {}: malformed request: {}", method.wireName(), session.getClientAddress(), e.getMessage());
            if (method == KemAuthMethod.PUBLICKEY_KEM) {
                // the reference server treats an encoding error in a KEM request as a protocol violation
                session.disconnect(SshConstants.SSH2_DISCONNECT_PROTOCOL_ERROR,
                        "malformed " + method.wireName() + " request");
            }
            return Boolean.FALSE;
        }
        KemAlgorithm algorithm = request.credential().algorithm();
        // a certificate is logged by its certified key until it is accepted (then sshd's -CERT text replaces it)
        AuthAttempt.recordKemKey(session, algorithm, request.credential().encapsulationKey());
        AuthAttempt.recordSubmethod(session, algorithm.sshName());
        if (!settings.allowedAlgorithms().contains(algorithm)) {
            log.info("{} for {} from {}: algorithm {} not allowed", method.wireName(), user,
                    session.getClientAddress(), LogText.escape(request.credential().alg()));
            return Boolean.FALSE;
        }
        if (!AuthAttempt.submethodAllowed(session, method.wireName(), algorithm.sshName())) {
            log.info("{} for {} from {}: {} is not the algorithm AuthenticationMethods asks for now",
                    method.wireName(), user, session.getClientAddress(), algorithm.sshName());
            return Boolean.FALSE;
        }
        String address = addressOf(session.getClientAddress());
        boolean authorized = settings.authorizer() instanceof SessionKemKeyAuthorizer withSession
                ? withSession.isAuthorized(session, getUsername(), request.credential(), address)
                : settings.authorizer().isAuthorized(getUsername(), request.credential(), address);
        if (!authorized) {
            log.info("{} for {} from {}: key not authorized", method.wireName(), user, address);
            return Boolean.FALSE;
        }
        if (method == KemAuthMethod.PUBLICKEY_KEM_AND && !verifyHybridSignature(session, request)) {
            return Boolean.FALSE;
        }
        ConnectionChallenge connection = ConnectionChallenge.of(session);
        // this connection's previous challenge (if any) goes before a new slot is asked for
        connection.release();
        PendingChallengeLimiter.Permit permit = settings.limiter().tryAcquire(address);
        if (permit == null) {
            log.warn("{} for {} from {}: refused, too many pending KEM challenges (global {}/{}, source {}/{})",
                    method.wireName(), user, address, settings.limiter().pending(),
                    settings.limiter().maxGlobal(), settings.limiter().pending(address),
                    settings.limiter().maxPerSource());
            return Boolean.FALSE;
        }
        KemAuthServer.IssuedChallenge issued;
        try {
            issued = new KemAuthServer(settings.random()).issue(session.getSessionId(), request);
        } catch (RuntimeException e) {
            permit.release();
            throw e;
        }
        connection.hold(issued.pending(), permit, session.getFactoryManager().getScheduledExecutorService(),
                settings.challengeTimeout());
        byte[] fields = settings.challengeInterceptor().apply(issued.challenge()).encodeFields();
        Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE, fields.length);
        out.putRawBytes(fields);
        session.writePacket(out);
        return null;
    }

    private Boolean onResponse(Buffer buffer) throws Exception {
        int cmd = buffer.getUByte();
        ConnectionChallenge connection = ConnectionChallenge.peek(getServerSession());
        PendingChallenge p = connection == null ? null : connection.take();
        if (cmd != KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE || p == null) {
            log.warn("{}: unexpected message {} while {}", method.wireName(), cmd,
                    p == null ? "no challenge is pending (none sent, or it expired)" : "waiting for a KEM response");
            if (p != null) {
                p.cancel();
            }
            return Boolean.FALSE;
        }
        String user = LogText.escape(getUsername());
        long age = System.nanoTime() - p.issuedAtNanos();
        if (age > settings.challengeTimeout().toNanos()) {
            p.cancel();
            log.info("{} for {}: response after the challenge expired", method.wireName(), user);
            return Boolean.FALSE;
        }
        byte[] response;
        try {
            response = KemResponse.decodeFields(MinaBuffers.remaining(buffer));
        } catch (MalformedMessageException e) {
            p.cancel();
            log.info("{} for {}: malformed response: {}", method.wireName(), user, e.getMessage());
            return Boolean.FALSE;
        }
        boolean ok = p.verify(response);
        if (!ok) {
            log.info("{} for {} from {}: wrong response", method.wireName(), user,
                    getServerSession().getClientAddress());
        }
        return ok;
    }

    private boolean verifyHybridSignature(ServerSession session, KemAuthRequest request) throws Exception {
        KemAuthRequest.SignaturePart sig = request.signature().orElseThrow();
        PublicKey key;
        try {
            key = new ByteArrayBuffer(sig.keyBlob()).getRawPublicKey();
        } catch (Exception e) {
            log.info("publickey-kem-and for {}: unreadable signature key: {}", LogText.escape(getUsername()),
                    LogText.escape(e.getMessage()));
            return false;
        }
        PublickeyAuthenticator authenticator = session.getPublickeyAuthenticator();
        if (authenticator == null || !authenticator.authenticate(getUsername(), key, session)) {
            log.info("publickey-kem-and for {}: signature key {} not authorized", LogText.escape(getUsername()),
                    KeyUtils.getFingerPrint(key));
            return false;
        }
        Collection<NamedFactory<Signature>> factories = session.getSignatureFactories();
        Signature verifier = NamedFactory.create(factories, sig.algorithm());
        if (verifier == null) {
            log.info("publickey-kem-and for {}: unsupported signature algorithm {}", LogText.escape(getUsername()),
                    LogText.escape(sig.algorithm()));
            return false;
        }
        verifier.initVerifier(session, key);
        verifier.update(session, request.hybridSignedData(session.getSessionId()));
        boolean ok;
        try {
            ok = verifier.verify(session, sig.signature());
        } catch (Exception e) {
            ok = false;
        }
        if (!ok) {
            log.info("publickey-kem-and for {}: bad signature", LogText.escape(getUsername()));
        }
        return ok;
    }

    static String addressOf(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return String.valueOf(address);
    }

    @Override
    public void destroy() {
        try {
            ServerSession session = getServerSession();
            ConnectionChallenge connection = session == null ? null : ConnectionChallenge.peek(session);
            if (connection != null) {
                connection.release();
            }
        } finally {
            super.destroy();
        }
    }
}
