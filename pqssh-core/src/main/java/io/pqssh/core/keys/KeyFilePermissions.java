package io.pqssh.core.keys;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Permission handling for key files, as OpenSSH does it: private key files must not be accessible by group or
 * others, and are created {@code 0600} from the start (never written first and restricted afterwards); public key
 * files are {@code 0644}. On file systems without POSIX permissions the checks are skipped.
 */
public final class KeyFilePermissions {
    public static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");
    public static final Set<PosixFilePermission> PUBLIC = PosixFilePermissions.fromString("rw-r--r--");

    private KeyFilePermissions() {
    }

    /** The permission bits of a file as an octal-style int ({@code 0644}), or -1 without POSIX support. */
    public static int mode(Path file) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        if (view == null) {
            return -1;
        }
        return toMode(view.readAttributes().permissions());
    }

    /**
     * Refuses a private key file that group or others may read, write or execute, with OpenSSH's message
     * ({@code Permissions 0644 for 'FILE' are too open. ...}). Unlike OpenSSH, the check applies whoever owns the
     * file. Missing or unreadable files are {@link IOException}s.
     */
    public static void checkPrivateKeyFile(Path file) throws IOException, KeyFilePermissionException {
        int mode = mode(file);
        if (mode < 0) {
            return;
        }
        if ((mode & 0077) != 0) {
            throw new KeyFilePermissionException(file, mode, String.format(
                    "Permissions %04o for '%s' are too open. It is required that your private key files are NOT "
                            + "accessible by others. This private key will be ignored.",
                    mode, file));
        }
    }

    /** Writes a private key file with mode 0600, replacing an existing file atomically where possible. */
    public static void writePrivateKeyFile(Path file, byte[] content) throws IOException {
        write(file, content, PRIVATE);
    }

    public static void writePrivateKeyFile(Path file, String content) throws IOException {
        writePrivateKeyFile(file, content.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes a public key (or other non-secret) file with mode 0644. */
    public static void writePublicKeyFile(Path file, String content) throws IOException {
        write(file, content.getBytes(StandardCharsets.UTF_8), PUBLIC);
    }

    private static void write(Path file, byte[] content, Set<PosixFilePermission> perms) throws IOException {
        Path abs = file.toAbsolutePath();
        Path dir = abs.getParent();
        boolean posix = Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null;
        Path tmp;
        if (posix) {
            // created 0600 (umask can only remove bits), so the secret is never visible to others, not even briefly
            tmp = Files.createTempFile(dir, "." + abs.getFileName() + ".", ".tmp",
                    PosixFilePermissions.asFileAttribute(PRIVATE));
        } else {
            tmp = Files.createTempFile(dir, "." + abs.getFileName() + ".", ".tmp");
        }
        try {
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                out.write(content);
            }
            if (posix) {
                Files.setPosixFilePermissions(tmp, perms); // exact mode, independent of the umask
            }
            try {
                Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    static int toMode(Set<PosixFilePermission> perms) {
        int m = 0;
        for (PosixFilePermission p : perms) {
            m |= switch (p) {
                case OWNER_READ -> 0400;
                case OWNER_WRITE -> 0200;
                case OWNER_EXECUTE -> 0100;
                case GROUP_READ -> 0040;
                case GROUP_WRITE -> 0020;
                case GROUP_EXECUTE -> 0010;
                case OTHERS_READ -> 0004;
                case OTHERS_WRITE -> 0002;
                case OTHERS_EXECUTE -> 0001;
            };
        }
        return m;
    }
}
