package io.pqssh.inventory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.authorized.AuthorizedKeys;
import io.pqssh.core.keys.kem.KemPublicKey;

/** Builds an audit tree: three users' ~/.ssh and an /etc/ssh with Include and Match. */
public final class AuditFixtures {
    public final Path root;
    public final Path alice;
    public final Path bob;
    public final Path carol;
    public final Path etc;
    public String aliceEd25519Fp;
    public String bobCertFp;

    public AuditFixtures(Path root) throws Exception {
        this.root = root;
        alice = Files.createDirectories(root.resolve("home/alice/.ssh"));
        bob = Files.createDirectories(root.resolve("home/bob/.ssh"));
        carol = Files.createDirectories(root.resolve("home/carol/.ssh"));
        etc = Files.createDirectories(root.resolve("etc/ssh"));
        SecureRandom rnd = new SecureRandom();
        KemPublicKey kem = new KemPublicKey(KemAlgorithm.MLKEM768, MlKem.generate(KemAlgorithm.MLKEM768, rnd)
                .publicKey());

        String ed = line(KeyUtils.generateKeyPair("ssh-ed25519", 256), "alice@old");
        aliceEd25519Fp = fp(ed);
        Files.writeString(alice.resolve("authorized_keys"), String.join("\n",
                "# alice moved to ML-KEM",
                kem.toLine("alice@pq"),
                "from=\"10.0.0.0/8\",expiry-time=\"20301231\" " + ed,
                line(rsa(1024), "alice@ancient"),
                ""));

        Path userKey = LoopbackServers.sshKeygen(bob.resolve("id_ed25519"), "-t", "ed25519");
        Path ca = LoopbackServers.sshKeygen(root.resolve("ca"), "-t", "ed25519");
        Path certKey = LoopbackServers.sshKeygen(root.resolve("certkey"), "-t", "ed25519");
        new ProcessBuilder(LoopbackServers.SSH_KEYGEN.toString(), "-q", "-s", ca.toString(), "-I", "bob-cert",
                "-n", "bob", certKey + ".pub").redirectErrorStream(true).start().waitFor();
        String cert = Files.readString(root.resolve("certkey-cert.pub")).strip();
        bobCertFp = fp(cert);
        Files.writeString(bob.resolve("authorized_keys"), String.join("\n",
                line(ec("secp384r1"), "bob@laptop"),
                cert,
                "cert-authority,principals=\"bob\" " + line(rsa(3072), "bob-ca"),
                ""));
        // bob's own key pair, re-encrypted so the audit must not need the passphrase
        Process p = new ProcessBuilder(LoopbackServers.SSH_KEYGEN.toString(), "-q", "-p", "-P", "", "-N",
                "secret pass", "-f", userKey.toString()).redirectErrorStream(true).start();
        p.waitFor();
        String hostEc = line(ec("secp256r1"), "");
        String hostEd = line(KeyUtils.generateKeyPair("ssh-ed25519", 256), "");
        Files.writeString(bob.resolve("known_hosts"), String.join("\n",
                hashed("server.example") + " " + hostEd.strip(),
                "[host.example]:2222 " + hostEc.strip(),
                ""));

        Files.writeString(carol.resolve("authorized_keys"),
                line(KeyUtils.generateKeyPair("ssh-ed25519", 256), "carol@desk") + "\n");
        Files.writeString(carol.resolve("authorized_kem_keys"), AuthorizedKeys.formatKemKeyLine(
                new KemPublicKey(KemAlgorithm.MLKEM768, MlKem.generate(KemAlgorithm.MLKEM768, rnd).publicKey()),
                "carol@pq") + "\n");

        Files.createDirectories(etc.resolve("sshd_config.d"));
        Files.writeString(etc.resolve("sshd_config"), String.join("\n",
                "# test sshd_config",
                "Include sshd_config.d/*.conf",
                "KexAlgorithms +diffie-hellman-group1-sha1",
                "PasswordAuthentication no",
                "Match User bob",
                "    KexAlgorithms curve25519-sha256,ecdh-sha2-nistp256",
                ""));
        Files.writeString(etc.resolve("sshd_config.d/10-hardening.conf"),
                "KexAlgorithms -mlkem768x25519-sha256,sntrup761x25519-sha512*\n");
        Files.writeString(etc.resolve("sshd_config.d/20-fine.conf"),
                "KexAlgorithms mlkem768x25519-sha256,curve25519-sha256\n");
        Files.writeString(etc.resolve("ssh_config"), String.join("\n", "Host legacy", "    KexAlgorithms "
                + "^curve25519-sha256", "Host *", "    KexAlgorithms = mlkem768x25519-sha256", ""));
    }

    static String line(KeyPair kp, String comment) {
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putRawPublicKey(kp.getPublic());
        byte[] blob = b.getCompactData();
        return KeyUtils.getKeyType(kp) + " " + Base64.getEncoder().encodeToString(blob)
                + (comment.isEmpty() ? "" : " " + comment);
    }

    static String fp(String line) {
        return io.pqssh.core.keys.KeyFingerprints.sha256(Base64.getDecoder().decode(line.split(" ")[1]));
    }

    static KeyPair rsa(int bits) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(bits);
        return g.generateKeyPair();
    }

    static KeyPair ec(String curve) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec(curve));
        return g.generateKeyPair();
    }

    /** OpenSSH's HashKnownHosts form: |1|base64(salt)|base64(HMAC-SHA1(salt, host)). */
    static String hashed(String host) throws Exception {
        byte[] salt = new byte[20];
        new SecureRandom().nextBytes(salt);
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(salt, "HmacSHA1"));
        byte[] h = mac.doFinal(host.getBytes(StandardCharsets.US_ASCII));
        return "|1|" + Base64.getEncoder().encodeToString(salt) + "|" + Base64.getEncoder().encodeToString(h);
    }
}
