package io.pqssh.core.agent;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.pqssh.core.auth.ChallengeRejectedException;
import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.keys.PrivateKeyCodec;
import io.pqssh.core.keys.PrivateKeyCodecs;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * The keys of {@code pqssh agent} and its answers to agent requests: the base protocol for signature keys (every
 * pqssh signature type, Ed25519 included) and the KEM extensions of docs/agent-protocol.md for ML-KEM credentials.
 * Not supported, and answered with SSH_AGENT_FAILURE: RSA/ECDSA keys, key constraints (ssh-add -t/-c), lock/unlock,
 * smartcards. Keys are destroyed when removed.
 */
public final class Agent {
    /** One held key. */
    public record Entry(byte[] blob, String comment, SshPrivateKey key) {
        public boolean isKem() {
            return key instanceof MlKemSshKey;
        }
    }

    private final List<Entry> keys = new ArrayList<>();

    public synchronized void add(SshPrivateKey key, String comment) {
        byte[] blob = key.publicKeyBlob();
        remove(blob);
        keys.add(new Entry(blob, comment, key));
    }

    public synchronized boolean remove(byte[] blob) {
        for (int i = 0; i < keys.size(); i++) {
            if (MessageDigest.isEqual(keys.get(i).blob(), blob)) {
                destroy(keys.remove(i));
                return true;
            }
        }
        return false;
    }

    public synchronized void removeAll() {
        keys.forEach(Agent::destroy);
        keys.clear();
    }

    public synchronized List<Entry> entries() {
        return List.copyOf(keys);
    }

    private synchronized Optional<Entry> find(byte[] blob) {
        return keys.stream().filter(e -> MessageDigest.isEqual(e.blob(), blob)).findFirst();
    }

    private static void destroy(Entry e) {
        try {
            e.key().destroy();
        } catch (javax.security.auth.DestroyFailedException ex) {
            // nothing more to wipe
        }
    }

    /** Answers one request message (without its length); malformed requests get SSH_AGENT_FAILURE. */
    public byte[] handle(byte[] request) {
        try {
            SshReader r = new SshReader(request);
            int type = r.getByte();
            switch (type) {
                case AgentProtocol.SSH_AGENTC_REQUEST_IDENTITIES:
                    r.expectEnd("REQUEST_IDENTITIES");
                    return identities(false, AgentProtocol.SSH_AGENT_IDENTITIES_ANSWER);
                case AgentProtocol.SSH_AGENTC_SIGN_REQUEST:
                    return sign(r);
                case AgentProtocol.SSH_AGENTC_ADD_IDENTITY:
                    return addIdentity(r);
                case AgentProtocol.SSH_AGENTC_REMOVE_IDENTITY: {
                    byte[] blob = r.getString();
                    r.expectEnd("REMOVE_IDENTITY");
                    return status(remove(blob));
                }
                case AgentProtocol.SSH_AGENTC_REMOVE_ALL_IDENTITIES:
                    r.expectEnd("REMOVE_ALL_IDENTITIES");
                    removeAll();
                    return status(true);
                case AgentProtocol.SSH_AGENTC_EXTENSION:
                    return extension(r);
                default:
                    return status(false);
            }
        } catch (MalformedMessageException | RuntimeException e) {
            return status(false);
        }
    }

    private byte[] identities(boolean kem, int replyType) {
        List<Entry> list = entries().stream().filter(e -> e.isKem() == kem).toList();
        SshWriter w = new SshWriter().putByte(replyType).putUint32(list.size());
        for (Entry e : list) {
            w.putString(e.blob()).putString(e.comment());
        }
        return w.toByteArray();
    }

    private byte[] sign(SshReader r) throws MalformedMessageException {
        byte[] blob = r.getString();
        byte[] data = r.getString();
        r.getUint32(); // flags: only RSA's SHA-2 choices, and pqssh holds no RSA keys
        r.expectEnd("SIGN_REQUEST");
        Optional<Entry> e = find(blob);
        if (e.isEmpty() || !(e.get().key() instanceof SshSigningKey)) {
            return status(false);
        }
        byte[] sig = ((SshSigningKey) e.get().key()).sign(data);
        return new SshWriter(sig.length + 8).putByte(AgentProtocol.SSH_AGENT_SIGN_RESPONSE).putString(sig)
                .toByteArray();
    }

    private byte[] addIdentity(SshReader r) throws MalformedMessageException {
        String type = r.getUtf8();
        Optional<PrivateKeyCodec> codec = PrivateKeyCodecs.forType(type);
        if (codec.isEmpty()) {
            return status(false);
        }
        SshPrivateKey key = codec.get().readPrivateFields(type, r);
        String comment = r.getUtf8();
        if (r.remaining() != 0) {
            // key constraints (ADD_ID_CONSTRAINED's tail, or trailing bytes) are not supported: refuse, not ignore
            destroy(new Entry(key.publicKeyBlob(), comment, key));
            return status(false);
        }
        add(key, comment);
        return status(true);
    }

    private byte[] extension(SshReader r) throws MalformedMessageException {
        String name = r.getUtf8();
        switch (name) {
            case KemAuthExtension.QUERY:
                r.expectEnd("query");
                return new SshWriter().putByte(AgentProtocol.SSH_AGENT_SUCCESS).putString(KemAuthExtension.QUERY)
                        .putString(KemAuthExtension.IDENTITIES).putString(KemAuthExtension.RESPONSE).toByteArray();
            case KemAuthExtension.IDENTITIES:
                r.expectEnd(name);
                return identities(true, AgentProtocol.SSH_AGENT_SUCCESS);
            case KemAuthExtension.RESPONSE:
                return kemResponse(r);
            default:
                return status(false);
        }
    }

    private byte[] kemResponse(SshReader r) {
        KemAuthExtension.ResponseRequest q;
        try {
            q = KemAuthExtension.ResponseRequest.read(r);
        } catch (MalformedMessageException | RuntimeException e) {
            return extensionFailure();
        }
        Optional<Entry> e = find(q.keyBlob());
        if (e.isEmpty() || !e.get().isKem()) {
            return extensionFailure();
        }
        MlKemSshKey key = (MlKemSshKey) e.get().key();
        byte[] response;
        try {
            KemCredential sent = new KemCredential(q.alg(), key.kemPrivateKey().publicKey());
            response = KemAuthClient.respond(q.sessionId(), q.user(), q.service(), q.method(), sent, q.challenge(),
                    key.kemPrivateKey());
        } catch (ChallengeRejectedException | IllegalArgumentException ex) {
            return extensionFailure();
        }
        byte[] out = new SshWriter(40).putByte(AgentProtocol.SSH_AGENT_SUCCESS).putString(response).toByteArray();
        java.util.Arrays.fill(response, (byte) 0);
        return out;
    }

    private static byte[] extensionFailure() {
        return new byte[] {AgentProtocol.SSH_AGENT_EXTENSION_FAILURE};
    }

    private static byte[] status(boolean ok) {
        return new byte[] {(byte) (ok ? AgentProtocol.SSH_AGENT_SUCCESS : AgentProtocol.SSH_AGENT_FAILURE)};
    }
}
