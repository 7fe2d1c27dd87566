package io.pqssh.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.AbstractUserAuth;
import org.apache.sshd.server.auth.AbstractUserAuthFactory;
import org.apache.sshd.server.auth.UserAuth;
import org.apache.sshd.server.session.ServerSession;
import org.junit.jupiter.api.Test;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemAuthServer;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.wire.SshReader;
import io.pqssh.mina.TestKeys;
import io.pqssh.mina.auth.KemClientIdentity;

/**
 * A malicious server that answers every {@code publickey-kem} response with a fresh challenge (a decapsulation
 * oracle, issue 11 section 3): the client answers exactly one challenge per credential per connection, then
 * disconnects with a protocol error instead of answering the second.
 */
class MaliciousKemServerTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Server side of publickey-kem that keeps challenging. */
    static final class RepeatingChallengeAuth extends AbstractUserAuth {
        private final AtomicInteger responses;
        private final AtomicInteger challenges;
        private KemAuthRequest request;

        RepeatingChallengeAuth(AtomicInteger responses, AtomicInteger challenges) {
            super(KemAuthMethod.PUBLICKEY_KEM.wireName());
            this.responses = responses;
            this.challenges = challenges;
        }

        @Override
        protected Boolean doAuth(Buffer buffer, boolean init) throws Exception {
            if (init) {
                request = KemAuthRequest.decodeMethodFields(getUsername(), getService(), KemAuthMethod.PUBLICKEY_KEM,
                        new SshReader(Arrays.copyOfRange(buffer.array(), buffer.rpos(), buffer.wpos())));
            } else {
                int cmd = buffer.getUByte();
                if (cmd != KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE) {
                    return Boolean.FALSE;
                }
                responses.incrementAndGet();
            }
            if (challenges.get() >= 20) {
                return Boolean.FALSE;
            }
            ServerSession session = getServerSession();
            byte[] fields = new KemAuthServer(RANDOM).issue(session.getSessionId(), request).challenge()
                    .encodeFields();
            Buffer out = session.createBuffer((byte) KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE, fields.length);
            out.putRawBytes(fields);
            session.writePacket(out);
            challenges.incrementAndGet();
            return null;
        }
    }

    @Test
    void clientAnswersOneChallengeThenDisconnects() throws Exception {
        AtomicInteger responses = new AtomicInteger();
        AtomicInteger challenges = new AtomicInteger();
        SshServer server = SshServer.setUpDefaultServer();
        server.setHost("127.0.0.1");
        server.setPort(0);
        server.setKeyPairProvider(KeyPairProvider.wrap(TestKeys.ed25519()));
        server.setUserAuthFactories(List.of(new AbstractUserAuthFactory(KemAuthMethod.PUBLICKEY_KEM.wireName()) {
            @Override
            public UserAuth createUserAuth(ServerSession session) throws IOException {
                return new RepeatingChallengeAuth(responses, challenges);
            }
        }));
        server.start();
        KemKeyPair key = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
        try (PqsshClient client = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                .warningSink(w -> { }).kemIdentity(KemClientIdentity.of(key))
                .preferredAuthentications(List.of("publickey-kem")).timeout(Duration.ofSeconds(20)).start()) {
            IOException e = assertThrows(IOException.class,
                    () -> client.login("alice", "127.0.0.1", server.getPort()).close());
            assertEquals(1, responses.get(), "responses the client sent: " + e);
            assertTrue(challenges.get() >= 2, "the malicious server sent " + challenges.get() + " challenges");
        } finally {
            server.stop(true);
        }
    }
}
