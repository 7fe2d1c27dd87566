package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pqssh keygen -Y sign|verify} against OpenSSH 10.5's vectors and Debian's ssh-keygen. */
class SshSigCliTest {
    private static final Path VECTORS = findVectors();

    /** The OpenSSH 10.5 vectors, copied from shared/vectors into pqssh-core's test resources. */
    private static Path findVectors() {
        Path v = Path.of("..", "pqssh-core", "src", "test", "resources", "sig", "openssh-10.5").toAbsolutePath();
        if (!Files.isDirectory(v)) {
            throw new IllegalStateException("OpenSSH 10.5 vectors missing at " + v);
        }
        return v;
    }

    private static int runWithStdin(byte[] stdin, String... args) {
        InputStream old = System.in;
        System.setIn(new ByteArrayInputStream(stdin));
        try {
            return Main.run(args);
        } finally {
            System.setIn(old);
        }
    }

    @Test
    void verifiesOpenSsh105CompositeSignatureAndRejectsTampered() throws Exception {
        byte[] msg = Files.readAllBytes(VECTORS.resolve("message.txt"));
        String signers = VECTORS.resolve("allowed_signers").toString();
        assertEquals(0, runWithStdin(msg, "keygen", "-Y", "verify", "-f", signers, "-I", "vector@pqssh", "-n",
                "file", "-s", VECTORS.resolve("message.txt.mldsa44-ed25519.sig").toString()));
        assertEquals(0, runWithStdin(msg, "keygen", "-Y", "verify", "-f", signers, "-I", "vector@pqssh", "-n",
                "file", "-s", VECTORS.resolve("message.txt.ed25519.sig").toString()));
        assertNotEquals(0, runWithStdin(msg, "keygen", "-Y", "verify", "-f", signers, "-I", "vector@pqssh", "-n",
                "file", "-s", VECTORS.resolve("message.txt.mldsa44-ed25519.tampered.sig").toString()));
        assertNotEquals(0, runWithStdin(msg, "keygen", "-Y", "verify", "-f", signers, "-I", "someone@else", "-n",
                "file", "-s", VECTORS.resolve("message.txt.mldsa44-ed25519.sig").toString()));
        assertNotEquals(0, runWithStdin(msg, "keygen", "-Y", "verify", "-f", signers, "-I", "vector@pqssh", "-n",
                "git", "-s", VECTORS.resolve("message.txt.mldsa44-ed25519.sig").toString()));
    }

    @Test
    void signsWithEveryFamilyAndVerifies(@TempDir Path dir) throws Exception {
        Path msg = dir.resolve("m.txt");
        Files.writeString(msg, "sign me\n");
        for (String type : List.of("ed25519", "mldsa65", "mldsa44-ed25519", "falcon512")) {
            Path key = dir.resolve("id_" + type);
            assertEquals(0, Main.run("keygen", "-q", "-t", type, "-N", "", "-C", "me@test", "-f", key.toString()));
            Files.deleteIfExists(dir.resolve("m.txt.sig"));
            assertEquals(0, Main.run("keygen", "-Y", "sign", "-f", key.toString(), "-n", "file", msg.toString()));
            Path signers = dir.resolve("signers");
            Files.writeString(signers, "me@test " + Files.readString(Path.of(key + ".pub")));
            assertEquals(0, runWithStdin(Files.readAllBytes(msg), "keygen", "-Y", "verify", "-f", signers.toString(),
                    "-I", "me@test", "-n", "file", "-s", dir.resolve("m.txt.sig").toString()), type);
            assertNotEquals(0, runWithStdin("tampered\n".getBytes(), "keygen", "-Y", "verify", "-f",
                    signers.toString(), "-I", "me@test", "-n", "file", "-s", dir.resolve("m.txt.sig").toString()),
                    type);
        }
    }

    @Test
    void openSshKeygenVerifiesPqsshEd25519Signature(@TempDir Path dir) throws Exception {
        Path sshKeygen = Path.of("/usr/bin/ssh-keygen");
        assertTrue(Files.isExecutable(sshKeygen), "this test needs /usr/bin/ssh-keygen (apt install openssh-client)");
        Path key = dir.resolve("id_ed25519");
        Path msg = dir.resolve("m.txt");
        Files.writeString(msg, "hello\n");
        assertEquals(0, Main.run("keygen", "-q", "-t", "ed25519", "-N", "", "-C", "me", "-f", key.toString()));
        assertEquals(0, Main.run("keygen", "-Y", "sign", "-f", key.toString(), "-n", "file", msg.toString()));
        Path signers = dir.resolve("signers");
        Files.writeString(signers, "me " + Files.readString(Path.of(key + ".pub")));
        Process p = new ProcessBuilder(sshKeygen.toString(), "-Y", "verify", "-f", signers.toString(), "-I", "me",
                "-n", "file", "-s", dir.resolve("m.txt.sig").toString()).redirectInput(msg.toFile())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.contains("Good \"file\" signature"), out);
    }
}
