package io.pqssh.server.session;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientConnectionServiceFactory;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.client.session.ClientSessionHolder;
import org.apache.sshd.common.PropertyResolver;
import org.apache.sshd.common.Service;
import org.apache.sshd.common.ServiceFactory;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.common.util.closeable.AbstractCloseable;

/**
 * A test client that speaks USERAUTH by hand over a real MINA transport: the test writes each request (any method
 * name, any fields, repeated SERVICE_REQUESTs) and reads each reply in order, or learns that the server ended the
 * connection and with which DISCONNECT message.
 */
public final class RawAuthClient implements AutoCloseable {
    public static final Duration T = Duration.ofSeconds(10);

    /** A message from the server, or the end of the connection ({@code cmd == -1}). */
    public record Reply(int cmd, String methods, boolean partial, byte[] payload, String disconnect) {
        public boolean closed() {
            return cmd < 0;
        }

        @Override
        public String toString() {
            return switch (cmd) {
                case -1 -> "CLOSED" + (disconnect == null ? "" : " (" + disconnect + ")");
                case SshConstants.SSH_MSG_USERAUTH_FAILURE -> "FAILURE " + methods + (partial ? " partial" : "");
                case SshConstants.SSH_MSG_USERAUTH_SUCCESS -> "SUCCESS";
                default -> "MESSAGE " + cmd;
            };
        }
    }

    private final SshClient client;
    private final boolean ownClient;
    private final ClientSession session;
    private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
    private final Map<String, String> disconnect = new ConcurrentHashMap<>();

    private RawAuthClient(SshClient client, boolean ownClient, ClientSession session) {
        this.client = client;
        this.ownClient = ownClient;
        this.session = session;
    }

    /** A started client whose sessions speak USERAUTH by hand; share it between many {@link #connect}s. */
    public static SshClient newClient() {
        SshClient client = SshClient.setUpDefaultClient();
        client.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
        client.setServiceFactories(List.of(new RawService.Factory(), ClientConnectionServiceFactory.INSTANCE));
        client.start();
        return client;
    }

    public static RawAuthClient connect(String user, int port, InetSocketAddress local) throws IOException {
        return connect(newClient(), true, user, port, local);
    }

    /** A connection over a client from {@link #newClient()}, which stays running when this one closes. */
    public static RawAuthClient connect(SshClient shared, String user, int port, InetSocketAddress local)
            throws IOException {
        return connect(shared, false, user, port, local);
    }

    private static RawAuthClient connect(SshClient client, boolean own, String user, int port,
            InetSocketAddress local) throws IOException {
        try {
            ClientSession s = client.connect(user, new InetSocketAddress("127.0.0.1", port), local).verify(T)
                    .getSession();
            RawAuthClient raw = new RawAuthClient(client, own, s);
            RawService service = (RawService) s.getService(RawService.class);
            service.attach(raw.replies);
            s.addSessionListener(new SessionListener() {
                @Override
                public void sessionDisconnect(Session session, int reason, String msg, String language,
                        boolean initiator) {
                    if (!initiator) {
                        raw.disconnect.putIfAbsent("msg", msg);
                    }
                }
            });
            s.addCloseFutureListener(f -> raw.replies.add(
                    new Reply(-1, null, false, new byte[0], raw.disconnect.get("msg"))));
            s.waitFor(EnumSet.of(org.apache.sshd.client.session.ClientSession.ClientSessionEvent.WAIT_AUTH,
                    org.apache.sshd.client.session.ClientSession.ClientSessionEvent.CLOSED), T.toMillis());
            return raw;
        } catch (IOException | RuntimeException e) {
            if (own) {
                client.stop();
            }
            throw e;
        }
    }

    public ClientSession session() {
        return session;
    }

