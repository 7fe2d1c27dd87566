package io.pqssh.examples;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.mina.Pqssh;
import io.pqssh.mina.auth.KemClientIdentity;

/**
 * An application's own MINA SSHD client with pqssh installed by one call: logs in with an ML-KEM key file
 * ({@code publickey-kem}), refuses a classical key exchange, runs one command and prints its output. Unknown host
 * keys are accepted and remembered in the given known_hosts file, as {@code StrictHostKeyChecking=accept-new}.
 *
 * <pre>
 * java -cp 'pqssh-examples/target/pqssh-examples-VERSION.jar:pqssh-examples/target/lib/*' \
 *     io.pqssh.examples.EmbeddedClient 127.0.0.1 2222 demo ~/.ssh/id_mlkem768 ~/.ssh/known_hosts 'greet world'
 * </pre>
 */
public final class EmbeddedClient {
    private EmbeddedClient() {
    }

    /** What the command wrote to stdout and stderr, and its exit status. */
    public static final class Result {
        /** Standard output of the command. */
        public final String out;
        /** Standard error of the command. */
        public final String err;
        /** Exit status, or -1 when the server sent none. */
        public final int status;

        Result(String out, String err, int status) {
            this.out = out;
            this.err = err;
            this.status = status;
        }
    }

    /** Logs in to {@code host:port} as {@code user} with the ML-KEM key in {@code identity} and runs {@code command}. */
    public static Result run(String host, int port, String user, Path identity, Path knownHosts, String command)
            throws IOException, KeyFileException {
        SshPrivateKey key = OpenSshKeyV1.readFile(identity, null).key();
        if (!(key instanceof MlKemSshKey)) {
            throw new KeyFileException(identity + " is a " + key.keyType() + " key, not an ML-KEM one");
        }
        MlKemSshKey kem = (MlKemSshKey) key;
        SshClient client = SshClient.setUpDefaultClient();
        client.setServerKeyVerifier(new KnownHostsServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE, knownHosts));
        Pqssh.install(client, Pqssh.ClientOptions.defaults()
                .kemIdentity(KemClientIdentity.of(kem.kemPrivateKey()))
                .requirePostQuantumKex(true));
        client.start();
        try (ClientSession session = client.connect(user, host, port).verify(Duration.ofSeconds(30)).getSession()) {
            session.auth().verify(Duration.ofSeconds(30));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            try (var channel = session.createExecChannel(command)) {
                channel.setOut(out);
                channel.setErr(err);
                channel.open().verify(Duration.ofSeconds(30));
                channel.waitFor(java.util.EnumSet.of(ClientChannelEvent.CLOSED), Duration.ofSeconds(60));
                Integer status = channel.getExitStatus();
                return new Result(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                        status == null ? -1 : status);
            }
        } finally {
            client.stop();
            kem.destroy();
        }
    }

    /** {@code EmbeddedClient HOST PORT USER IDENTITY_FILE KNOWN_HOSTS COMMAND}: exits with the command's status. */
    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: EmbeddedClient HOST PORT USER IDENTITY_FILE KNOWN_HOSTS COMMAND");
            System.exit(2);
        }
        Result r = run(args[0], Integer.parseInt(args[1]), args[2], Path.of(args[3]), Path.of(args[4]), args[5]);
        System.out.print(r.out);
        System.err.print(r.err);
        System.exit(r.status < 0 ? 255 : r.status);
    }
}
