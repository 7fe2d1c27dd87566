package io.pqssh.lab.load;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.mina.keys.PqKeyPairs;

/**
 * The keys of one lab run, fresh each time: an Ed25519 host key (shared by pqssh and sshd), and user keys for every
 * method (Ed25519, ML-DSA-65, ML-KEM-768) with their authorized_keys files.
 */
public final class LabKeys {
    public final Path dir;
    public final Path hostKey;
    public final PublicKey hostPublicKey;
    public final KeyPair ed25519;
    public final KeyPair mldsa65;
    public final KemKeyPair mlkem768;
    /** Every user key: for pqssh. */
    public final Path authorizedKeysAll;
    /** Only the keys OpenSSH 9.2 understands (Ed25519). */
    public final Path authorizedKeysOpenSsh;

    private LabKeys(Path dir, Path hostKey, PublicKey hostPublicKey, KeyPair ed25519, KeyPair mldsa65,
            KemKeyPair mlkem768, Path all, Path openssh) {
        this.dir = dir;
        this.hostKey = hostKey;
        this.hostPublicKey = hostPublicKey;
        this.ed25519 = ed25519;
        this.mldsa65 = mldsa65;
        this.mlkem768 = mlkem768;
        this.authorizedKeysAll = all;
        this.authorizedKeysOpenSsh = openssh;
    }

    /**
     * Lets another account read the two authorized-keys files (public keys only), for logins as an account other
     * than the lab's: sshd 9.2 opens {@code AuthorizedKeysFile} as the user. The key directory and {@code workDir}
     * (which holds it) become traversable (0711), the files readable (0644); the host's private key stays 0600.
     * Parents above {@code workDir} must already be traversable (a temporary directory under /tmp is).
     */
    public void shareAuthorizedKeys(Path workDir) throws java.io.IOException {
        var x = java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x");
        var r = java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--");
        Path top = workDir.toAbsolutePath().normalize();
        Path d = dir.toAbsolutePath().normalize();
        Files.setPosixFilePermissions(d, x);
        // only the directories from the key directory up to workDir, never above it
        while (d.startsWith(top) && !d.equals(top)) {
            d = d.getParent();
            Files.setPosixFilePermissions(d, x);
        }
        for (Path up = top.getParent(); up != null; up = up.getParent()) {
            if (!Files.getPosixFilePermissions(up).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
                throw new java.io.IOException(up + " is not traversable by other accounts (mode "
                        + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(up))
                        + "): the login account could not read the authorized keys under " + top
                        + "; use a --work-dir whose parents are (the default, under /tmp, is)");
            }
        }
        Files.setPosixFilePermissions(authorizedKeysAll, r);
        Files.setPosixFilePermissions(authorizedKeysOpenSsh, r);
    }

    public static LabKeys create(Path dir) throws Exception {
        Files.createDirectories(dir);
        KeyPair host = KeyUtils.generateKeyPair("ssh-ed25519", 256);
        Path hostKey = dir.resolve("ssh_host_ed25519_key");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(host, "pqssh lab host key", null, out);
        Files.deleteIfExists(hostKey);
        KeyFilePermissions.writePrivateKeyFile(hostKey, out.toByteArray());
        Files.writeString(dir.resolve("ssh_host_ed25519_key.pub"), PublicKeyEntry.toString(host.getPublic()) + "\n");
        KeyPair ed = KeyUtils.generateKeyPair("ssh-ed25519", 256);
        SecureRandom rnd = new SecureRandom();
        SshSigningKey md = SshSigningKey.generate(SignatureKeyType.MLDSA_65, rnd);
        KeyPair mdPair = PqKeyPairs.keyPair(md);
        KemKeyPair kem = MlKem.generate(KemAlgorithm.MLKEM768, rnd);
        String edLine = PublicKeyEntry.toString(ed.getPublic()) + " lab-ed25519\n";
        Path all = dir.resolve("authorized_keys");
        Files.writeString(all, edLine + md.publicKey().toOpenSsh("lab-mldsa65") + "\n"
                + new KemPublicKey(KemAlgorithm.MLKEM768, kem.publicKey()).toLine("lab-mlkem768") + "\n");
        Path openssh = dir.resolve("authorized_keys.openssh");
        Files.writeString(openssh, edLine);
        return new LabKeys(dir, hostKey, host.getPublic(), ed, mdPair, kem, all, openssh);
    }
}
