package io.pqssh.core.auth;

import io.pqssh.core.wire.SshWriter;

/**
 * The authentication transcript CTX bound into the response:
 *
 * <pre>
 * byte 50, string user, string service, string method, string alg, string kem_public_key,
 * byte 60, string alg, string kem_public_key, string ciphertext
 * </pre>
 *
 * The request half uses the request's fields and the challenge half the challenge's, so a server that echoes
 * something else binds what it really sent. Neither the response number (61) nor hybrid signature fields are in CTX.
 */
public final class AuthContext {
    private AuthContext() {
    }

    public static byte[] encode(String user, String service, KemAuthMethod method, KemCredential requested,
            KemChallenge challenge) {
        SshWriter out = new SshWriter(64 + 2 * requested.algorithm().publicKeyBytes()
                + challenge.ciphertext().length);
        out.putByte(KemAuthMethod.SSH_MSG_USERAUTH_REQUEST).putString(user).putString(service)
                .putString(method.wireName());
        requested.write(out);
        out.putByte(KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE);
        challenge.writeFields(out);
        return out.toByteArray();
    }

    public static byte[] encode(KemAuthRequest request, KemChallenge challenge) {
        return encode(request.user(), request.service(), request.method(), request.credential(), challenge);
    }
}
