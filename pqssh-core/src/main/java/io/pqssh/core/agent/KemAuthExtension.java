package io.pqssh.core.agent;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * pqssh's agent extensions for ML-KEM credentials (docs/agent-protocol.md): {@value #RESPONSE} asks the agent for the
 * {@code publickey-kem} response to a challenge (the agent decapsulates and derives the HMAC; the shared secret never
 * leaves it), {@value #IDENTITIES} lists the KEM keys the agent holds (they are not in
 * SSH_AGENT_IDENTITIES_ANSWER, which other clients parse).
 */
public final class KemAuthExtension {
    public static final String RESPONSE = "kem-auth-response@pqssh.io";
    public static final String IDENTITIES = "kem-identities@pqssh.io";
    /** The draft's extension listing the supported extensions. */
    public static final String QUERY = "query";

    private KemAuthExtension() {
    }

    /** The fields of a {@value #RESPONSE} request after the extension name. */
    public record ResponseRequest(byte[] keyBlob, byte[] sessionId, String user, String service,
            KemAuthMethod method, String alg, KemChallenge challenge) {
        public byte[] encode() {
            SshWriter w = new SshWriter(256 + keyBlob.length + challenge.publicKey().length
                    + challenge.ciphertext().length);
            w.putByte(AgentProtocol.SSH_AGENTC_EXTENSION).putString(RESPONSE).putString(keyBlob).putString(sessionId)
                    .putString(user).putString(service).putString(method.wireName()).putString(alg);
            challenge.writeFields(w);
            return w.toByteArray();
        }

        /** Reads the fields after {@code string extension name}; nothing may follow them. */
        public static ResponseRequest read(SshReader r) throws MalformedMessageException {
            byte[] blob = r.getString();
            byte[] sid = r.getString();
            String user = r.getUtf8();
            String service = r.getUtf8();
            String m = r.getUtf8();
            KemAuthMethod method = KemAuthMethod.fromWireName(m)
                    .orElseThrow(() -> new MalformedMessageException("unknown KEM method"));
            String alg = r.getUtf8();
            KemChallenge ch = KemChallenge.decodeFields(r);
            return new ResponseRequest(blob, sid, user, service, method, alg, ch);
        }
    }
}
