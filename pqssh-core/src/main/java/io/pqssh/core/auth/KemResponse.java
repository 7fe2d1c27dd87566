package io.pqssh.core.auth;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * SSH_MSG_USERAUTH_KEM_RESPONSE (61): {@code string response}. The codec accepts any length so that the server can
 * count a wrong-length response as a failed attempt (and wipe its state) rather than as a protocol error.
 */
public final class KemResponse {
    public static final int RESPONSE_BYTES = 32;

    private KemResponse() {
    }

    public static byte[] encode(byte[] response) {
        return new SshWriter(8 + response.length).putByte(KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE)
                .putString(response).toByteArray();
    }

    public static byte[] encodeFields(byte[] response) {
        return new SshWriter(4 + response.length).putString(response).toByteArray();
    }

    public static byte[] decode(byte[] payload) throws MalformedMessageException {
        SshReader in = new SshReader(payload);
        if (in.getByte() != KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE) {
            throw new MalformedMessageException("not a USERAUTH_KEM_RESPONSE");
        }
        return decodeFields(in);
    }

    public static byte[] decodeFields(SshReader in) throws MalformedMessageException {
        byte[] r = in.getString();
        in.expectEnd("KEM response");
        return r;
    }
}
