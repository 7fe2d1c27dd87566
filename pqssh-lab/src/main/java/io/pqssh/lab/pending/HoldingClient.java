package io.pqssh.lab.pending;

import java.io.IOException;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.AbstractUserAuth;
import org.apache.sshd.client.auth.AbstractUserAuthFactory;
import org.apache.sshd.client.auth.UserAuth;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.core.CoreModuleProperties;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.mina.kex.PqKex;

/**
 * A client that stops half-way through user authentication and holds the connection: for {@code publickey-kem} it
 * sends the request, receives the challenge (60) and never answers; for {@code publickey} it sends the query
 * without a signature, receives PK_OK (60) and never sends the signed request. The server keeps its pending state
 * for as long as the connection is held.
 */
public final class HoldingClient implements AutoCloseable {
    /** Completed when the server's challenge / PK_OK arrived. */
    static final AttributeKey<CompletableFuture<Void>> HELD = new AttributeKey<>();

    /** How to stop. */
    public enum Kind {
        KEM_CHALLENGE("publickey-kem"), PUBLICKEY_PK_OK("publickey");

        final String method;

        Kind(String method) {
            this.method = method;
        }
    }

    private final SshClient client;
    private final List<ClientSession> held = new ArrayList<>();

    public HoldingClient(Kind kind, KemKeyPair kemKey, KeyPair signatureKey, java.security.PublicKey hostKey,
            List<String> kex) {
        client = ClientBuilder.builder().build();
        client.setKeyExchangeFactories(PqKex.factories(kex, ClientBuilder.DH2KEX));
        io.pqssh.mina.keys.MinaPqKeys.ensureInstalled();
        client.setSignatureFactories(io.pqssh.mina.keys.PqSignatureFactories.withPq(client.getSignatureFactories()));
        client.setServerKeyVerifier((s, a, k) -> KeyUtils.compareKeys(hostKey, k));
        client.setKeyIdentityProvider(s -> List.of());
        client.setUserAuthFactories(List.of(new AbstractUserAuthFactory(kind.method) {
            @Override
            public UserAuth createUserAuth(ClientSession session) {
                return new Holding(kind, kemKey, signatureKey);
            }
        }));
        CoreModuleProperties.PREFERRED_AUTHS.set(client, kind.method);
        CoreModuleProperties.TCP_NODELAY.set(client, true);
        client.start();
    }

    /** Opens a connection and returns once the server has sent the challenge / PK_OK. */
    public void holdOne(String user, int port, Duration timeout) throws Exception {
        ClientSession s = client.connect(user, "127.0.0.1", port).verify(timeout).getSession();
        CompletableFuture<Void> f = new CompletableFuture<>();
        s.setAttribute(HELD, f);
        synchronized (held) {
            held.add(s);
        }
        s.auth(); // stays pending: the answer never goes out
        try {
            f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            s.close(true);
            synchronized (held) {
                held.remove(s);
            }
            throw new IOException("no challenge / PK_OK within " + timeout + ": " + e, e);
        }
    }

    /** Connections currently held open. */
    public int heldCount() {
        synchronized (held) {
            return (int) held.stream().filter(ClientSession::isOpen).count();
        }
    }

    /** Disconnects every held connection. */
    public void releaseAll() {
        List<ClientSession> copy;
        synchronized (held) {
            copy = new ArrayList<>(held);
            held.clear();
        }
        for (ClientSession s : copy) {
            s.close(true);
        }
    }

    @Override
    public void close() {
        releaseAll();
        client.stop();
    }

    private static final class Holding extends AbstractUserAuth {
        private final Kind kind;
        private final KemKeyPair kemKey;
        private final KeyPair signatureKey;
        private boolean sent;

        Holding(Kind kind, KemKeyPair kemKey, KeyPair signatureKey) {
            super(kind.method);
            this.kind = kind;
            this.kemKey = kemKey;
            this.signatureKey = signatureKey;
        }

        @Override
        protected boolean sendAuthDataRequest(ClientSession session, String service) throws Exception {
            if (sent) {
                return false;
            }
            sent = true;
            if (kind == Kind.KEM_CHALLENGE) {
                byte[] payload = KemAuthRequest.kem(session.getUsername(), service,
                        new KemCredential(kemKey.algorithm().sshName(), kemKey.publicKey())).encode();
                Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_REQUEST, payload.length);
                out.putRawBytes(payload, 1, payload.length - 1);
                session.writePacket(out);
            } else {
                // RFC 4252 section 7 query: FALSE, algorithm, key blob (no signature)
                ByteArrayBuffer blob = new ByteArrayBuffer();
                blob.putRawPublicKey(signatureKey.getPublic());
                // the algorithm is the blob's key type (ssh-ed25519, ssh-mldsa-65: no RSA SHA-2 renaming needed)
                String alg = new ByteArrayBuffer(blob.getCompactData()).getString();
                Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_REQUEST, 256);
                out.putString(session.getUsername());
                out.putString(service);
                out.putString("publickey");
                out.putBoolean(false);
                out.putString(alg);
                out.putBytes(blob.getCompactData());
                session.writePacket(out);
            }
            return true;
        }

        @Override
        protected boolean processAuthDataRequest(ClientSession session, String service, Buffer buffer) {
            int cmd = buffer.getUByte();
            CompletableFuture<Void> f = session.getAttribute(HELD);
            if (cmd == 60 && f != null) {
                f.complete(null); // challenge (publickey-kem) or PK_OK (publickey): hold, never answer
                return true;
            }
            if (f != null) {
                f.completeExceptionally(new IOException("unexpected message " + cmd));
            }
            return false;
        }
    }
}
