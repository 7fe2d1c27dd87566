package io.pqssh.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.apache.sshd.common.keyprovider.KeyPairProvider;

import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.mina.server.FileKeyAuthorizers;
import io.pqssh.mina.server.PasswordFile;
import io.pqssh.mina.server.PqsshServer;
import io.pqssh.mina.server.ServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pqssh server}: an SSH server configured with sshd_config keywords. */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Run an SSH server with KEM user authentication and post-quantum key exchange.",
                "Keywords (file or -o): Port, ListenAddress, HostKey, AuthorizedKeysFile, AuthorizedKEMKeysFile,",
                "KEMAuthentication, KEMAuthAlgorithms, AuthenticationMethods, PubkeyAuthentication,",
                "PasswordAuthentication, PasswordFile, KexAlgorithms, RequirePostQuantumKex, MaxAuthTries,",
                "LoginGraceTime, MaxPendingKEMChallenges, Subsystem sftp."})
public final class ServerCommand implements Callable<Integer> {
    @Option(names = {"-f", "--config"}, description = "Configuration file (sshd_config syntax).")
    Path config;

    @Option(names = "-o", description = "Keyword=value, overrides the file. Repeatable.")
    List<String> options = new ArrayList<>();

    @Option(names = "-p", description = "Port (0 picks a free one and prints it).")
    Integer port;

    @Option(names = "--port-file", description = "Write the bound port to this file once listening.")
    Path portFile;

    @Override
    public Integer call() throws Exception {
        ServerConfig c = new ServerConfig();
        for (String o : options) {
            c.apply(o, "-o " + o);
        }
        if (port != null) {
            c.apply("Port " + port, "-p");
        }
        if (config != null) {
            // command-line values were applied first and win (first value wins), then the file fills the rest
            List<String> lines = Files.readAllLines(config);
            for (int i = 0; i < lines.size(); i++) {
                c.apply(lines.get(i), config + ":" + (i + 1));
            }
        }
        PqsshServer.Builder b = PqsshServer.builder().host(c.listenAddress).port(c.port)
                .hostKeys(hostKeys(c.hostKeys)).kex(c.kexAlgorithms).requirePostQuantumKex(c.requirePostQuantumKex)
                .authenticationMethods(c.authenticationMethods).maxAuthTries(c.maxAuthTries)
                .loginGraceTime(c.loginGraceTime).sftp(c.sftp).preAuthLimits(c.preAuth)
                // as sshd: root runs each session as the login's account; anyone else can only log in as itself
                .logins(io.pqssh.mina.server.login.LoginPolicy.forThisProcess()).sftpServer(c.sftpServer);
        FileKeyAuthorizers auth = new FileKeyAuthorizers(c.authorizedKeysFile, c.authorizedKemKeysFile,
                c.strictModes);
        if (c.pubkeyAuthentication) {
            b.publickey(auth.publickey());
        }
        if (c.kemAuthentication) {
            b.kem(KemServerSettings.builder().allowedAlgorithms(c.kemAuthAlgorithms).authorizer(auth.kem())
                    .maxPending(c.maxPendingKemChallenges, c.maxPendingKemChallengesPerSource).build());
        }
        if (c.passwordAuthentication) {
            if (c.passwordFile == null) {
                throw new IllegalArgumentException("PasswordAuthentication yes needs a PasswordFile"
                        + " (lines from 'pqssh passwd USER')");
            }
            b.password(new PasswordFile(c.passwordFile));
        }
        try (PqsshServer server = b.start()) {
            System.err.println("pqssh server listening on " + c.listenAddress + ":" + server.port());
            if (portFile != null) {
                Files.writeString(portFile, server.port() + "\n");
            }
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        }
        return 0;
    }

    private static KeyPairProvider hostKeys(List<Path> files) throws Exception {
        List<Path> keys = new ArrayList<>(files);
        if (keys.isEmpty()) {
            Path def = Path.of("pqssh_host_ed25519_key");
            if (!Files.exists(def)) {
                KeyPair kp = KeyUtils.generateKeyPair("ssh-ed25519", 256);
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(kp, "pqssh host key", null, out);
                KeyFilePermissions.writePrivateKeyFile(def, out.toByteArray());
                System.err.println("pqssh server: generated host key " + def.toAbsolutePath());
            }
            keys.add(def);
        }
        for (Path k : keys) {
            KeyFilePermissions.checkPrivateKeyFile(k);
        }
        // every type: PQ signature keys through pqssh, Ed25519/RSA/ECDSA (ssh-keygen files) through MINA
        return io.pqssh.mina.keys.PqKeyPairProvider.fromFiles(keys, null);
    }
}
