package io.pqssh.mina.auth;

import java.security.KeyPair;
import java.util.HashSet;
import java.util.Set;

import org.apache.sshd.client.auth.AbstractUserAuth;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.auth.ChallengeRejectedException;
import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.auth.KemResponse;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.mina.internal.auth.MinaBuffers;

/**
 * Client side of {@code publickey-kem} / {@code publickey-kem-and}. Each method is tried at most once per
 * connection: MINA would otherwise re-send the request after every FAILURE that still lists the method.
 */
public final class ClientKemUserAuth extends AbstractUserAuth {
    /** Methods already tried on this session. */
    public static final AttributeKey<Set<String>> TRIED = new AttributeKey<>();
    /** Credentials (encapsulation keys, base64) whose challenge this connection already answered. */
    public static final AttributeKey<Set<String>> ANSWERED = new AttributeKey<>();
    /** Why the last challenge was refused by the client, for the CLI's error message. */
    public static final AttributeKey<String> REJECTION = new AttributeKey<>();

    /** Something to write right behind the KEM response, in the same flight (the client's early channel open). */
    @FunctionalInterface
    public interface ResponseFollower {
        void afterResponse(ClientSession session) throws java.io.IOException;
    }

    /** Session attribute: the {@link ResponseFollower} to run after the KEM response is written. */
    public static final AttributeKey<ResponseFollower> AFTER_RESPONSE = new AttributeKey<>();

    private final KemAuthMethod method;
    private final KemClientIdentity identity;
    private KemAuthRequest sent;

    ClientKemUserAuth(KemAuthMethod method, KemClientIdentity identity) {
        super(method.wireName());
        this.method = method;
        this.identity = identity;
    }

    @Override
    protected boolean sendAuthDataRequest(ClientSession session, String service) throws Exception {
        Set<String> tried = session.computeAttributeIfAbsent(TRIED, k -> new HashSet<>());
        if (identity == null || !tried.add(method.wireName())) {
            return false;
        }
        if (method == KemAuthMethod.PUBLICKEY_KEM_AND && identity.signatureKey().isEmpty()) {
            log.debug("publickey-kem-and: no signature key configured");
            return false;
        }
        KemCredential cred = identity.credential();
        String user = session.getUsername();
        if (method == KemAuthMethod.PUBLICKEY_KEM) {
            sent = KemAuthRequest.kem(user, service, cred);
        } else {
            sent = KemAuthRequest.hybrid(user, service, sign(session, service, user, cred), cred);
        }
        byte[] payload = sent.encode();
        Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_REQUEST, payload.length);
        out.putRawBytes(payload, 1, payload.length - 1);
        session.writePacket(out);
        return true;
    }

    private KemAuthRequest.SignaturePart sign(ClientSession session, String service, String user,
            KemCredential cred) throws Exception {
        KeyPair kp = identity.signatureKey().orElseThrow();
        String keyType = KeyUtils.getKeyType(kp);
        String sigAlg = KeyUtils.getSignatureAlgorithm(keyType, kp.getPublic());
        Signature signer = NamedFactory.create(session.getSignatureFactories(),
                sigAlg);
        if (signer == null) {
            throw new IllegalStateException("no signature support for " + sigAlg);
        }
        ByteArrayBuffer blob = new ByteArrayBuffer();
        blob.putRawPublicKey(kp.getPublic());
        byte[] keyBlob = blob.getCompactData();
        signer.initSigner(session, kp.getPrivate());
        signer.update(session, KemAuthRequest.hybridSignedData(session.getSessionId(), user, service, sigAlg,
                keyBlob, cred));
        byte[] raw = signer.sign(session);
        ByteArrayBuffer sigBlob = new ByteArrayBuffer();
        sigBlob.putString(sigAlg);
        sigBlob.putBytes(raw);
        return new KemAuthRequest.SignaturePart(sigAlg, keyBlob, sigBlob.getCompactData());
    }

    @Override
    protected boolean processAuthDataRequest(ClientSession session, String service, Buffer buffer)
            throws Exception {
        int cmd = buffer.getUByte();
        if (cmd != KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE || sent == null) {
            log.warn("{}: unexpected message {}", method.wireName(), cmd);
            return false;
        }
        KemChallenge challenge;
        try {
            challenge = KemChallenge.decodeFields(MinaBuffers.remaining(buffer));
        } catch (MalformedMessageException e) {
            reject(session, "malformed KEM challenge: " + e.getMessage());
            return false;
        }
        // each decapsulation answers a ciphertext the server chose: answer one per credential per connection, so a
        // malicious server cannot use the client as a decapsulation oracle (issue 11, section 3)
        String credential = java.util.Base64.getEncoder().encodeToString(identity.publicKey());
        Set<String> answered = session.computeAttributeIfAbsent(ANSWERED, k -> new HashSet<>());
        if (!answered.add(credential)) {
            String why = method.wireName() + ": a second KEM challenge for the same credential on this connection";
            session.setAttribute(REJECTION, why);
            session.disconnect(org.apache.sshd.common.SshConstants.SSH2_DISCONNECT_PROTOCOL_ERROR, why);
            throw new org.apache.sshd.common.SshException(
                    org.apache.sshd.common.SshConstants.SSH2_DISCONNECT_PROTOCOL_ERROR, why);
        }
        byte[] response;
        try {
            response = identity.respond(session, sent, challenge);
        } catch (ChallengeRejectedException | java.io.IOException e) {
            reject(session, e.getMessage());
            return false;
        }
        Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE, 4 + response.length);
        out.putBytes(response);
        java.util.Arrays.fill(response, (byte) 0);
        session.writePacket(out);
        ResponseFollower follower = session.getAttribute(AFTER_RESPONSE);
        if (follower != null) {
            follower.afterResponse(session);
        }
        return true;
    }

    /**
     * A FAILURE that does not list this method means "not at this step" (e.g. {@code publickey,publickey-kem} before
     * the first step is done), not "your key was refused": the method may be tried again once the server lists it.
     */
    @Override
    public void signalAuthMethodFailure(ClientSession session, String service, boolean partial,
            java.util.List<String> serverMethods, Buffer buffer) throws Exception {
        if (!serverMethods.contains(method.wireName())) {
            Set<String> tried = session.getAttribute(TRIED);
            if (tried != null) {
                tried.remove(method.wireName());
            }
        }
    }

    private void reject(ClientSession session, String reason) {
        log.warn("{}: challenge refused, no response sent: {}", method.wireName(), reason);
        session.setAttribute(REJECTION, reason);
    }
}
