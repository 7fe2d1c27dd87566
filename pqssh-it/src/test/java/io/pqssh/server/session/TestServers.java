package io.pqssh.server.session;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.SecureRandom;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.keyprovider.KeyPairProvider;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.server.PqsshServer;

/** Loopback servers for the user-auth service tests: alice with password "right" and one ML-KEM-768 key. */
final class TestServers {
    static final SecureRandom RANDOM = new SecureRandom();
    static final KemKeyPair ALICE_KEM = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
    static final KemKeyPair ALICE_KEM_1024 = MlKem.generate(KemAlgorithm.MLKEM1024, RANDOM);
    private static final KeyPair HOST = hostKey();

    private TestServers() {
    }

    static PqsshServer.Builder builder() {
        KemServerSettings kem = KemServerSettings.builder()
                .allowedAlgorithms(java.util.EnumSet.of(KemAlgorithm.MLKEM768, KemAlgorithm.MLKEM1024))
                .authorizer((user, cred, addr) -> "alice".equals(user)
                        && (cred.samePublicKey(ALICE_KEM.publicKey()) || cred.samePublicKey(ALICE_KEM_1024.publicKey())))
                .build();
        return PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST)).kem(kem)
                .kemAnd(false).password((user, password, session) -> "alice".equals(user) && "right".equals(password));
    }

    static PqsshServer start(PqsshServer.Builder b) throws IOException {
        return b.start();
    }

    private static KeyPair hostKey() {
        try {
            return KeyUtils.generateKeyPair("ssh-ed25519", 256);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
