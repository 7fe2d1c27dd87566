package io.pqssh.common.agent;

import java.io.IOException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.sshd.agent.SshAgent;
import org.apache.sshd.agent.SshAgentKeyConstraint;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.session.SessionContext;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.agent.AgentClient;

/**
 * MINA's view of an agent on a Unix socket, for {@code publickey} authentication: OpenSSH's ssh-agent or
 * {@code pqssh agent}. Keys MINA cannot decode (none of pqssh's signature types, once installed) are skipped, not an
 * error. Adding and removing keys goes through {@link AgentClient} directly ({@code pqssh add}).
 */
public final class SocketSshAgent implements SshAgent {
    private final AgentClient client;
    private volatile boolean open = true;

    public SocketSshAgent(AgentClient client) {
        this.client = client;
    }

    @Override
    public Iterable<? extends Map.Entry<PublicKey, String>> getIdentities() throws IOException {
        List<Map.Entry<PublicKey, String>> out = new ArrayList<>();
        for (AgentClient.Identity id : client.identities()) {
            try {
                PublicKey k = new ByteArrayBuffer(id.blob()).getRawPublicKey();
                out.add(new SimpleImmutableEntry<>(k, id.comment()));
            } catch (Exception e) {
                // a key type this client cannot use (certificates of unknown types, ...): as ssh, skip it
            }
        }
        return out;
    }

    @Override
    public Map.Entry<String, byte[]> sign(SessionContext session, PublicKey key, String algo, byte[] data)
            throws IOException {
        ByteArrayBuffer blob = new ByteArrayBuffer();
        blob.putRawPublicKey(key);
        // a certificate signs as its key: rsa-sha2-512-cert-v01@openssh.com is an rsa-sha2-512 signature
        String signatureAlgorithm = KeyUtils.getSignatureAlgorithm(algo, key);
        int flags = 0;
        if (KeyUtils.RSA_SHA512_KEY_TYPE_ALIAS.equals(signatureAlgorithm)) {
            flags = 4; // SSH_AGENT_RSA_SHA2_512
        } else if (KeyUtils.RSA_SHA256_KEY_TYPE_ALIAS.equals(signatureAlgorithm)) {
            flags = 2; // SSH_AGENT_RSA_SHA2_256
        }
        byte[] sig = client.sign(blob.getCompactData(), data, flags);
        Buffer b = new ByteArrayBuffer(sig);
        String alg = b.getString();
        // agents answer a certificate with its key's signature (ssh-ed25519); MINA names it by the algorithm it asked
        // for and writes the signature algorithm itself, as for a certificate it signs with a key file
        return new SimpleImmutableEntry<>(alg.equals(signatureAlgorithm) ? algo : alg, b.getBytes());
    }

    @Override
    public void addIdentity(KeyPair key, String comment, SshAgentKeyConstraint... constraints) throws IOException {
        throw new UnsupportedOperationException("add keys with pqssh add");
    }

    @Override
    public void removeIdentity(PublicKey key) throws IOException {
        ByteArrayBuffer blob = new ByteArrayBuffer();
        blob.putRawPublicKey(key);
        client.remove(blob.getCompactData());
    }

    @Override
    public void removeAllIdentities() throws IOException {
        client.removeAll();
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() throws IOException {
        open = false;
        client.close();
    }
}
