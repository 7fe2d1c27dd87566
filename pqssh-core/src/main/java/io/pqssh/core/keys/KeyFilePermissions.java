package io.pqssh.core.keys;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
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

    /** A step run on the complete, synced temporary file just before the rename (tests inject failures here). */
    interface BeforeRename {
        void run(Path tmp) throws IOException;
    }

    private static void write(Path file, byte[] content, Set<PosixFilePermission> perms) throws IOException {
        write(file, content, perms, tmp -> { });
    }

    /**
     * Writes {@code content} into a new temporary file in the target's directory, forces it to disk, then renames it
     * over the target (atomically where the file system can). On any error the temporary file is deleted and an
     * existing target is left as it was: a key file is never truncated or rewritten in place.
     */
    static void write(Path file, byte[] content, Set<PosixFilePermission> perms, BeforeRename beforeRename)
            throws IOException {
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
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buf = ByteBuffer.wrap(content);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true); // the data is on disk before the name points at it
            }
            if (posix) {
                Files.setPosixFilePermissions(tmp, perms); // exact mode, independent of the umask
            }
            beforeRename.run(tmp);
            try {
                Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
            }
            syncDirectory(dir);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Makes the rename durable; best effort, as not every file system lets a directory be opened and synced. */
    private static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // the file itself is complete and synced; only the rename's durability after a crash is not assured
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
