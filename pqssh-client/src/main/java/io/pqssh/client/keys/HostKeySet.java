package io.pqssh.client.keys;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.List;

import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;

/**
 * {@code ssh-keygen -A}: one host key of every type OpenSSH 10.5 generates, under {@code PREFIX/etc/ssh/} with
 * OpenSSH's names (openssh-portable {@code do_gen_all_hostkeys}, {@code pathnames.h}); a type whose non-empty file
 * exists is skipped. Keys are unencrypted, commented {@code user@host}, written to a temporary name and renamed.
 */
public final class HostKeySet {
    /** A type, the name ssh-keygen prints while generating it, and its file under /etc/ssh. */
    public record HostKeyType(String type, String display, String fileName) {
    }

    /**
     * OpenSSH 10.5's list and order (RSA and ECDSA need OpenSSL there; ML-DSA needs its USE_MLDSA, on by default); the
     * composite is made under OpenSSH 10.6's name, as {@code -t mldsa44-ed25519} is.
     */
    public static final List<HostKeyType> OPENSSH_10_5 = List.of(
            new HostKeyType("rsa", "RSA", "ssh_host_rsa_key"),
            new HostKeyType("ecdsa", "ECDSA", "ssh_host_ecdsa_key"),
            new HostKeyType("ed25519", "ED25519", "ssh_host_ed25519_key"),
            new HostKeyType("mldsa44-ed25519", "MLDSA44-ED25519", "ssh_host_mldsa44_ed25519_key"));

    private HostKeySet() {
    }

    /** The directory the keys go to: {@code prefix + "/etc/ssh"} as ssh-keygen concatenates them. */
    public static Path directory(String prefix) {
        return Path.of((prefix == null ? "" : prefix) + "/etc/ssh");
    }

    /** Generates the missing keys; returns how many were generated. The directory must exist. */
    public static int generateMissing(Path dir, String comment, PrintStream out) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("Could not save host keys in " + dir
                    + ": no such directory (pqssh keygen -A does not create it)");
        }
        SecureRandom random = new SecureRandom();
        int made = 0;
        for (HostKeyType t : OPENSSH_10_5) {
            Path priv = dir.resolve(t.fileName());
            if (Files.exists(priv) && Files.size(priv) != 0) {
                continue;
            }
            if (made == 0) {
                out.print("pqssh keygen: generating new host keys: ");
            }
            out.print(t.display() + " ");
            out.flush();
            SshPrivateKey key = KeyTypes.generate(t.type(), null, random);
            try {
                Path tmp = dir.resolve(t.fileName() + ".pqssh-tmp");
                Path tmpPub = dir.resolve(t.fileName() + ".pub.pqssh-tmp");
                Files.deleteIfExists(tmp);
                Files.deleteIfExists(tmpPub);
                KeyFilePermissions.writePrivateKeyFile(tmp, OpenSshKeyV1.write(key, comment, null, random));
                String pub = key.keyType() + " " + java.util.Base64.getEncoder().encodeToString(key.publicKeyBlob())
                        + " " + comment + "\n";
                KeyFilePermissions.writePublicKeyFile(tmpPub, pub);
                Files.move(tmpPub, dir.resolve(t.fileName() + ".pub"), StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
                Files.move(tmp, priv, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                KeyTypes.destroyQuietly(key);
            }
            made++;
        }
        if (made > 0) {
            out.println();
        }
        return made;
    }
}
