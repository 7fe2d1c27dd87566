package io.pqssh.mina.auth;

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
import io.pqssh.core.wire.MalformedMessageException;

/**
 * Server side of {@code publickey-kem} and {@code publickey-kem-and} for one request. MINA creates one instance per
 * USERAUTH_REQUEST and destroys it when the next request arrives, the session closes or auth ends, which is exactly
 * the lifetime of a pending challenge: {@link #destroy()} cancels it and frees its slot.
 */
public final class ServerKemUserAuth extends AbstractUserAuth {
    private final KemAuthMethod method;
    private final KemServerSettings settings;
    private PendingChallenge pending;
    private PendingChallengeLimiter.Permit permit;
    private boolean closeHookInstalled;

    ServerKemUserAuth(KemAuthMethod method, KemServerSettings settings) {
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
        KemAuthRequest request;
        try {
            request = KemAuthRequest.decodeMethodFields(getUsername(), getService(), method,
                    MinaBuffers.remaining(buffer));
        } catch (MalformedMessageException e) {
            log.warn("{} from {}: malformed request: {}", method.wireName(), session.getClientAddress(), e.getMessage());
            if (method == KemAuthMethod.PUBLICKEY_KEM) {
                // the reference server treats a malformed KEM request as a protocol violation
                session.disconnect(SshConstants.SSH2_DISCONNECT_PROTOCOL_ERROR,
                        "malformed " + method.wireName() + " request");
            }
            return Boolean.FALSE;
        }
        if (!settings.allowedAlgorithms().contains(request.credential().algorithm())) {
            log.info("{} for {} from {}: algorithm {} not allowed", method.wireName(), getUsername(),
                    session.getClientAddress(), request.credential().alg());
            return Boolean.FALSE;
        }
        String address = addressOf(session.getClientAddress());
        boolean authorized = settings.authorizer() instanceof SessionKemKeyAuthorizer withSession
                ? withSession.isAuthorized(session, getUsername(), request.credential(), address)
                : settings.authorizer().isAuthorized(getUsername(), request.credential(), address);
        if (!authorized) {
            log.info("{} for {} from {}: key not authorized", method.wireName(), getUsername(), address);
            return Boolean.FALSE;
        }
        if (method == KemAuthMethod.PUBLICKEY_KEM_AND && !verifyHybridSignature(session, request)) {
            return Boolean.FALSE;
        }
        permit = settings.limiter().tryAcquire(address);
        if (permit == null) {
            log.warn("{} for {} from {}: refused, too many pending KEM challenges (global {}/{}, source {}/{})",
                    method.wireName(), getUsername(), address, settings.limiter().pending(),
                    settings.limiter().maxGlobal(), settings.limiter().pending(address),
                    settings.limiter().maxPerSource());
            return Boolean.FALSE;
        }
        KemAuthServer.IssuedChallenge issued = new KemAuthServer(settings.random())
                .issue(session.getSessionId(), request);
        pending = issued.pending();
        if (!closeHookInstalled) {
            // MINA does not destroy the current method when the connection drops: free the slot ourselves
            closeHookInstalled = true;
            session.addCloseFutureListener(f -> release());
        }
        byte[] fields = settings.challengeInterceptor().apply(issued.challenge()).encodeFields();
        Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE, fields.length);
        out.putRawBytes(fields);
        session.writePacket(out);
        return null;
    }

    private Boolean onResponse(Buffer buffer) throws Exception {
        int cmd = buffer.getUByte();
        if (cmd != KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE || pending == null) {
            log.warn("{}: unexpected message {} while {}", method.wireName(), cmd,
                    pending == null ? "no challenge is pending" : "waiting for a KEM response");
            release();
            return Boolean.FALSE;
        }
        PendingChallenge p = pending;
        try {
            long age = System.nanoTime() - p.issuedAtNanos();
            if (age > settings.challengeTimeout().toNanos()) {
                log.info("{} for {}: response after the challenge expired", method.wireName(), getUsername());
                return Boolean.FALSE;
            }
            byte[] response;
            try {
                response = KemResponse.decodeFields(MinaBuffers.remaining(buffer));
            } catch (MalformedMessageException e) {
                log.info("{} for {}: malformed response: {}", method.wireName(), getUsername(), e.getMessage());
                return Boolean.FALSE;
            }
            boolean ok = p.verify(response);
            if (!ok) {
                log.info("{} for {} from {}: wrong response", method.wireName(), getUsername(),
                        getServerSession().getClientAddress());
            }
            return ok;
        } finally {
            release();
        }
    }

    private boolean verifyHybridSignature(ServerSession session, KemAuthRequest request) throws Exception {
        KemAuthRequest.SignaturePart sig = request.signature().orElseThrow();
        PublicKey key;
        try {
            key = new ByteArrayBuffer(sig.keyBlob()).getRawPublicKey();
        } catch (Exception e) {
            log.info("publickey-kem-and for {}: unreadable signature key: {}", getUsername(), e.getMessage());
            return false;
        }
        PublickeyAuthenticator authenticator = session.getPublickeyAuthenticator();
        if (authenticator == null || !authenticator.authenticate(getUsername(), key, session)) {
            log.info("publickey-kem-and for {}: signature key {} not authorized", getUsername(),
                    KeyUtils.getFingerPrint(key));
            return false;
        }
        Collection<NamedFactory<Signature>> factories = session.getSignatureFactories();
        Signature verifier = NamedFactory.create(factories, sig.algorithm());
        if (verifier == null) {
            log.info("publickey-kem-and for {}: unsupported signature algorithm {}", getUsername(), sig.algorithm());
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
            log.info("publickey-kem-and for {}: bad signature", getUsername());
        }
        return ok;
    }

    static String addressOf(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return String.valueOf(address);
    }

    private synchronized void release() {
        if (pending != null) {
            pending.cancel();
            pending = null;
        }
        if (permit != null) {
            permit.release();
            permit = null;
        }
    }

    @Override
    public void destroy() {
        try {
            release();
        } finally {
            super.destroy();
        }
    }
}
