package io.pqssh.client;

import java.util.ArrayList;
import java.util.List;

import org.apache.sshd.client.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.future.AuthFuture;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.session.ClientUserAuthService;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.session.Session;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.mina.auth.ClientKemUserAuthFactory;

/**
 * Client {@code ssh-userauth} service that sends the first real method request instead of MINA's {@code none}
 * probe when the session already holds a credential for one of the client's methods (a KEM identity, a registered
 * key or a password). It saves one round trip per login.
 *
 * <p>MINA's {@code tryNext} walks the client methods that also appear in {@code serverMethods}, which it normally
 * learns from the server's FAILURE reply to {@code none}. Here {@code serverMethods} starts as the client's own list
 * (an optimistic guess); the first method with a credential sends its request. If the server answers FAILURE, the
 * inherited code replaces {@code serverMethods} by the server's list and continues with the next client method the
 * server offers, exactly as after a {@code none} reply. Without any credential the ordinary {@code none} probe is
 * sent (a server may accept {@code none}, or answer with keyboard-interactive etc.).
 *
 * <p>MINA already sends the first userauth request right after SERVICE_REQUEST, without waiting for SERVICE_ACCEPT
 * (ClientSessionImpl starts the service when it writes the request), so this request is pipelined with it.
 */
public class DirectUserAuthService extends ClientUserAuthService {
    public DirectUserAuthService(Session s) {
        super(s);
    }

    @Override
    protected IoWriteFuture sendInitialAuthRequest(ClientSession session, String service) throws java.io.IOException {
        AuthFuture future = authFutureHolder.get();
        if (future == null || !hasCredential(session, clientMethods)) {
            return super.sendInitialAuthRequest(session, service);
        }
        if (log.isDebugEnabled()) {
            log.debug("auth({})[{}] skip the 'none' probe, try {} directly", session, service, clientMethods);
        }
        serverMethods = new ArrayList<>(clientMethods);
        try {
            tryNext(0, future);
        } catch (java.io.IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new java.io.IOException(e.getMessage(), e);
        }
        return null;
    }

    /** Whether one of {@code methods} has something to send without asking the server first. */
    static boolean hasCredential(ClientSession session, List<String> methods) {
        boolean key = false;
        boolean andComposite = false;
        boolean password = false;
        try {
            for (Object o : session.getRegisteredIdentities().loadIdentities(session)) {
                key |= o instanceof java.security.KeyPair;
                andComposite |= o instanceof java.security.KeyPair kp
                        && io.pqssh.mina.auth.hybrid.HybridAnd.accepts(kp.getPublic());
                password |= o instanceof String;
            }
        } catch (java.io.IOException | java.security.GeneralSecurityException e) {
            return false; // let the ordinary none probe and MINA's own key loading report it
        }
        for (String m : methods) {
            if ((KemAuthMethod.PUBLICKEY_KEM.wireName().equals(m) || KemAuthMethod.PUBLICKEY_KEM_AND.wireName().equals(m))
                    && session.getAttribute(ClientKemUserAuthFactory.IDENTITY) != null) {
                return true;
            }
            if ((UserAuthPublicKeyFactory.NAME.equals(m) && key) || (UserAuthPasswordFactory.NAME.equals(m) && password)
                    || (io.pqssh.mina.auth.hybrid.HybridAnd.NAME.equals(m) && andComposite)) {
                return true;
            }
        }
        return false;
    }
}
