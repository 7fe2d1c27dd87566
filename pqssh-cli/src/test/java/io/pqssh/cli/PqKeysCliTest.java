package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.core.sig.SshSigningKey;

/**
 * {@code pqssh server -o HostKey=...} and {@code pqssh ssh -i ...} with PQ signature keys, in this JVM over
 * loopback: OpenSSH 10.5's {@code id_mldsa44_ed25519} and a {@code known_hosts} line for its key work unchanged,
 * an ssh-keygen Ed25519 host key keeps working, a pqssh-generated Falcon user key logs in, a changed PQ host key is
 * refused with exit 255.
 */
class PqKeysCliTest {
    private static final Path VECTORS = Path.of("..", "pqssh-core", "src", "test", "resources", "sig",
            "openssh-10.5").toAbsolutePath().normalize();

    private static Path copyPrivate(Path dir, String name) throws Exception {
        Path src = VECTORS.resolve(name);
        assertTrue(Files.isRegularFile(src), "OpenSSH 10.5 vector missing: " + src);
        Path dst = dir.resolve(name);
        KeyFilePermissions.writePrivateKeyFile(dst, Files.readString(src));
        return dst;
    }

    @Test
    void serverAndSshWithPqKeys(@TempDir Path dir) throws Exception {
        Path composite = copyPrivate(dir, "id_mldsa44_ed25519");
        Path ed25519 = copyPrivate(dir, "id_ed25519");
        String compositePub = Files.readString(VECTORS.resolve("id_mldsa44_ed25519.pub")).strip();
        Path mldsaHost = dir.resolve("ssh_host_mldsa65_key");
        assertEquals(0, Main.run("keygen", "-q", "-t", "mldsa65", "-N", "", "-f", mldsaHost.toString()));
        Path falcon = dir.resolve("id_falcon512");
        assertEquals(0, Main.run("keygen", "-q", "-t", "falcon512", "-N", "", "-C", "f@test", "-f",
                falcon.toString()));
        Path ak = dir.resolve("authorized_keys");
        Files.writeString(ak, compositePub + "\n" + Files.readString(Path.of(falcon + ".pub")));
        Path portFile = dir.resolve("port");

        AtomicInteger serverRc = new AtomicInteger(Integer.MIN_VALUE);
        Thread server = new Thread(() -> serverRc.set(Main.run("server", "-D", "-p", "0", "--port-file",
                portFile.toString(), "-o", "HostKey=" + ed25519, "-o", "HostKey=" + composite, "-o",
                "HostKey=" + mldsaHost, "-o", "AuthorizedKeysFile=" + ak, "-o", "KEMAuthentication=no")),
                "pqssh-server-under-test");
        server.setDaemon(true);
        server.start();
        try {
            String port = waitForPort(portFile, server);
            // an OpenSSH 10.5 user's key and known_hosts line for the composite host key, unchanged
            Path kh = dir.resolve("known_hosts");
            Files.writeString(kh, "[127.0.0.1]:" + port + " " + compositePub + "\n");
            assertEquals(7, ssh(port, composite, kh, "yes"), "composite user key, known composite host key");
            // pqssh's own Falcon key; nothing known yet: accept-new writes the host key it was offered
            Path kh2 = dir.resolve("known_hosts2");
            assertEquals(7, ssh(port, falcon, kh2, "accept-new"), "falcon user key, accept-new");
            List<String> written = Files.readAllLines(kh2).stream().filter(l -> !l.isBlank()).toList();
            assertEquals(1, written.size(), String.valueOf(written));
            assertTrue(written.get(0).startsWith("[127.0.0.1]:" + port + " ssh-ed25519 "),
                    "default order asks for the ssh-keygen Ed25519 host key first: " + written);
            assertEquals(7, ssh(port, falcon, kh2, "yes"), "and it is then checked");
            // a different composite key recorded for this host: refused, exit 255
            SshSigningKey other = SshSigningKey.generate(SignatureKeyType.MLDSA44_ED25519,
                    new java.security.SecureRandom());
            Path kh3 = dir.resolve("known_hosts3");
            Files.writeString(kh3, "[127.0.0.1]:" + port + " " + other.publicKey().toOpenSsh(null) + "\n");
            assertEquals(255, ssh(port, composite, kh3, "accept-new"), "changed PQ host key");
            assertEquals(other.publicKey(), SshPublicKey.parseOpenSsh(Files.readString(kh3).strip().split(" ", 2)[1]),
                    "the known_hosts file is left alone");
        } finally {
            server.interrupt();
            server.join(10_000);
        }
        assertTrue(!server.isAlive(), "pqssh server stopped");
    }

