package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.util.security.SecurityUtils;

import io.pqssh.client.PqsshClient;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.mina.auth.KemClientIdentity;

/**
 * System accounts a root test creates with useradd (and removes, with their processes), and the two keys they log
 * in with through pqssh's client: one ML-KEM-768 ({@code publickey-kem}) and one Ed25519 ({@code publickey}).
 */
final class LoginAccounts {
    static final Duration T = Duration.ofSeconds(30);

    private final KemKeyPair kem = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
    private final KeyPair ed25519;
    private final List<String> created = new ArrayList<>();

    LoginAccounts() {
        try {
            ed25519 = SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code useradd -m -s shell extra... name}; the account is removed by {@link #removeAll}. */
    void add(String name, String shell, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/sbin/useradd", "-m", "-s", shell));
        cmd.addAll(List.of(extra));
        cmd.add(name);
        assertEquals(0, run(cmd), "useradd " + name);
        created.add(name);
    }

    /** Removes every account {@link #add} made, each after any process still running as it. */
    void removeAll() throws Exception {
        for (String u : created) {
            TestAccounts.remove(u);
        }
    }

    /** Both keys in {@code file}, which belongs (with its directory) to {@code owner} with sshd's modes. */
    void authorize(Path file, String owner) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, new KemPublicKey(KemAlgorithm.MLKEM768, kem.publicKey()).toLine("kem") + "\n"
                + PublicKeyEntry.toString(ed25519.getPublic()) + " ed\n");
        assertEquals(0, run(List.of("chown", "-R", owner + ":", file.getParent().toString())));
        assertEquals(0, run(List.of("chmod", "700", file.getParent().toString())));
        assertEquals(0, run(List.of("chmod", "600", file.toString())));
    }

    /** A client that accepts any host key and offers only the KEM key ({@code kem}) or only the Ed25519 key. */
    PqsshClient client(boolean kem) {
        PqsshClient.Builder b = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                .warningSink(w -> { }).timeout(T);
        return kem ? b.kemIdentity(KemClientIdentity.of(this.kem))
                .preferredAuthentications(List.of("publickey-kem")).start()
                : b.identity(ed25519).preferredAuthentications(List.of("publickey")).start();
    }

    /** The output of {@code command}, which must exit 0. */
    static String exec(ClientSession s, String command) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = PqsshClient.exec(s, command, out, err, T);
        assertEquals(0, rc, command + ": " + err);
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Runs {@code cmd}, its output to stderr; its exit status. */
    static int run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().transferTo(System.err);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), cmd + " hangs");
        return p.exitValue();
    }

    /** The stripped standard output of {@code cmd}. */
    static String capture(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return out;
    }
}
