package io.pqssh.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

import org.apache.sshd.server.SshServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;

/**
 * The examples run against each other: {@link EmbeddedClient} logs in to {@link EmbeddedServer} with an ML-KEM key
 * file as {@code pqssh keygen} writes it, over {@code mlkem768x25519-sha256}, and runs the application's command; a
 * key not in the server's file is refused; the host key is remembered on first use.
 */
class ExamplesTest {
    private static Path keyPair(Path dir, String name) throws IOException {
        Path id = dir.resolve(name);
        OpenSshKeyV1.writeFiles(id, new MlKemSshKey(MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom())),
                "demo@example", null, new SecureRandom());
        return id;
    }

    @Test
    void clientAndServerRunAgainstEachOther(@TempDir Path dir) throws Exception {
        Path id = keyPair(dir, "id_mlkem768");
        Path other = keyPair(dir, "id_other");
        Path knownHosts = dir.resolve("known_hosts");
        SshServer sshd = EmbeddedServer.start(0, dir.resolve("id_mlkem768.pub"));
        try {
            EmbeddedClient.Result r = EmbeddedClient.run("127.0.0.1", sshd.getPort(), "demo", id, knownHosts,
                    "greet world");
            assertEquals("hello world, from demo over mlkem768x25519-sha256\n", r.out);
            assertEquals(0, r.status);
            assertTrue(Files.readString(knownHosts).contains("ssh-ed25519"), "host key remembered");

            EmbeddedClient.Result bad = EmbeddedClient.run("127.0.0.1", sshd.getPort(), "demo", id, knownHosts,
                    "rm -rf /");
            assertEquals(127, bad.status);
            assertEquals("unknown command: rm -rf / (try: greet NAME)\n", bad.err);

            assertThrows(IOException.class, () -> EmbeddedClient.run("127.0.0.1", sshd.getPort(), "demo", other,
                    knownHosts, "greet world"));
        } finally {
            sshd.stop(true);
        }
    }
}
