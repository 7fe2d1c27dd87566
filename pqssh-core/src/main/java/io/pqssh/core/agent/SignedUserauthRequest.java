package io.pqssh.core.agent;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * The data a client asks an agent to sign for {@code publickey} (RFC 4252 section 7) or OpenSSH's
 * {@code publickey-hostbound-v00@openssh.com}, as ssh-agent's parse_userauth_request reads it before it lets a
 * destination-constrained key sign: a non-empty session identifier, USERAUTH_REQUEST for service
 * {@code ssh-connection} with a signature, an algorithm of the key's type and the key itself, the server's host key for
 * the host-bound method, and nothing after.
 *
 * @param hostKey the server's host key blob (host-bound method only), or null
 */
record SignedUserauthRequest(byte[] sessionId, String user, byte[] hostKey) {
    static final int SSH_MSG_USERAUTH_REQUEST = 50;
    static final String HOSTBOUND = "publickey-hostbound-v00@openssh.com";

    /** Empty when {@code data} is anything else, or names another key than {@code keyBlob}. */
    static Optional<SignedUserauthRequest> parse(byte[] data, byte[] keyBlob) {
        try {
            SshReader r = new SshReader(data);
            byte[] sid = r.getString();
            int type = r.getByte();
            String user = r.getUtf8();
            String service = r.getUtf8();
            String method = r.getUtf8();
            int sigFollows = r.getByte();
            String alg = r.getUtf8();
            byte[] key = r.getString();
            if (sid.length == 0 || type != SSH_MSG_USERAUTH_REQUEST || sigFollows != 1
                    || !service.equals("ssh-connection") || !MessageDigest.isEqual(key, keyBlob)
                    || !sameKeyType(alg, keyBlob)) {
                return Optional.empty();
            }
            byte[] hostKey = null;
            if (method.equals(HOSTBOUND)) {
                hostKey = r.getString();
            } else if (!method.equals("publickey")) {
                return Optional.empty();
            }
            if (r.remaining() != 0) {
                return Optional.empty();
            }
            return Optional.of(new SignedUserauthRequest(sid, user, hostKey));
        } catch (MalformedMessageException e) {
            return Optional.empty();
        }
    }

    /** The algorithm names the key's type (an alias of it counts, as sshkey_type_from_name). */
    private static boolean sameKeyType(String alg, byte[] keyBlob) throws MalformedMessageException {
        String keyType = new String(new SshReader(keyBlob).getString(), StandardCharsets.UTF_8);
        if (alg.equals(keyType)) {
            return true;
        }
        Optional<SignatureKeyType> a = SignatureKeyType.forName(alg);
        return a.isPresent() && a.equals(SignatureKeyType.forName(keyType));
    }
}
