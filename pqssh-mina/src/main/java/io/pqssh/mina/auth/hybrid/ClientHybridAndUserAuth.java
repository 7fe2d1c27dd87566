package io.pqssh.mina.auth.hybrid;

import java.security.KeyPair;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.sshd.client.auth.AbstractUserAuth;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

/**
 * Client side of {@code publickey-hybrid-and}. Tries the session's registered AND composite keys in order, each
 * once: an unsigned query, then on PK_OK the signed request (or, with {@code signDirectly}, the signed request at
 * once, as RFC 4252 §7 allows). Keys of other types are never offered under this method.
 *
 * <p>Not a subclass of MINA's client {@code UserAuthPublicKey}: that class writes its fixed name ("publickey") into
 * the request and the signed data inside methods too large to override piecemeal.
 */
public class ClientHybridAndUserAuth extends AbstractUserAuth {
    private final boolean signDirectly;
    private Iterator<KeyPair> keys;
    private KeyPair current;
    private String algorithm;

    public ClientHybridAndUserAuth(boolean signDirectly) {
        super(HybridAnd.NAME);
        this.signDirectly = signDirectly;
    }

    @Override
    public void init(ClientSession session, String service) throws Exception {
        super.init(session, service);
        List<KeyPair> usable = new ArrayList<>();
        for (KeyPair kp : session.getRegisteredIdentities().loadKeys(session)) {
            if (offers(kp)) {
                usable.add(kp);
            }
        }
        keys = usable.iterator();
    }

    /** Whether a registered key is offered under this method: AND composites only. */
    protected boolean offers(KeyPair kp) {
        return HybridAnd.accepts(kp.getPublic());
    }

    @Override
    protected boolean sendAuthDataRequest(ClientSession session, String service) throws Exception {
        if (keys == null || !keys.hasNext()) {
            current = null;
            log.debug("{}: no (more) AND composite keys to offer", HybridAnd.NAME);
            return false;
        }
        current = keys.next();
        algorithm = KeyUtils.getKeyType(current.getPublic());
        if (signDirectly) {
            sendSigned(session, service);
            return true;
        }
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_USERAUTH_REQUEST);
        b.putString(session.getUsername());
        b.putString(service);
        b.putString(HybridAnd.NAME);
        b.putBoolean(false);
        b.putString(algorithm);
        b.putBytes(blob(current.getPublic()));
        session.writePacket(b);
        return true;
    }

    @Override
    protected boolean processAuthDataRequest(ClientSession session, String service, Buffer buffer) throws Exception {
        int cmd = buffer.getUByte();
        if (cmd != SshConstants.SSH_MSG_USERAUTH_PK_OK || current == null) {
            throw new IllegalStateException(HybridAnd.NAME + ": unexpected " + SshConstants.getCommandMessageName(cmd));
        }
        String alg = buffer.getString();
        PublicKey key = buffer.getPublicKey();
        if (!algorithm.equals(alg) || !KeyUtils.compareKeys(key, current.getPublic())) {
            throw new IllegalStateException(HybridAnd.NAME + ": PK_OK for " + alg + " " + KeyUtils.getFingerPrint(key)
                    + ", but " + algorithm + " " + KeyUtils.getFingerPrint(current.getPublic()) + " was offered");
        }
        sendSigned(session, service);
        return true;
    }

    private void sendSigned(ClientSession session, String service) throws Exception {
        byte[] blob = blob(current.getPublic());
        String user = session.getUsername();
        Signature signer = NamedFactory.create(session.getSignatureFactories(), algorithm);
        if (signer == null) {
            throw new IllegalStateException(HybridAnd.NAME + ": no signature factory for " + algorithm);
        }
        signer.initSigner(session, current.getPrivate());
        signer.update(session, HybridAnd.signedData(session.getSessionId(), user, service, algorithm, blob));
        byte[] raw = signer.sign(session);
        Buffer sig = new ByteArrayBuffer(raw.length + algorithm.length() + 16, false);
        sig.putString(algorithm);
        sig.putBytes(raw);
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_USERAUTH_REQUEST, blob.length + raw.length + 256);
        b.putString(user);
        b.putString(service);
        b.putString(HybridAnd.NAME);
        b.putBoolean(true);
        b.putString(algorithm);
        b.putBytes(blob);
        b.putBytes(sig.getCompactData());
        session.writePacket(b);
    }

    private static byte[] blob(PublicKey key) {
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putRawPublicKey(key);
        return b.getCompactData();
    }

    @Override
    public void destroy() {
        current = null;
        keys = null;
        super.destroy();
    }
}