    public void serviceRequest(String name) throws IOException {
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_SERVICE_REQUEST, name.length() + 8);
        b.putString(name);
        session.writePacket(b);
    }

    /** USERAUTH_REQUEST for ssh-connection: {@code fields} writes what follows the method name. */
    public void request(String user, String method, Consumer<Buffer> fields) throws IOException {
        Buffer b = session.createBuffer(SshConstants.SSH_MSG_USERAUTH_REQUEST, 1500);
        b.putString(user);
        b.putString("ssh-connection");
        b.putString(method);
        fields.accept(b);
        session.writePacket(b);
    }

    public void password(String user, String password) throws IOException {
        request(user, "password", b -> {
            b.putBoolean(false);
            b.putString(password);
        });
    }

    public void none(String user) throws IOException {
        request(user, "none", b -> { });
    }

    public void kem(String user, String alg, byte[] publicKey) throws IOException {
        request(user, "publickey-kem", b -> {
            b.putString(alg);
            b.putBytes(publicKey);
        });
    }

    /**
     * A whole publickey-kem attempt: the request, then, if a challenge comes, the correct response. Returns the
     * server's answer to the request (when not a challenge) or to the response.
     */
    public Reply kemLogin(String user, String alg, io.pqssh.core.kem.KemKeyPair key) throws Exception {
        kem(user, alg, key.publicKey());
        Reply r = next();
        if (r.cmd() != io.pqssh.core.auth.KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE) {
            return r;
        }
        io.pqssh.core.auth.KemAuthRequest request = io.pqssh.core.auth.KemAuthRequest.kem(user, "ssh-connection",
                new io.pqssh.core.auth.KemCredential(alg, key.publicKey()));
        io.pqssh.core.auth.KemChallenge challenge = io.pqssh.core.auth.KemChallenge.decodeFields(
                new io.pqssh.core.wire.SshReader(r.payload()));
        byte[] response = io.pqssh.core.auth.KemAuthClient.respond(session.getSessionId(), request, challenge, key);
        raw(io.pqssh.core.auth.KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE, b -> b.putBytes(response));
        return next();
    }

    public void raw(int cmd, Consumer<Buffer> fields) throws IOException {
        Buffer b = session.createBuffer((byte) cmd, 100);
        fields.accept(b);
        session.writePacket(b);
    }

    /** The next reply; fails the test when none comes within {@link #T}. */
    public Reply next() throws InterruptedException {
        Reply r = replies.poll(T.toMillis(), TimeUnit.MILLISECONDS);
        if (r == null) {
            throw new AssertionError("no reply from the server within " + T);
        }
        return r;
    }

    /** Waits until the connection is closed; true when it closed within {@code max}. */
    public boolean awaitClosed(Duration max) throws InterruptedException {
        long end = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < end) {
            Reply r = replies.poll(50, TimeUnit.MILLISECONDS);
            if (r != null && r.closed()) {
                replies.add(r);
                return true;
            }
        }
        return session.isClosed();
    }

    @Override
    public void close() throws IOException {
        try {
            session.close(true);
        } finally {
            if (ownClient) {
                client.stop();
            }
        }
    }

    /** The client-side "ssh-userauth" service: hands every message to the test. */
    static final class RawService extends AbstractCloseable implements Service, ClientSessionHolder {
        private final ClientSession session;
        private final Map<String, Object> properties = new ConcurrentHashMap<>();
        private final BlockingQueue<Reply> early = new LinkedBlockingQueue<>();
        private BlockingQueue<Reply> sink;

        RawService(ClientSession session) {
            this.session = session;
        }

        @Override
        public void start() {
            // nothing: the test drives the requests
        }

        synchronized void attach(BlockingQueue<Reply> q) {
            sink = q;
            early.drainTo(q);
        }

        @Override
        public synchronized void process(int cmd, Buffer buffer) {
            byte[] payload = buffer.getCompactData();
            Reply r;
            if (cmd == SshConstants.SSH_MSG_USERAUTH_FAILURE) {
                Buffer b = new ByteArrayBuffer(payload);
                r = new Reply(cmd, b.getString(), b.getBoolean(), payload, null);
            } else {
                r = new Reply(cmd, null, false, payload, null);
            }
            if (sink == null) {
                early.add(r);
            } else {
                sink.add(r);
            }
        }

        @Override
        public ClientSession getClientSession() {
            return session;
        }

        @Override
        public ClientSession getSession() {
            return session;
        }

        @Override
        public Map<String, Object> getProperties() {
            return properties;
        }

        @Override
        public PropertyResolver getParentPropertyResolver() {
            return session;
        }

        static final class Factory implements ServiceFactory {
            @Override
            public String getName() {
                return "ssh-userauth";
            }

            @Override
            public Service create(Session session) {
                return new RawService((ClientSession) session);
            }
        }
    }
}
