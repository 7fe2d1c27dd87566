package io.pqssh.server.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Map;

import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/**
 * The host key {@code pqssh server} uses when no {@code HostKey} is configured: never in the current directory.
 * Root: {@code /etc/pqssh/ssh_host_ed25519_key} (sshd's naming, in pqssh's own directory so that it never takes or
 * replaces the keys of the machine's sshd); anyone else: {@code $XDG_CONFIG_HOME/pqssh/} or
 * {@code ~/.config/pqssh/}; {@code $PQSSH_CONFIG_DIR}, when set to an absolute path, overrides both. Root is the
 * kernel's uid 0, not {@code $USER}. Generated (Ed25519, unencrypted, 0600) on first use, loaded afterwards.
 */
public final class DefaultHostKey {
    public static final String FILE_NAME = "ssh_host_ed25519_key";

    private DefaultHostKey() {
    }

    /** The directory for a user: root gets /etc/pqssh, others their XDG config directory. */
    public static Path directory(boolean root, Map<String, String> env, String home) {
        String own = env.get("PQSSH_CONFIG_DIR");
        if (own != null && !own.isBlank() && Path.of(own).isAbsolute()) {
            return Path.of(own);
        }
        if (root) {
            return Path.of("/etc/pqssh");
        }
        String xdg = env.get("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg)
                : Path.of(home, ".config");
        return base.resolve("pqssh");
    }

    /** This process's directory. */
    public static Path directory() {
        return directory(io.pqssh.server.login.ProcessIdentity.current().uid() == 0, System.getenv(),
                System.getProperty("user.home"));
    }

    /** A result: the file and whether it was made just now. */
    public record Location(Path file, boolean generated) {
        public String describe() {
            return "pqssh server: host key " + file + (generated ? " (generated)" : "");
        }
    }

    /**
     * The key file in {@code dir}, generated there if absent. The directory is created when missing (0700 for a
     * user's, 0755 for /etc/pqssh, as /etc/ssh).
     */
    public static Location ensure(Path dir) throws IOException {
        Path key = dir.resolve(FILE_NAME);
        if (Files.exists(key)) {
            return new Location(key, false);
        }
        if (!Files.isDirectory(dir)) {
            String mode = dir.startsWith("/etc") ? "rwxr-xr-x" : "rwx------";
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(mode)));
        }
        SecureRandom random = new SecureRandom();
        SshPrivateKey k = SshSigningKey.generate(SignatureKeyType.ED25519, random);
        try {
            String comment = "pqssh host key";
            KeyFilePermissions.writePrivateKeyFile(key, OpenSshKeyV1.write(k, comment, null, random));
            KeyFilePermissions.writePublicKeyFile(key.resolveSibling(FILE_NAME + ".pub"), k.keyType() + " "
                    + java.util.Base64.getEncoder().encodeToString(k.publicKeyBlob()) + " " + comment + "\n");
        } finally {
            try {
                k.destroy();
            } catch (javax.security.auth.DestroyFailedException ignored) {
                // best effort
            }
        }
        return new Location(key, true);
    }
}
