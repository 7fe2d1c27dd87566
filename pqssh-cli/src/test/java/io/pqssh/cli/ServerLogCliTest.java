package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.mina.auth.ClientKemUserAuthFactory;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.client.PqsshClient;

/**
 * Issue 11 §3: {@code pqssh server} as shipped (its own simplelogger.properties, nothing raised) logs sshd's
 * Accepted and Failed lines, one per login, and nothing else from pqssh at INFO. The lines themselves and their
 * escaping are checked in pqssh-mina's SshdLogTest.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerLogCliTest {
    private static final Duration T = Duration.ofSeconds(20);

    @Test
    void acceptedAndFailedAtTheDefaultLevel(@TempDir Path dir) throws Exception {
        String user = CliHarness.user();
        KemKeyPair key = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        KemKeyPair other = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        KemPublicKey pub = new KemPublicKey(KemAlgorithm.MLKEM768, key.publicKey());
        Files.writeString(dir.resolve(user + "_keys"), pub.toLine("log-test") + "\n");
        Path config = dir.resolve("sshd_config");
        Files.writeString(config, String.join("\n", "Port 0", "ListenAddress 127.0.0.1", "AuthorizedKeysFile " + dir + "/%u_keys",
                "AuthorizedKEMKeysFile none", "StrictModes no", "PubkeyAuthentication no") + "\n");
        Path portFile = dir.resolve("port");
        Path err = dir.resolve("stderr.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "server", "-D", "-f", config.toString(), "--port-file", portFile.toString())
                .directory(dir.toFile()).redirectErrorStream(false).redirectError(err.toFile())
                .redirectOutput(dir.resolve("out").toFile());
        // the default host key goes here, not to /etc/pqssh (root) or ~/.config/pqssh
        pb.environment().put("PQSSH_CONFIG_DIR", dir.resolve("config").toString());
        Process p = pb.start();
        try {
            CliHarness.waitUntil(T, () -> CliHarness.read(portFile).strip().matches("\\d+"),
                    () -> "pqssh server wrote no port:\n" + CliHarness.read(err));
            int port = Integer.parseInt(CliHarness.read(portFile).strip());
            int okPort = login(port, user, key);
            assertTrue(okPort > 0);
            assertThrows(Exception.class, () -> login(port, user, other), "a key nobody authorized logs in");
            String prefix = "^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO io\\.pqssh\\.sshd - ";
            Pattern accepted = Pattern.compile(prefix + "Accepted publickey-kem for " + Pattern.quote(user)
                    + " from 127\\.0\\.0\\.1 port " + okPort + " ssh2: ML-KEM-768 " + Pattern.quote(pub.fingerprint())
                    + "$");
            Pattern failed = Pattern.compile(prefix + "Failed publickey-kem for " + Pattern.quote(user)
                    + " from 127\\.0\\.0\\.1 port \\d+ ssh2: ML-KEM-768 " + Pattern.quote(
                            new KemPublicKey(KemAlgorithm.MLKEM768, other.publicKey()).fingerprint()) + "$");
            CliHarness.waitUntil(T, () -> count(err, accepted) == 1 && count(err, failed) == 1,
                    () -> "expected one Accepted and one Failed line:\n" + CliHarness.read(err));
            List<String> infoFromPqssh = CliHarness.read(err).lines()
                    .filter(l -> l.matches("^\\S+ INFO io\\.pqssh\\..*") && !l.contains(" io.pqssh.sshd - "))
                    .toList();
            assertEquals(List.of(), infoFromPqssh, "only io.pqssh.sshd logs at INFO by default");
        } finally {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private static long count(Path log, Pattern line) {
        return CliHarness.read(log).lines().filter(l -> line.matcher(l).matches()).count();
    }

    /** One publickey-kem login; returns the client's port. */
    private static int login(int port, String user, KemKeyPair key) throws Exception {
        try (PqsshClient cli = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                .warningSink(w -> { }).kemIdentity(KemClientIdentity.of(key)).timeout(T).start();
                ClientSession s = cli.sshClient().connect(user, new InetSocketAddress("127.0.0.1", port))
                        .verify(T).getSession()) {
            s.setAttribute(ClientKemUserAuthFactory.IDENTITY, KemClientIdentity.of(key));
            s.auth().verify(T);
            return ((InetSocketAddress) s.getLocalAddress()).getPort();
        }
    }
}