    /**
     * The AND composites by their short names and by their full SSH names: the files written decode to the right
     * type and sizes, {@code -y} gives the public key line of the private key (checked by a signature made with the
     * private key and verified with the printed line), {@code -l} gives its SHA256 fingerprint.
     */
    @Test
    void keygenAndCompositesByShortAndFullName(@TempDir Path dir) throws Exception {
        java.util.Map<String, SignatureKeyType> names = new java.util.LinkedHashMap<>();
        names.put("ed25519-mldsa65", SignatureKeyType.ED25519_MLDSA_65);
        names.put("ed25519-slhdsa192f", SignatureKeyType.ED25519_SLHDSA_SHA2_192F);
        names.put("ssh-ed25519-mldsa-65", SignatureKeyType.ED25519_MLDSA_65);
        names.put("ssh-ed25519-slhdsapuresha2192f", SignatureKeyType.ED25519_SLHDSA_SHA2_192F);
        int[][] sizes = {{1984, 3373}, {80, 35728}};
        for (java.util.Map.Entry<String, SignatureKeyType> e : names.entrySet()) {
            SignatureKeyType t = e.getValue();
            int[] expected = sizes[t == SignatureKeyType.ED25519_MLDSA_65 ? 0 : 1];
            assertEquals(expected[0], t.publicKeySize(), t.sshName());
            Path key = dir.resolve("id_" + e.getKey());
            CliHarness.Result gen = CliHarness.pqssh("keygen", "-q", "-t", e.getKey(), "-N", "", "-C", "and@test",
                    "-f", key.toString());
            assertEquals(0, gen.rc(), gen.all());
            String pubFile = Files.readString(Path.of(key + ".pub")).strip();
            SshPublicKey pub = SshPublicKey.parseOpenSsh(pubFile);
            assertEquals(t, pub.type(), e.getKey());
            assertEquals(expected[0], pub.rawKey().length, e.getKey());
            assertTrue(pubFile.startsWith(t.sshName() + " ") && pubFile.endsWith(" and@test"), pubFile);

            CliHarness.Result y = CliHarness.pqssh("keygen", "-y", "-f", key.toString());
            assertEquals(0, y.rc(), y.all());
            String line = y.out().strip();
            assertEquals(pubFile, line, "-y of " + e.getKey());
            io.pqssh.core.keys.openssh.OpenSshPrivateKey priv = io.pqssh.core.keys.openssh.OpenSshKeyV1.readFile(key,
                    null);
            try {
                SshSigningKey sk = (SshSigningKey) priv.key();
                assertEquals(t, sk.type());
                byte[] msg = ("message for " + e.getKey()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                byte[] sig = sk.sign(msg);
                io.pqssh.core.wire.SshReader sr = new io.pqssh.core.wire.SshReader(sig);
                assertEquals(t.sshName(), sr.getUtf8());
                assertEquals(expected[1], sr.getString().length, e.getKey() + " signature size");
                SshPublicKey printed = SshPublicKey.parseOpenSsh(line);
                assertTrue(printed.verify(msg, sig), "-y line verifies the private key's signature");
                msg[0] ^= 1;
                assertTrue(!printed.verify(msg, sig), "and not over other data");
            } finally {
                priv.destroy();
            }

            CliHarness.Result l = CliHarness.pqssh("keygen", "-l", "-f", key.toString());
            assertEquals(0, l.rc(), l.all());
            String fp = pub.fingerprintSha256();
            assertTrue(fp.startsWith("SHA256:"), fp);
            assertTrue(l.out().contains(" " + fp + " and@test "), l.all());
            CliHarness.Result lp = CliHarness.pqssh("keygen", "-l", "-f", key + ".pub");
            assertEquals(0, lp.rc(), lp.all());
            assertTrue(lp.out().contains(" " + fp + " "), lp.all());
        }
    }

    @Test
    void keygenFingerprintsPostQuantumCertificatesByTheirKeys(@TempDir Path dir) throws Exception {
        Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
        java.util.Map<String, String> labels = new java.util.LinkedHashMap<>();
        labels.put("mldsa65", "192 %s cert@test (MLDSA-65-CERT)");
        labels.put("mldsa44-ed25519", "256 %s cert@test (MLDSA44-ED25519-CERT)");
        labels.put("mldsa44-ed25519@openssh.com", "256 %s cert@test (MLDSA44-ED25519-CERT)");
        labels.put("ed25519-mldsa65", "256 %s cert@test (ED25519-MLDSA-65-CERT)");
        labels.put("falcon512", "128 %s cert@test (FALCON512-CERT)");
        labels.put("mlkem768", "768 %s cert@test (MLKEM768-CERT)");
        int n = 0;
        for (java.util.Map.Entry<String, String> e : labels.entrySet()) {
            Path key = dir.resolve("id_" + n++);
            CliHarness.Result gen = CliHarness.pqssh("keygen", "-q", "-t", e.getKey(), "-N", "", "-C", "cert@test",
                    "-f", key.toString());
            assertEquals(0, gen.rc(), gen.all());
            CliHarness.Result sign = CliHarness.pqssh("keygen", "-q", "-s", ca.toString(), "-I", "id", "-n", "alice",
                    key + ".pub");
            assertEquals(0, sign.rc(), sign.all());
            Path cert = dir.resolve(key.getFileName() + "-cert.pub");
            String certType = Files.readString(cert).split(" ")[0];
            assertTrue(io.pqssh.core.cert.CertificateKeyTypes.isCertificate(certType), certType);
            String fp = CliHarness.pqssh("keygen", "-l", "-f", key + ".pub").out().strip().split(" ")[1];
            CliHarness.Result l = CliHarness.pqssh("keygen", "-l", "-f", cert.toString());
            assertEquals(0, l.rc(), l.all());
            assertEquals(String.format(e.getValue(), fp), l.out().strip(), e.getKey());
        }
    }

    private static int ssh(String port, Path identity, Path knownHosts, String strict) {
        return Main.run("ssh", "-p", port, "-i", identity.toString(), "-o", "StrictHostKeyChecking=" + strict,
                "-o", "UserKnownHostsFile=" + knownHosts, "-o", "PreferredAuthentications=publickey",
                "-o", "KEMAuthentication=no", "-o", "ConnectTimeout=20", CliHarness.user() + "@127.0.0.1", "exit", "7");
    }

    private static String waitForPort(Path portFile, Thread server) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.exists(portFile)) {
                String p = Files.readString(portFile).strip();
                if (!p.isEmpty()) {
                    return p;
                }
            }
            if (!server.isAlive()) {
                throw new AssertionError("pqssh server exited before listening");
            }
            Thread.sleep(50);
        }
        throw new AssertionError("pqssh server did not write its port within 30 s");
    }
}
