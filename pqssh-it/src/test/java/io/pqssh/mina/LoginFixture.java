package io.pqssh.mina;

import java.io.IOException;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.common.keyprovider.KeyPairProvider;

import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.auth.KemKeyAuthorizer;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/** Keys and a watched server for the loopback login tests. */
final class LoginFixture {
    static final SecureRandom RANDOM = new SecureRandom();
    static final KeyPair HOST_KEY = ed25519();

    static KeyPair ed25519() {
        return TestKeys.ed25519();
    }

    static KemKeyPair kem(KemAlgorithm a) {
        return MlKem.generate(a, RANDOM);
    }

    /** Authorizes exactly the given keys for user "alice". */
    static KemKeyAuthorizer authorize(KemKeyPair... keys) {
        List<byte[]> pks = Arrays.stream(keys).map(KemKeyPair::publicKey).toList();
        return (String user, KemCredential c, String addr) -> "alice".equals(user)
                && pks.stream().anyMatch(c::samePublicKey);
    }

    static PqsshServer.Builder server() {
        return PqsshServer.builder().systemShell().sftp(true)
                .host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST_KEY));
    }

    static PqsshClient.Builder client() {
        return PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                .warningSink(w -> { });
    }

    private LoginFixture() {
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (Exception ignored) {
            // test teardown
        }
    }

    static IOException unwrap(Exception e) {
        return e instanceof IOException io ? io : new IOException(e);
    }
}
