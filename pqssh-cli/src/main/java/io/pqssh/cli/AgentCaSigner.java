package io.pqssh.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;

import io.pqssh.core.agent.AgentClient;
import io.pqssh.core.cert.CaSigner;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * {@code pqssh keygen -s CA -U}: a CA key held by the agent at {@code SSH_AUTH_SOCK} (pqssh agent or OpenSSH's
 * ssh-agent), as ssh-keygen's {@code do_ca_sign} with {@code prefer_agent}: the public key is read from {@code -s}
 * (a public key file, or the public half of a private key file; {@code FILE.pub} when FILE is missing), the agent
 * must list it, and each certificate is signed with SSH_AGENTC_SIGN_REQUEST; an RSA CA signs with rsa-sha2-512
 * (ssh-keygen's default), and a signature of another algorithm than asked is refused.
 */
final class AgentCaSigner implements CaSigner, AutoCloseable {
    /** SSH_AGENT_RSA_SHA2_512 (draft-miller-ssh-agent 4.5.1). */
    private static final int RSA_SHA2_512 = 4;

    private final AgentClient agent;
    private final byte[] publicKeyBlob;
    private final String keyType;

    private AgentCaSigner(AgentClient agent, byte[] publicKeyBlob, String keyType) {
        this.agent = agent;
        this.publicKeyBlob = publicKeyBlob;
        this.keyType = keyType;
    }

    /** The CA named by {@code -s}, found in the agent; ssh-keygen's messages when it is not. */
    static AgentCaSigner open(Path ca) throws IOException {
        Path file = !Files.exists(ca) && Files.exists(Path.of(ca + ".pub")) ? Path.of(ca + ".pub") : ca;
        byte[] blob;
        try {
            blob = io.pqssh.client.keys.KeyFiles.publicKey(file).blob();
        } catch (IOException | KeyFileException e) {
            throw new IllegalArgumentException("Cannot load CA public key " + ca + ": " + e.getMessage(), e);
        }
        Path socket = AgentClient.socketFromEnvironment().orElseThrow(() -> new IllegalArgumentException(
                "Cannot use public key for CA signature: agent not present"));
        AgentClient agent;
        try {
            agent = AgentClient.connect(socket);
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot use public key for CA signature: " + e.getMessage(), e);
        }
        try {
            boolean held = false;
            for (AgentClient.Identity i : agent.identities()) {
                held |= MessageDigest.isEqual(i.blob(), blob);
            }
            if (!held) {
                throw new IllegalArgumentException("CA key " + ca + " not found in agent: key not found");
            }
            return new AgentCaSigner(agent, blob, new SshReader(blob).getUtf8());
        } catch (IOException | MalformedMessageException | RuntimeException e) {
            agent.close();
            if (e instanceof IllegalArgumentException iae) {
                throw iae;
            }
            throw new IllegalArgumentException("CA key " + ca + " not found in agent: " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] publicKeyBlob() {
        return publicKeyBlob.clone();
    }

    @Override
    public byte[] sign(byte[] data) {
        boolean rsa = keyType.equals("ssh-rsa");
        byte[] signature;
        try {
            signature = agent.sign(publicKeyBlob, data, rsa ? RSA_SHA2_512 : 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String expected = rsa ? "rsa-sha2-512" : null;
        try {
            String got = new SshReader(signature).getUtf8();
            if (expected != null && !expected.equals(got)) {
                throw new UncheckedIOException(new IOException("the agent signed with " + got + ", not " + expected));
            }
        } catch (MalformedMessageException e) {
            throw new UncheckedIOException(new IOException("malformed signature from the agent", e));
        }
        return signature;
    }

    @Override
    public void close() throws IOException {
        agent.close();
    }
}
