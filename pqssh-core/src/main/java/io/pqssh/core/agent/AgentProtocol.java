package io.pqssh.core.agent;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The ssh-agent protocol (draft-ietf-sshm-ssh-agent, OpenSSH's PROTOCOL.agent): message numbers pqssh uses and the
 * framing {@code uint32 length, byte[length] message}. pqssh's extensions are in docs/agent-protocol.md.
 */
public final class AgentProtocol {
    public static final int SSH_AGENT_FAILURE = 5;
    public static final int SSH_AGENT_SUCCESS = 6;
    public static final int SSH_AGENTC_REQUEST_IDENTITIES = 11;
    public static final int SSH_AGENT_IDENTITIES_ANSWER = 12;
    public static final int SSH_AGENTC_SIGN_REQUEST = 13;
    public static final int SSH_AGENT_SIGN_RESPONSE = 14;
    public static final int SSH_AGENTC_ADD_IDENTITY = 17;
    public static final int SSH_AGENTC_REMOVE_IDENTITY = 18;
    public static final int SSH_AGENTC_REMOVE_ALL_IDENTITIES = 19;
    public static final int SSH_AGENTC_LOCK = 22;
    public static final int SSH_AGENTC_UNLOCK = 23;
    public static final int SSH_AGENTC_ADD_ID_CONSTRAINED = 25;
    public static final int SSH_AGENTC_EXTENSION = 27;
    public static final int SSH_AGENT_EXTENSION_FAILURE = 28;

    /** Key constraints: the tail of ADD_IDENTITY / ADD_ID_CONSTRAINED (PROTOCOL.agent, the draft's section 3.2.7). */
    public static final int SSH_AGENT_CONSTRAIN_LIFETIME = 1;
    public static final int SSH_AGENT_CONSTRAIN_CONFIRM = 2;
    public static final int SSH_AGENT_CONSTRAIN_EXTENSION = 255;

    /** OpenSSH's limit on one message (AGENT_MAX_LEN); larger frames end the connection. */
    public static final int MAX_MESSAGE = 256 * 1024;

    private AgentProtocol() {
    }

    /** Reads one message; null at a clean end of stream between messages. */
    public static byte[] readMessage(InputStream in) throws IOException {
        byte[] len = in.readNBytes(4);
        if (len.length == 0) {
            return null;
        }
        if (len.length < 4) {
            throw new EOFException("agent connection closed inside a message length");
        }
        long n = ((len[0] & 0xffL) << 24) | ((len[1] & 0xff) << 16) | ((len[2] & 0xff) << 8) | (len[3] & 0xff);
        if (n < 1 || n > MAX_MESSAGE) {
            throw new IOException("agent message length " + n + " outside 1.." + MAX_MESSAGE);
        }
        byte[] msg = in.readNBytes((int) n);
        if (msg.length != n) {
            throw new EOFException("agent connection closed inside a message");
        }
        return msg;
    }

    public static void writeMessage(OutputStream out, byte[] msg) throws IOException {
        if (msg.length > MAX_MESSAGE) {
            throw new IOException("agent message of " + msg.length + " bytes exceeds " + MAX_MESSAGE);
        }
        int n = msg.length;
        byte[] frame = new byte[4 + n];
        frame[0] = (byte) (n >>> 24);
        frame[1] = (byte) (n >>> 16);
        frame[2] = (byte) (n >>> 8);
        frame[3] = (byte) n;
        System.arraycopy(msg, 0, frame, 4, n);
        try {
            out.write(frame);
            out.flush();
        } finally {
            java.util.Arrays.fill(frame, (byte) 0); // the copy of an ADD_IDENTITY's key or a LOCK's passphrase
        }
    }
}
