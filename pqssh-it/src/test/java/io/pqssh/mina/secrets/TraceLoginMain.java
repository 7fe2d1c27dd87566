package io.pqssh.mina.secrets;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.keyprovider.KeyPairProvider;

import io.pqssh.core.auth.AuthContext;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.auth.ResponseDerivation;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/**
 * Child-JVM side of {@link SecretsNotLoggedTest}: one publickey-kem login with every logger at TRACE, then the
 * secrets of that login written (hex) to the file named by args[0] so the parent can look for them in the log.
 */
public final class TraceLoginMain {
    private TraceLoginMain() {
    }

    public static void main(String[] args) throws Exception {
        KemKeyPair key = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        AtomicReference<KemChallenge> sent = new AtomicReference<>();
        KemServerSettings kem = KemServerSettings.builder()
                .authorizer((u, c, a) -> c.samePublicKey(key.publicKey()))
                .challengeInterceptor(c -> {
                    sent.set(c);
                    return c;
                }).build();
        List<String> secrets = new ArrayList<>();
        try (PqsshServer srv = PqsshServer.builder().systemShell().sftp(true).host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(KeyUtils.generateKeyPair("ssh-ed25519", 256))).kem(kem).start();
                PqsshClient cli = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                        .warningSink(w -> { }).kemIdentity(KemClientIdentity.of(key)).start();
                ClientSession s = cli.login("alice", "127.0.0.1", srv.port())) {
            if (!s.isAuthenticated()) {
                throw new IllegalStateException("login failed");
            }
            KemChallenge c = sent.get();
            byte[] ss = key.decapsulate(c.ciphertext());
            KemAuthRequest req = KemAuthRequest.kem("alice", "ssh-connection",
                    new KemCredential("mlkem768", key.publicKey()));
            byte[] response = ResponseDerivation.derive(ss, s.getSessionId(), AuthContext.encode(req, c));
            HexFormat hex = HexFormat.of();
            secrets.add("seed " + hex.formatHex(key.seed()));
            // the expanded key embeds the (public) encapsulation key: check only its secret parts
            byte[] dk = key.expandedSecretKey();
            int pke = KemAlgorithm.MLKEM768.publicKeyBytes() - 32;
            secrets.add("dk-pke " + hex.formatHex(dk, 0, pke));
            secrets.add("dk-z " + hex.formatHex(dk, dk.length - 32, dk.length));
            secrets.add("shared-secret " + hex.formatHex(ss));
            secrets.add("response " + hex.formatHex(response));
        }
        Files.write(Path.of(args[0]), secrets);
    }
}
