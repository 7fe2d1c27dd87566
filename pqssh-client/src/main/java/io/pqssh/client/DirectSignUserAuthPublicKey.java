package io.pqssh.client;

import java.security.KeyPair;
import java.security.PublicKey;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.apache.sshd.client.auth.pubkey.KeyPairIdentity;
import org.apache.sshd.client.auth.pubkey.PublicKeyAuthenticationReporter;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKey;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.extension.DefaultClientKexExtensionHandler;
import org.apache.sshd.common.kex.extension.parser.HostBoundPubkeyAuthentication;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * {@code publickey} that sends the signed request at once (RFC 4252 §7 allows it) instead of the unsigned query
 * and waiting for PK_OK: one round trip less per key the server accepts, at the price of one signature per key the
 * server does not accept. Only for keys held in memory ({@link KeyPairIdentity}): an agent's key is offered with the
 * unsigned query first, as OpenSSH does, since its signature may need its user's confirmation. Same key and algorithm order as MINA's {@link UserAuthPublicKey}; a failure moves on to
 * the key's next algorithm (unless the server's {@code server-sig-algs} listed the rejected one) and then to the
 * next key. A stray PK_OK (a server answering a signed request with it) is handled by the inherited code.
 */
public class DirectSignUserAuthPublicKey extends UserAuthPublicKey {
    public DirectSignUserAuthPublicKey(List<NamedFactory<Signature>> factories) {
        super(factories);
    }

    @Override
    protected boolean sendAuthDataRequest(ClientSession session, String service) throws Exception {
        PublicKeyAuthenticationReporter reporter = session.getPublicKeyAuthenticationReporter();
        String algo = current == null ? null : currentAlgorithms.poll();
        if (algo != null && chosenAlgorithm != null) {
            Set<String> known = session.getAttribute(DefaultClientKexExtensionHandler.SERVER_ALGORITHMS);
            if (known != null && known.contains(chosenAlgorithm)) {
                algo = null; // the server knew the algorithm and still refused: the key is the problem
            }
        }
        KeyPair keyPair = current == null ? null : current.getKeyIdentity();
        while (algo == null) {
            current = resolveAttemptedPublicKeyIdentity(session, service, reporter);
            currentAlgorithms.clear();
            chosenAlgorithm = null;
            if (current == null) {
                if (reporter != null) {
                    reporter.signalAuthenticationExhausted(session, service);
                }
                return false;
            }
            keyPair = current.getKeyIdentity();
            String keyType = KeyUtils.getKeyType(keyPair.getPublic());
            Set<String> aliases = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
            aliases.addAll(KeyUtils.getAllEquivalentKeyTypes(keyType));
            aliases.add(keyType);
            List<NamedFactory<Signature>> fs = getSignatureFactories();
            if (fs == null || fs.isEmpty()) {
                fs = session.getSignatureFactories();
            }
            if (fs != null) {
                for (NamedFactory<Signature> f : fs) {
                    if (aliases.contains(f.getName())) {
                        currentAlgorithms.add(f.getName());
                    }
                }
            }
            algo = currentAlgorithms.poll();
            if (algo == null) {
                algo = getDefaultSignatureAlgorithm(session, service, current, keyPair, keyType);
                if (algo != null && algo.isEmpty()) {
                    algo = null;
                }
                if (algo == null && reporter != null) {
                    reporter.signalIdentitySkipped(session, service, keyPair);
                }
            }
        }
        String name = getName();
        Integer hostBound = session.getAttribute(DefaultClientKexExtensionHandler.HOSTBOUND_AUTHENTICATION);
        PublicKey serverKey = null;
        if (hostBound != null && hostBound.intValue() == 0) {
            name = HostBoundPubkeyAuthentication.AUTH_NAME;
            serverKey = session.getServerKey();
        }
        PublicKey pubKey = keyPair.getPublic();
        if (!(current instanceof KeyPairIdentity)) {
            // an agent's key: signing could ask its user to confirm (ssh-add -c) for a key the server then refuses,
            // so ask first, as OpenSSH does; the inherited PK_OK handling signs once the server accepts the key
            if (reporter != null) {
                reporter.signalAuthenticationAttempt(session, service, keyPair, algo);
            }
            chosenAlgorithm = algo;
            Buffer query = session.createBuffer(SshConstants.SSH_MSG_USERAUTH_REQUEST);
            query.putString(session.getUsername());
            query.putString(service);
            query.putString(name);
            query.putBoolean(false);
            query.putString(algo);
            query.putPublicKey(pubKey);
            if (serverKey != null) {
                query.putPublicKey(serverKey);
            }
            setCancellable(true);
            session.writePacket(query);
            return true;
        }
        if (log.isDebugEnabled()) {
            log.debug("sendAuthDataRequest({})[{}] signed {} request type={} fingerprint={} (no PK_OK probe)", session,
                    service, name, algo, KeyUtils.getFingerPrint(pubKey));
        }
        if (reporter != null) {
            reporter.signalAuthenticationAttempt(session, service, keyPair, algo);
        }
        chosenAlgorithm = algo;
        String user = session.getUsername();
        Buffer buffer = session.createBuffer(SshConstants.SSH_MSG_USERAUTH_REQUEST);
        buffer.putString(user);
        buffer.putString(service);
        buffer.putString(name);
        buffer.putBoolean(true);
        buffer.putString(algo);
        buffer.putPublicKey(pubKey);
        if (serverKey != null) {
            buffer.putPublicKey(serverKey);
        }
        byte[] sig = appendSignature(session, service, name, user, algo, pubKey, serverKey, buffer);
        if (reporter != null) {
            reporter.signalSignatureAttempt(session, service, keyPair, algo, sig);
        }
        setCancellable(false);
        session.writePacket(buffer);
        return true;
    }

    /** Factory for {@link DirectSignUserAuthPublicKey}; method name stays {@code publickey}. */
    public static final class Factory extends UserAuthPublicKeyFactory {
        @Override
        public UserAuthPublicKey createUserAuth(ClientSession session) throws java.io.IOException {
            return new DirectSignUserAuthPublicKey(getSignatureFactories());
        }
    }
}
