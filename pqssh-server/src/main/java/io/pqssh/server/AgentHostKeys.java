package io.pqssh.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SignatureException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.session.SessionContext;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.common.agent.SocketSshAgent;
import io.pqssh.core.agent.AgentClient;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;

/**
 * sshd's {@code HostKeyAgent}: a {@code HostKey} whose private key file is absent, but whose public key is there
 * (the file itself or {@code FILE.pub}, as sshd's {@code sshkey_load_public}), is served with the agent on the
 * socket signing for it ("will rely on agent for hostkey"), so the server never holds that private key. The
 * server's {@link Signature}s are wrapped ({@link #signatures}): given an {@link AgentPrivateKey} they collect the
 * data and ask the agent at {@code sign}; any other key goes to the real implementation. As sshd, whether the agent
 * holds the key is found out at the first key exchange (the client then sees the connection closed).
 */
public final class AgentHostKeys {
    private AgentHostKeys() {
    }

    /** The private half of an agent-held host key: no key material, only where to ask for signatures. */
    public static final class AgentPrivateKey implements PrivateKey {
        private static final long serialVersionUID = 1L;
        private final transient PublicKey publicKey;
        private final transient Path socket;

        AgentPrivateKey(PublicKey publicKey, Path socket) {
            this.publicKey = publicKey;
            this.socket = socket;
        }

        @Override
        public String getAlgorithm() {
            return publicKey.getAlgorithm();
        }

        @Override
        public String getFormat() {
            return null; // nothing to encode: the agent holds the key
        }

        @Override
        public byte[] getEncoded() {
            return null;
        }
    }

    /**
     * The public key of a host key the agent is to hold, as sshd decides with HostKeyAgent: {@code hostKey} itself
     * when it is a public key file, {@code hostKey.pub} when {@code hostKey} is absent (sshd's
     * {@code sshkey_load_public}); empty when {@code hostKey} is a private key file (the server signs with it) or
     * there is no public key.
     */
    public static Optional<PublicKey> agentPublicKey(Path hostKey) throws IOException {
        return Files.exists(hostKey) ? publicKeyIn(hostKey)
                : publicKeyIn(hostKey.resolveSibling(hostKey.getFileName() + ".pub"));
    }

    /** The key of the file's first public key line; empty when the file is missing or holds none. */
    private static Optional<PublicKey> publicKeyIn(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try (java.io.BufferedReader r = Files.newBufferedReader(file,
                java.nio.charset.StandardCharsets.ISO_8859_1)) {
            for (String line; (line = r.readLine()) != null;) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                try {
                    io.pqssh.mina.keys.MinaPqKeys.ensureInstalled(); // MINA decodes post-quantum keys through it
                    return Optional.of(new ByteArrayBuffer(PublicKeyLine.parse(line).blob()).getRawPublicKey());
                } catch (KeyFileException | RuntimeException e) {
                    return Optional.empty(); // a private key file's first line, or garbage
                }
            }
        }
        return Optional.empty();
    }

    /** The host key pair of {@code publicKey}, signed for by the agent on {@code socket}. */
    public static KeyPair keyPair(PublicKey publicKey, Path socket) {
        return new KeyPair(publicKey, new AgentPrivateKey(publicKey, socket));
    }

    /** Whether {@code provider} holds a key whose private half is an agent's. */
    public static boolean anyHeldByAgent(org.apache.sshd.common.keyprovider.KeyPairProvider provider)
            throws IOException {
        try {
            for (KeyPair kp : provider.loadKeys(null)) {
                if (kp.getPrivate() instanceof AgentPrivateKey) {
                    return true;
                }
            }
            return false;
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("host keys: " + e.getMessage(), e);
        }
    }

    /** {@code factories}, each also signing with an {@link AgentPrivateKey} through its agent. */
    public static List<NamedFactory<Signature>> signatures(List<NamedFactory<Signature>> factories) {
        return factories.stream().<NamedFactory<Signature>>map(f -> new NamedFactory<>() {
            @Override
            public String getName() {
                return f.getName();
            }

            @Override
            public Signature create() {
                return new AgentCapableSignature(f.getName(), f.create());
            }
        }).toList();
    }

    /**
     * The signature algorithm of the key a certificate algorithm certifies: {@code rsa-sha2-512-cert-v01@openssh.com}
     * signs as {@code rsa-sha2-512}, {@code ssh-mldsa44-ed25519-cert} as {@code ssh-mldsa44-ed25519}; a plain name
     * is itself.
     */
    static String plainSignatureAlgorithm(String name) {
        String suffix = "-cert-v01@openssh.com";
        if (name.startsWith("rsa-sha2-") && name.endsWith(suffix)) {
            return name.substring(0, name.length() - suffix.length());
        }
        return io.pqssh.core.cert.CertificateKeyTypes.plainName(name).orElse(name);
    }

    /** A signature that asks the agent when initialised with an agent-held key, else its delegate. */
    private static final class AgentCapableSignature implements Signature {
        private final String name;
        private final Signature delegate;
        private AgentPrivateKey agentKey;
        private final ByteArrayOutputStream data = new ByteArrayOutputStream();

        AgentCapableSignature(String name, Signature delegate) {
            this.name = name;
            this.delegate = delegate;
        }

        @Override
        public String getAlgorithm() {
            return delegate.getAlgorithm();
        }

        @Override
        public String getSshAlgorithmName(String algo) {
            return delegate.getSshAlgorithmName(algo);
        }

        @Override
        public void initVerifier(SessionContext session, PublicKey key) throws Exception {
            agentKey = null;
            delegate.initVerifier(session, key);
        }

        @Override
        public void initSigner(SessionContext session, PrivateKey key) throws Exception {
            data.reset();
            if (key instanceof AgentPrivateKey a) {
                agentKey = a;
            } else {
                agentKey = null;
                delegate.initSigner(session, key);
            }
        }

        @Override
        public void update(SessionContext session, byte[] hash, int off, int len) throws Exception {
            if (agentKey != null) {
                data.write(hash, off, len);
            } else {
                delegate.update(session, hash, off, len);
            }
        }

        @Override
        public boolean verify(SessionContext session, byte[] sig) throws Exception {
            return delegate.verify(session, sig);
        }

        @Override
        public byte[] sign(SessionContext session) throws Exception {
            if (agentKey == null) {
                return delegate.sign(session);
            }
            // a host certificate's algorithm is signed with the certified key: the agent is asked for the plain one
            String plain = plainSignatureAlgorithm(name);
            try (AgentClient client = AgentClient.connect(agentKey.socket)) {
                Map.Entry<String, byte[]> s = new SocketSshAgent(client).sign(session, agentKey.publicKey, plain,
                        data.toByteArray());
                if (!plain.equals(s.getKey())) {
                    // an agent that signs with another algorithm (SHA-1 for rsa-sha2-512): the client would refuse
                    throw new SignatureException("host key agent " + agentKey.socket + " signed " + s.getKey()
                            + ", not " + plain);
                }
                return s.getValue();
            } catch (IOException e) {
                throw new SignatureException("host key agent " + agentKey.socket + ": " + e.getMessage(), e);
            }
        }
    }
}
