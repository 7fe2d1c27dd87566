package io.pqssh.mina;

import static io.pqssh.mina.LoginFixture.client;
import static io.pqssh.mina.LoginFixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.auth.AbstractUserAuth;
import org.apache.sshd.client.auth.AbstractUserAuthFactory;
import org.apache.sshd.client.auth.UserAuth;
import org.apache.sshd.client.future.AuthFuture;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.auth.ResponseDerivation;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/**
 * Replays the research implementation's observable behaviour (it cannot be built in CI) from the fixture table
 * {@code reference-replies.tsv}: each row is a request (and response) variant with what the reference replies;
 * a pqssh server on loopback must reply the same, except the rows whose {@code pqssh} column names a deliberate
 * difference (docs/publickey-kem.md section 13). The authorized KEM key is the test vector's (section 12).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReferenceConformanceTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final KemKeyPair V768 = MlKem.fromSeed(KemAlgorithm.MLKEM768, seed());
    private static final KemKeyPair V512 = MlKem.fromSeed(KemAlgorithm.MLKEM512, seed());
    private static final KemKeyPair OTHER = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
    private static final KeyPair SIGNER = TestKeys.ed25519();
    private static final KeyPair STRANGER = TestKeys.ed25519();

    private static PqsshServer srv;
    private static PqsshClient cli;
    /** The replies of the row being replayed (rows run one after another on one client). */
    private static volatile List<String> current = new CopyOnWriteArrayList<>();

    /** One line of the fixture. */
    record Row(String name, String method, String user, String alg, String key, String framing, String response,
            String reference, String pqssh) {
        List<String> expected() {
            return List.of(("=".equals(pqssh) ? reference : pqssh).split(" "));
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static byte[] seed() {
        byte[] s = new byte[64];
        for (int i = 0; i < s.length; i++) {
            s[i] = (byte) i;
        }
        return s;
    }

    static List<Row> rows() throws IOException {
        List<Row> rows = new ArrayList<>();
        try (InputStream in = ReferenceConformanceTest.class.getResourceAsStream("reference-replies.tsv")) {
            if (in == null) {
                throw new IOException("fixture reference-replies.tsv is missing");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            boolean header = true;
            for (String line; (line = r.readLine()) != null;) {
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                if (f.length != 9) {
                    throw new IOException("fixture line has " + f.length + " columns, not 9: " + line);
                }
                if (header) {
                    header = false;
                    continue;
                }
                rows.add(new Row(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]));
            }
        }
        return rows;
    }

    @BeforeAll
    static void start() throws IOException {
        KemServerSettings kem = KemServerSettings.builder().authorizer((user, c, addr) -> "alice".equals(user)
                && (c.samePublicKey(V768.publicKey()) || c.samePublicKey(V512.publicKey()))).build();
        srv = server().kem(kem).publickey((u, k, s) -> "alice".equals(u) && k.equals(SIGNER.getPublic())).start();
        cli = client().timeout(T).start();
        cli.sshClient().addSessionListener(new SessionListener() {
            @Override
            public void sessionDisconnect(Session session, int reason, String msg, String language,
                    boolean initiator) {
                if (!initiator) {
                    current.add("DISCONNECT");
                }
            }
        });
    }

    @AfterAll
    static void stop() throws IOException {
        if (cli != null) {
            cli.close();
        }
        if (srv != null) {
            srv.close();
        }
    }

    @Test
    void fixtureCoversEveryKindOfReplyAndUsesTheTestVectorKeys() throws Exception {
        List<Row> rows = rows();
        assertTrue(rows.size() >= 25, "rows: " + rows.size());
        for (String reply : List.of("CHALLENGE SUCCESS", "CHALLENGE FAILURE", "FAILURE", "DISCONNECT")) {
            assertTrue(rows.stream().anyMatch(r -> r.reference().equals(reply)), "no row where the reference says "
                    + reply);
        }
        assertTrue(rows.stream().allMatch(r -> r.reference().matches("(CHALLENGE ?)?(SUCCESS|FAILURE|DISCONNECT)?")
                && !r.reference().isEmpty()), "unknown reply in the fixture");
        // docs/publickey-kem.md section 12
        assertEquals("0b7934c83125c788995e2ba6bd761e33046b3e40571be53e023309a29f398cc9",
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(V768.publicKey())));
        assertEquals("3ae268dccc5456ac0d0f9b39257dc48fe081383b97c400512d712b739762daee",
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(V512.publicKey())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void pqsshRepliesAsTheReferenceDoes(Row row) throws Exception {
        List<String> replies = new CopyOnWriteArrayList<>();
        current = replies;
        cli.sshClient().setUserAuthFactories(List.of(new Driver.Factory(row, replies)));
        try (ClientSession s = cli.sshClient().connect(row.user(), "127.0.0.1", srv.port()).verify(T)
                .getSession()) {
            AuthFuture auth = s.auth();
            long deadline = System.nanoTime() + T.toNanos();
            // a row without a response ends with the challenge (or the first reply): nothing more will come
            while (!auth.isDone() && !("-".equals(row.response()) && !replies.isEmpty())) {
                if (System.nanoTime() > deadline) {
                    fail(row + ": no reply within " + T + ", so far " + replies);
                }
                Thread.sleep(5);
            }
            if (auth.isDone()) {
                if (auth.isSuccess()) {
                    replies.add("SUCCESS");
                } else if (s.isOpen() && !replies.contains("DISCONNECT") && !disconnectFollows(s, replies)) {
                    replies.add("FAILURE");
                } else {
                    long until = System.nanoTime() + T.toNanos();
                    while (!replies.contains("DISCONNECT") && System.nanoTime() < until) {
                        Thread.sleep(5);
                    }
                }
            }
        }
        assertEquals(row.expected(), replies, row + " (reference: " + row.reference() + ")");
    }

    /**
     * Whether a failed authentication is the start of a disconnect: MINA may complete the auth future (the session
     * is being closed) a moment before the DISCONNECT listener has run. A USERAUTH_FAILURE leaves the connection
     * open, so half a second without a DISCONNECT or a close means FAILURE.
     */
    private static boolean disconnectFollows(ClientSession s, List<String> replies) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        while (System.nanoTime() < until) {
            if (replies.contains("DISCONNECT") || !s.isOpen()) {
                return true;
            }
            Thread.sleep(5);
        }
        return false;
    }

    /** Sends the row's request and response, records CHALLENGE. */
    static final class Driver extends AbstractUserAuth {
        private final Row row;
        private final List<String> replies;
        private boolean sent;
        private byte[] ctxRequest;
        private KemKeyPair key;

        Driver(Row row, List<String> replies) {
            super(row.method());
            this.row = row;
            this.replies = replies;
        }

        static final class Factory extends AbstractUserAuthFactory {
            private final Row row;
            private final List<String> replies;

            Factory(Row row, List<String> replies) {
                super(row.method());
                this.row = row;
                this.replies = replies;
            }

            @Override
            public UserAuth createUserAuth(ClientSession session) {
                return new Driver(row, replies);
            }
        }

        private byte[] publicKey() {
            key = switch (row.key()) {
                case "vector512" -> V512;
                case "other768" -> OTHER;
                default -> V768;
            };
            byte[] pk = key.publicKey();
            return switch (row.key()) {
                case "short" -> Arrays.copyOf(pk, pk.length - 1);
                case "long" -> Arrays.copyOf(pk, pk.length + 1);
                case "zero-padded" -> Arrays.copyOf(pk, pk.length + 32);
                case "vector768", "vector512", "other768" -> pk;
                default -> throw new IllegalArgumentException("fixture: unknown key " + row.key());
            };
        }

        @Override
        protected boolean sendAuthDataRequest(ClientSession session, String service) throws Exception {
            if (sent) {
                return false; // one attempt, as the reference client
            }
            sent = true;
            String user = session.getUsername();
            byte[] pk = publicKey();
            SshWriter fields = new SshWriter();
            if (row.method().equals(KemAuthMethod.PUBLICKEY_KEM.wireName())) {
                switch (row.framing()) {
                    case "ok" -> fields.putString(row.alg()).putString(pk);
                    case "trailing-byte" -> fields.putString(row.alg()).putString(pk).putByte(0);
                    case "key-missing" -> fields.putString(row.alg());
                    case "length-overrun" -> fields.putString(row.alg()).putUint32(pk.length + 100L).putRaw(pk);
                    default -> throw new IllegalArgumentException("fixture: unknown framing " + row.framing());
                }
            } else {
                KeyPair signer = row.framing().equals("unauthorized-signer") ? STRANGER : SIGNER;
                ByteArrayBuffer blob = new ByteArrayBuffer();
                blob.putRawPublicKey(signer.getPublic());
                byte[] keyBlob = blob.getCompactData();
                Signature sig = BuiltinSignatures.ed25519.create();
                sig.initSigner(session, signer.getPrivate());
                sig.update(session, KemAuthRequest.hybridSignedData(session.getSessionId(), user, service,
                        "ssh-ed25519", keyBlob, new KemCredential(row.alg(), pk)));
                byte[] raw = sig.sign(session);
                if (row.framing().equals("bad-signature")) {
                    raw[7] ^= 1;
                }
                byte[] sigBlob = new SshWriter().putString("ssh-ed25519").putString(raw).toByteArray();
                fields.putBoolean(!row.framing().equals("flag-false")).putString("ssh-ed25519").putString(keyBlob)
                        .putString(sigBlob);
                if (!row.framing().equals("truncated")) {
                    fields.putString(row.alg()).putString(pk);
                }
            }
            byte[] f = fields.toByteArray();
            // CTX's request half: byte 50, user, service, method, alg, key (the hybrid's signature fields are not in it)
            ctxRequest = new SshWriter().putByte(KemAuthMethod.SSH_MSG_USERAUTH_REQUEST).putString(user)
                    .putString(service).putString(row.method()).putString(row.alg()).putString(pk).toByteArray();
            RogueKemClientAuth.writeRequest(session, user, service, row.method(), f);
            return true;
        }

        @Override
        protected boolean processAuthDataRequest(ClientSession session, String service, Buffer buffer)
                throws Exception {
            int cmd = buffer.getUByte();
            if (cmd != KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE) {
                replies.add("message " + cmd);
                return false;
            }
            replies.add("CHALLENGE");
            if ("-".equals(row.response())) {
                return true;
            }
            byte[] rest = new byte[buffer.available()];
            buffer.getRawBytes(rest);
            KemChallenge challenge = KemChallenge.decodeFields(new SshReader(rest));
            byte[] ss = key.decapsulate(challenge.ciphertext());
            byte[] ctx = new SshWriter().putRaw(ctxRequest).putByte(KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE)
                    .putRaw(rest).toByteArray();
            byte[] honest = ResponseDerivation.derive(ss, session.getSessionId(), ctx);
            Arrays.fill(ss, (byte) 0);
            byte[] response = switch (row.response()) {
                case "honest" -> honest;
                case "wrong" -> flip(honest);
                case "short" -> Arrays.copyOf(honest, 31);
                case "long" -> Arrays.copyOf(honest, 33);
                case "zero-padded" -> Arrays.copyOf(honest, 32 + 256);
                default -> throw new IllegalArgumentException("fixture: unknown response " + row.response());
            };
            RogueKemClientAuth.writeResponse(session, response);
            return true;
        }

        private static byte[] flip(byte[] b) {
            byte[] out = b.clone();
            out[0] ^= 1;
            return out;
        }
    }
}
