package io.pqssh.core.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/** A connection to an agent's Unix socket ({@code SSH_AUTH_SOCK}): OpenSSH's ssh-agent or {@code pqssh agent}. */
public final class AgentClient implements AutoCloseable {
    /** A key the agent offers: its public key blob and comment. */
    public record Identity(byte[] blob, String comment) {
    }

    private final SocketChannel channel;
    private final InputStream in;
    private final OutputStream out;

    private AgentClient(SocketChannel channel) {
        this.channel = channel;
        this.in = Channels.newInputStream(channel);
        this.out = Channels.newOutputStream(channel);
    }

    public static AgentClient connect(Path socket) throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            ch.close();
            throw new IOException("cannot connect to the agent at " + socket + ": " + e.getMessage(), e);
        }
        return new AgentClient(ch);
    }

    /** {@code SSH_AUTH_SOCK} from the environment, if set and not empty. */
    public static Optional<Path> socketFromEnvironment() {
        String s = System.getenv("SSH_AUTH_SOCK");
        return s == null || s.isEmpty() ? Optional.empty() : Optional.of(Path.of(s));
    }

    /** Sends one request, returns the reply message. */
    public synchronized byte[] request(byte[] message) throws IOException {
        AgentProtocol.writeMessage(out, message);
        byte[] reply = AgentProtocol.readMessage(in);
        if (reply == null) {
            throw new IOException("the agent closed the connection");
        }
        return reply;
    }

    /** Signature keys (SSH_AGENTC_REQUEST_IDENTITIES). */
    public List<Identity> identities() throws IOException {
        return identityList(request(new byte[] {AgentProtocol.SSH_AGENTC_REQUEST_IDENTITIES}),
                AgentProtocol.SSH_AGENT_IDENTITIES_ANSWER);
    }

    /** KEM keys ({@value KemAuthExtension#IDENTITIES}); empty from an agent without the extension. */
    public List<Identity> kemIdentities() throws IOException {
        byte[] reply = request(new SshWriter().putByte(AgentProtocol.SSH_AGENTC_EXTENSION)
                .putString(KemAuthExtension.IDENTITIES).toByteArray());
        if (reply[0] != AgentProtocol.SSH_AGENT_SUCCESS) {
            return List.of();
        }
        return identityList(reply, AgentProtocol.SSH_AGENT_SUCCESS);
    }

    private static List<Identity> identityList(byte[] reply, int expected) throws IOException {
        try {
            SshReader r = new SshReader(reply);
            int type = r.getByte();
            if (type != expected) {
                throw new IOException("agent answered " + type + " to an identity request");
            }
            long n = r.getUint32();
            List<Identity> out = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                out.add(new Identity(r.getString(), r.getUtf8()));
            }
            return out;
        } catch (MalformedMessageException e) {
            throw new IOException("malformed identity list from the agent: " + e.getMessage(), e);
        }
    }

    /** SSH_AGENTC_SIGN_REQUEST; returns the signature blob ({@code string alg, string sig}). */
    public byte[] sign(byte[] keyBlob, byte[] data, int flags) throws IOException {
        byte[] reply = request(new SshWriter(keyBlob.length + data.length + 16)
                .putByte(AgentProtocol.SSH_AGENTC_SIGN_REQUEST).putString(keyBlob).putString(data).putUint32(flags)
                .toByteArray());
        try {
            SshReader r = new SshReader(reply);
            if (r.getByte() != AgentProtocol.SSH_AGENT_SIGN_RESPONSE) {
                throw new IOException("the agent refused to sign");
            }
            return r.getString();
        } catch (MalformedMessageException e) {
            throw new IOException("malformed sign response from the agent", e);
        }
    }

    /** The {@code publickey-kem} response computed by the agent ({@value KemAuthExtension#RESPONSE}). */
    public byte[] kemResponse(KemAuthExtension.ResponseRequest q) throws IOException {
        byte[] reply = request(q.encode());
        try {
            SshReader r = new SshReader(reply);
            int type = r.getByte();
            if (type != AgentProtocol.SSH_AGENT_SUCCESS) {
                // SSH_AGENT_FAILURE: no such extension, or a locked agent
                throw new IOException(type == AgentProtocol.SSH_AGENT_EXTENSION_FAILURE
                        ? "the agent refused the KEM challenge"
                        : "the agent refused " + KemAuthExtension.RESPONSE + " (locked, or no such extension)");
            }
            byte[] resp = r.getString();
            r.expectEnd("KEM response");
            return resp;
        } catch (MalformedMessageException e) {
            throw new IOException("malformed KEM response from the agent", e);
        }
    }

    /**
     * {@code session-bind@openssh.com}: tells the agent which SSH connection (host key, session identifier, the host
     * key's signature over it from the first key exchange) this agent connection serves, for authentication or for a
     * forwarded agent. False when the agent refused it or does not know the extension (OpenSSH's ssh goes on
     * either way).
     */
    public boolean bindSession(byte[] hostKey, byte[] sessionId, byte[] signature, boolean forwarding)
            throws IOException {
        return request(sessionBindMessage(hostKey, sessionId, signature, forwarding))[0]
                == AgentProtocol.SSH_AGENT_SUCCESS;
    }

    /** The {@code session-bind@openssh.com} request message (without its length). */
    public static byte[] sessionBindMessage(byte[] hostKey, byte[] sessionId, byte[] signature, boolean forwarding) {
        return new SshWriter(hostKey.length + sessionId.length + signature.length + 64)
                .putByte(AgentProtocol.SSH_AGENTC_EXTENSION).putString(SessionBindings.EXTENSION).putString(hostKey)
                .putString(sessionId).putString(signature).putByte(forwarding ? 1 : 0).toByteArray();
    }

    /** SSH_AGENTC_ADD_IDENTITY; false when the agent refused it. */
    public boolean add(SshPrivateKey key, String comment) throws IOException {
        return add(key, comment, KeyConstraints.NONE);
    }

    /**
     * SSH_AGENTC_ADD_IDENTITY, or SSH_AGENTC_ADD_ID_CONSTRAINED with the constraints (as ssh-add); false when the
     * agent refused it (an agent that does not implement a constraint must refuse the key).
     */
    public boolean add(SshPrivateKey key, String comment, KeyConstraints constraints) throws IOException {
        return add(key, null, comment, constraints);
    }

    /**
     * As {@link #add(SshPrivateKey, String, KeyConstraints)} for a certificate of {@code key} ({@code cert} null: the
     * plain key): {@code string certificate type, string certificate}, then the key's private fields as
     * {@link SshPrivateKey#writeCertifiedPrivateFields} writes them (RSA and ECDSA without their public fields).
     */
    public boolean add(SshPrivateKey key, io.pqssh.core.cert.SshCertificate cert, String comment,
            KeyConstraints constraints) throws IOException {
        SshWriter w = new SshWriter().putByte(constraints.isNone() ? AgentProtocol.SSH_AGENTC_ADD_IDENTITY
                : AgentProtocol.SSH_AGENTC_ADD_ID_CONSTRAINED);
        if (cert == null) {
            w.putString(key.keyType());
            key.writePrivateFields(w);
        } else {
            w.putString(cert.certType()).putString(cert.blob());
            key.writeCertifiedPrivateFields(w);
        }
        w.putString(comment == null ? "" : comment);
        constraints.write(w);
        byte[] msg = w.toByteArray();
        try {
            return request(msg)[0] == AgentProtocol.SSH_AGENT_SUCCESS;
        } finally {
            java.util.Arrays.fill(msg, (byte) 0);
        }
    }

    public boolean remove(byte[] keyBlob) throws IOException {
        return request(new SshWriter().putByte(AgentProtocol.SSH_AGENTC_REMOVE_IDENTITY).putString(keyBlob)
                .toByteArray())[0] == AgentProtocol.SSH_AGENT_SUCCESS;
    }

    /** SSH_AGENTC_LOCK (lock) or SSH_AGENTC_UNLOCK; false when the agent refused. The caller zeroes the passphrase. */
    public boolean lock(boolean lock, byte[] passphrase) throws IOException {
        // built by hand, not with SshWriter, so that no copy of the passphrase is left unzeroed in a buffer
        int n = passphrase.length;
        byte[] msg = new byte[5 + n];
        msg[0] = (byte) (lock ? AgentProtocol.SSH_AGENTC_LOCK : AgentProtocol.SSH_AGENTC_UNLOCK);
        msg[1] = (byte) (n >>> 24);
        msg[2] = (byte) (n >>> 16);
        msg[3] = (byte) (n >>> 8);
        msg[4] = (byte) n;
        System.arraycopy(passphrase, 0, msg, 5, n);
        try {
            return request(msg)[0] == AgentProtocol.SSH_AGENT_SUCCESS;
        } finally {
            java.util.Arrays.fill(msg, (byte) 0);
        }
    }

    public boolean removeAll() throws IOException {
        return request(new byte[] {AgentProtocol.SSH_AGENTC_REMOVE_ALL_IDENTITIES})[0]
                == AgentProtocol.SSH_AGENT_SUCCESS;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
