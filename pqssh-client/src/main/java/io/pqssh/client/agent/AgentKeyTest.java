package io.pqssh.client.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

import io.pqssh.core.agent.AgentClient;
import io.pqssh.core.agent.KemAuthExtension;
import io.pqssh.core.auth.AuthContext;
import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.auth.ResponseDerivation;
import io.pqssh.core.kem.Encapsulation;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.wire.SshReader;
import io.pqssh.common.agent.HostKeySignatures;

/**
 * {@code ssh-add -T pubkey}: whether the agent can use the key of a public key file. A signature key signs 1024
 * random bytes (RSA with rsa-sha2-256, as ssh-add) and the signature is verified; an ML-KEM key answers a
 * {@code publickey-kem} challenge encapsulated here to its key, and the answer is checked against the response
 * derived from the shared secret this side knows. Messages as ssh-add's.
 */
public final class AgentKeyTest {
    private static final int SSH_AGENT_RSA_SHA2_256 = 2;
    private static final SecureRandom RANDOM = new SecureRandom();

    private AgentKeyTest() {
    }

    /** 0 when the agent used the key correctly, 1 otherwise (message on stderr). */
    public static int test(AgentClient agent, Path file) {
        PublicKeyLine key;
        try {
            key = PublicKeyLine.parse(Files.readString(file));
        } catch (IOException | io.pqssh.core.keys.KeyFileException e) {
            System.err.println("Couldn't read public key " + file + ": " + e.getMessage());
            return 1;
        }
        Optional<KemAlgorithm> kem = KemAlgorithm.fromName(key.keyType().toLowerCase(Locale.ROOT));
        try {
            boolean ok = kem.isPresent() ? decapsulates(agent, key.blob(), kem.get()) : signs(agent, key);
            return ok ? 0 : 1;
        } catch (IOException | RuntimeException | io.pqssh.core.wire.MalformedMessageException e) {
            System.err.println("Agent signature failed for " + file + ": agent refused operation");
            return 1;
        }
    }

    private static boolean signs(AgentClient agent, PublicKeyLine key) throws IOException {
        byte[] data = new byte[1024];
        RANDOM.nextBytes(data);
        int flags = key.keyType().equals("ssh-rsa") ? SSH_AGENT_RSA_SHA2_256 : 0;
        byte[] sig = agent.sign(key.blob(), data, flags);
        if (!new HostKeySignatures().verify(key.blob(), data, sig)) {
            System.err.println("Signature verification failed for " + key.keyType() + " key");
            return false;
        }
        return true;
    }

    private static boolean decapsulates(AgentClient agent, byte[] blob, KemAlgorithm alg)
            throws IOException, io.pqssh.core.wire.MalformedMessageException {
        SshReader r = new SshReader(blob);
        r.getString();
        byte[] ek = r.getString();
        byte[] sid = new byte[32];
        RANDOM.nextBytes(sid);
        Encapsulation enc = MlKem.encapsulate(alg, ek, RANDOM);
        byte[] expected = null;
        byte[] got = null;
        try {
            KemChallenge challenge = new KemChallenge(alg.sshName(), ek, enc.ciphertext());
            KemCredential sent = new KemCredential(alg.sshName(), ek);
            String user = System.getProperty("user.name");
            got = agent.kemResponse(new KemAuthExtension.ResponseRequest(blob, sid, user, KemAuthMethod.CONNECTION_SERVICE,
                    KemAuthMethod.PUBLICKEY_KEM, alg.sshName(), challenge));
            expected = ResponseDerivation.derive(enc.sharedSecret(), sid, AuthContext.encode(user,
                    KemAuthMethod.CONNECTION_SERVICE, KemAuthMethod.PUBLICKEY_KEM, sent, challenge));
            if (!MessageDigest.isEqual(expected, got)) {
                System.err.println("KEM response verification failed for " + alg.sshName() + " key");
                return false;
            }
            return true;
        } finally {
            if (expected != null) {
                Arrays.fill(expected, (byte) 0);
            }
            enc.destroy();
        }
    }
}
