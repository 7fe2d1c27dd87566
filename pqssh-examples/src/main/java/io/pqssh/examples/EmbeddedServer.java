package io.pqssh.examples;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.server.Environment;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.AbstractCommandSupport;
import org.apache.sshd.server.session.ServerSession;

import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.mina.Pqssh;
import io.pqssh.mina.auth.KemServerSettings;

/**
 * An application's own MINA SSHD server with pqssh installed by one call: users log in with ML-KEM keys
 * ({@code publickey-kem}) listed in a file of public key lines ({@code pqssh keygen -t mlkem768} writes them), and
 * the only command is the application's {@code greet NAME}. No shell, no SFTP, nothing runs as the JVM's user.
 *
 * <pre>
 * java -cp 'pqssh-examples/target/pqssh-examples-VERSION.jar:pqssh-examples/target/lib/*' \
 *     io.pqssh.examples.EmbeddedServer 2222 ~/.ssh/id_mlkem768.pub
 * </pre>
 */
public final class EmbeddedServer {
    private EmbeddedServer() {
    }

    /** Starts the server on 127.0.0.1:{@code port} (0: any free port, see {@link SshServer#getPort()}). */
    public static SshServer start(int port, Path authorizedKemKeys) throws IOException {
        SshServer sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(port);
        // a real server keeps its host key in a file (e.g. MINA's SimpleGeneratorHostKeyProvider)
        try {
            sshd.setKeyPairProvider(KeyPairProvider.wrap(KeyUtils.generateKeyPair("ssh-ed25519", 256)));
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot make an Ed25519 host key", e);
        }
        sshd.setCommandFactory((channel, command) -> new Greet(command));
        // the file is read at each login, so keys added to it work at once
        KemServerSettings kem = KemServerSettings.builder()
                .authorizer((user, credential, address) -> listed(authorizedKemKeys, credential)).build();
        Pqssh.install(sshd, kem);
        sshd.start();
        return sshd;
    }

    /** Whether {@code credential}'s key is one of the lines of {@code file}; an unreadable file authorizes nobody. */
    static boolean listed(Path file, KemCredential credential) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            System.err.println("cannot read " + file + " (authorized ML-KEM keys): " + e.getMessage());
            return false;
        }
        for (String line : lines) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            try {
                KemPublicKey key = KemPublicKey.parseLine(line).key();
                if (key.algorithm() == credential.algorithm() && credential.samePublicKey(key.raw())) {
                    return true;
                }
            } catch (KeyFileException e) {
                System.err.println(file + ": skipping a line: " + e.getMessage());
            }
        }
        return false;
    }

    /** The application's command: {@code greet NAME} answers with a greeting; anything else exits 127. */
    static final class Greet extends AbstractCommandSupport {
        private volatile ServerSession session;

        Greet(String command) {
            super(command, null);
        }

        @Override
        public void start(ChannelSession channel, Environment env) throws IOException {
            session = channel.getServerSession();
            super.start(channel, env);
        }

        @Override
        public void run() {
            String[] words = getCommand().trim().split("\\s+", 2);
            try {
                if (words.length == 2 && words[0].equals("greet")) {
                    write(getOutputStream(), "hello " + words[1] + ", from " + session.getUsername() + " over "
                            + session.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS) + "\n");
                    onExit(0);
                } else {
                    write(getErrorStream(), "unknown command: " + getCommand() + " (try: greet NAME)\n");
                    onExit(127);
                }
            } catch (IOException | RuntimeException e) {
                onExit(1, e.toString());
            }
        }

        private static void write(OutputStream out, String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    /** {@code EmbeddedServer PORT AUTHORIZED_KEM_KEYS_FILE}: runs until killed. */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: EmbeddedServer PORT AUTHORIZED_KEM_KEYS_FILE");
            System.exit(2);
        }
        SshServer sshd = start(Integer.parseInt(args[0]), Path.of(args[1]));
        System.out.println("listening on 127.0.0.1:" + sshd.getPort());
        Thread.currentThread().join();
    }
}
