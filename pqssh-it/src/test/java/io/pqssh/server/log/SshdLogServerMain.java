package io.pqssh.server.log;

import io.pqssh.mina.internal.log.SshdLogTest;

import java.util.Base64;
import java.util.List;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.keyprovider.KeyPairProvider;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.server.PqsshServer;
import io.pqssh.mina.server.PreAuthLimits;

/**
 * The server of {@link SshdLogTest}, in its own JVM so that its stderr is exactly what an operator sees: args are
 * alice's ML-KEM-768 public key (base64); prints the port on stdout, runs until stdin closes.
 */
public final class SshdLogServerMain {
    private SshdLogServerMain() {
    }

    public static void main(String[] args) throws Exception {
        OneLinePrintStream.installOnStderr();
        byte[] alicePk = Base64.getDecoder().decode(args[0]);
        KemServerSettings kem = KemServerSettings.builder()
                .allowedAlgorithms(java.util.EnumSet.of(KemAlgorithm.MLKEM768))
                .authorizer((user, cred, addr) -> "alice".equals(user) && cred.samePublicKey(alicePk)).build();
        try (PqsshServer server = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(KeyUtils.generateKeyPair("ssh-ed25519", 256))).kem(kem).kemAnd(false)
                .password((user, password, session) -> "alice".equals(user) && "right-secret".equals(password))
                .publickey((user, key, session) -> false).maxAuthTries(4)
                .validUser(user -> List.of("alice").contains(user))
                .preAuthLimits(PreAuthLimits.Settings.defaults().perSourceMaxStartups("3")).start()) {
            System.out.println(server.port());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes our stdin
            }
        }
    }
}
