package io.pqssh.mina.auth.hybrid;

import java.security.PublicKey;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.sig.SignatureKeyType;

/**
 * {@code publickey-hybrid-and}: RFC 4252 {@code publickey} under another method name, restricted to the Ed25519
 * "AND" composite key types (docs/lab-handshake.md). The method name is part of the signed data, so a signature
 * made for one method is never accepted by the other.
 */
public final class HybridAnd {
    public static final String NAME = "publickey-hybrid-and";

    private HybridAnd() {
    }

    /** Whether {@code name} is a key or signature algorithm name this method accepts. */
    public static boolean accepts(String name) {
        return name != null && SignatureKeyType.forName(name).map(SignatureKeyType::andComposite).orElse(false);
    }

    public static boolean accepts(PublicKey key) {
        return key != null && accepts(KeyUtils.getKeyType(key));
    }

    /**
     * The data signed (RFC 4252 §7): string session id, byte SSH_MSG_USERAUTH_REQUEST, string user, string service,
     * string "publickey-hybrid-and", boolean TRUE, string algorithm, string public key blob.
     */
    static byte[] signedData(byte[] sessionId, String user, String service, String algorithm, byte[] keyBlob) {
        Buffer b = new ByteArrayBuffer(sessionId.length + keyBlob.length + 256, false);
        b.putBytes(sessionId);
        b.putByte(org.apache.sshd.common.SshConstants.SSH_MSG_USERAUTH_REQUEST);
        b.putString(user);
        b.putString(service);
        b.putString(NAME);
        b.putBoolean(true);
        b.putString(algorithm);
        b.putBytes(keyBlob);
        return b.getCompactData();
    }
}
