package io.pqssh.core.sig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.pqssh.core.sig.sshsig.SshSig;

/** SSHSIG for every key type, and interop with the installed ssh-keygen for Ed25519. */
class SshSigTest {
    private static final byte[] MSG = "signed file contents\n".getBytes(StandardCharsets.UTF_8);
    private static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");

    @ParameterizedTest
    @EnumSource(SignatureKeyType.class)
    void signAndVerifyEveryType(SignatureKeyType t) throws Exception {
        SshSigningKey k = SignatureKeyTypeTest.key(t);
        SshPublicKey pub = k.publicKey();
        String armored = SshSig.sign(k, "file", MSG);
        assertTrue(armored.startsWith(SshSig.BEGIN + "\n"));
        assertTrue(armored.endsWith(SshSig.END + "\n"));
        for (String line : armored.split("\n")) {
            assertTrue(line.length() <= 70 || line.startsWith("-----"));
        }
        assertTrue(SshSig.verify(armored, MSG, "file", pub));
        SshSig.Parsed p = SshSig.parse(armored);
        assertEquals("sha512", p.hashAlgorithm());
        assertEquals(pub, p.publicKey());
        assertTrue(p.verify(new ByteArrayInputStream(MSG), "file"));
        assertFalse(SshSig.verify(armored, MSG, "email", pub));
        assertFalse(SshSig.verify(armored, "tampered".getBytes(StandardCharsets.UTF_8), "file", pub));
    }

    @Test
    void sha256IsAcceptedOnVerify() throws Exception {
        SshSigningKey k = SignatureKeyTypeTest.key(SignatureKeyType.MLDSA44_ED25519);
        byte[] blob = SshSig.signBlob(k, "file", SshSig.SHA256, new ByteArrayInputStream(MSG));
        SshSig.Parsed p = SshSig.parse(blob);
        assertEquals("sha256", p.hashAlgorithm());
        assertTrue(p.verify(MSG, "file"));
        assertTrue(SshSig.verify(SshSig.armor(blob), MSG, "file", k.publicKey()));
    }

    @Test
    void sshKeygenVerifiesOurEd25519Signature(@TempDir Path dir) throws Exception {
        assertTrue(Files.isExecutable(SSH_KEYGEN), "this test needs /usr/bin/ssh-keygen (apt install openssh-client)");
        SshSigningKey k = SshSigningKey.generate(SignatureKeyType.ED25519, new java.security.SecureRandom());
        Path msg = Files.write(dir.resolve("msg.txt"), MSG);
        Path sig = Files.writeString(dir.resolve("msg.txt.sig"), SshSig.sign(k, "file", MSG));
        Path allowed = Files.writeString(dir.resolve("allowed_signers"),
                "pqssh@test " + k.publicKey().toOpenSsh(null) + "\n");
        assertEquals(0, keygenVerify(allowed, sig, msg, "file"), "ssh-keygen -Y verify accepts it");
        assertTrue(keygenVerify(allowed, sig, msg, "git") != 0, "and rejects another namespace");

        // and the other way round: ssh-keygen -Y sign, pqssh verifies
        Path msg2 = Files.write(dir.resolve("msg2.txt"), MSG);
        Path keyFile = dir.resolve("id_test");
        assertEquals(0, run(dir, SSH_KEYGEN.toString(), "-q", "-t", "ed25519", "-N", "", "-f", keyFile.toString()));
        assertEquals(0, run(dir, SSH_KEYGEN.toString(), "-q", "-Y", "sign", "-n", "file", "-f", keyFile.toString(),
                msg2.toString()));
        SshPublicKey theirs = SshPublicKey.parseOpenSsh(Files.readString(dir.resolve("id_test.pub")));
        String theirSig = Files.readString(dir.resolve("msg2.txt.sig"));
        assertTrue(SshSig.verify(theirSig, MSG, "file", theirs));
    }

    private static int keygenVerify(Path allowed, Path sig, Path msg, String ns) throws Exception {
        Process p = new ProcessBuilder(SSH_KEYGEN.toString(), "-Y", "verify", "-f", allowed.toString(), "-I",
                "pqssh@test", "-n", ns, "-s", sig.toString())
                .redirectInput(msg.toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        return p.exitValue();
    }

    private static int run(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        return p.exitValue();
    }
}
