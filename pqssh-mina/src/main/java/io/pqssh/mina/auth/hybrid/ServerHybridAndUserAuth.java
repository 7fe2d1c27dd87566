package io.pqssh.mina.auth.hybrid;

import java.security.PublicKey;
import java.util.List;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.auth.pubkey.UserAuthPublicKey;
import org.apache.sshd.server.session.ServerSession;

/**
 * Server side of {@code publickey-hybrid-and}: MINA's {@code publickey} (authorization through the server's
 * {@code PublickeyAuthenticator}, PK_OK, signature check) with two changes. Requests whose algorithm or key is not
 * an AND composite are refused before anything else happens, and the signed data carries this method's name.
 */
public class ServerHybridAndUserAuth extends UserAuthPublicKey {
    public ServerHybridAndUserAuth(List<NamedFactory<Signature>> factories) {
        super(factories);
    }

    @Override
    public Boolean doAuth(Buffer buffer, boolean init) throws Exception {
        int start = buffer.rpos();
        buffer.getBoolean();
        String alg = buffer.getString();
        byte[] blob = buffer.getBytes();
        String keyType = new org.apache.sshd.common.util.buffer.ByteArrayBuffer(blob).getString();
        buffer.rpos(start);
        if (!HybridAnd.accepts(alg) || !HybridAnd.accepts(keyType) || !alg.equals(keyType)) {
            log.info("{} for {}: refused {} key (algorithm {}): only AND composite keys are accepted", HybridAnd.NAME,
                    getUsername(), keyType, alg);
            return Boolean.FALSE;
        }
        return super.doAuth(buffer, init);
    }

    @Override
    protected boolean verifySignature(ServerSession session, String username, String alg, PublicKey key,
            Buffer buffer, Signature verifier, byte[] sig) throws Exception {
        // MINA's version signs under getName(), which is fixed to "publickey" by the superclass constructor
        byte[] blob = buffer.getBytes();
        verifier.update(session, HybridAnd.signedData(session.getSessionId(), username, getService(), alg, blob));
        return verifier.verify(session, sig);
    }
}
