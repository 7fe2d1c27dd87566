package io.pqssh.core.keys;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key files are written to a temporary file in the same directory, synced, then renamed: never rewritten in place. */
class KeyFileAtomicWriteTest {
    @TempDir
    Path dir;

    private static final byte[] OLD = "old private key\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NEW = "new private key, longer than the old one\n".getBytes(StandardCharsets.UTF_8);

    private List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void failureBeforeTheRenameLeavesTheOldFileIntact() throws IOException {
        Path key = dir.resolve("id_mlkem768");
        KeyFilePermissions.writePrivateKeyFile(key, OLD);
        Object inode = Files.readAttributes(key, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        IOException e = assertThrows(IOException.class, () -> KeyFilePermissions.write(key, NEW,
                KeyFilePermissions.PRIVATE, tmp -> {
                    throw new IOException("simulated: disk full");
                }));
        assertEquals("simulated: disk full", e.getMessage());
        assertArrayEquals(OLD, Files.readAllBytes(key), "the old key must be untouched");
        assertEquals(inode, Files.readAttributes(key, java.nio.file.attribute.BasicFileAttributes.class).fileKey());
        assertEquals(0600, KeyFilePermissions.mode(key));
        assertEquals(List.of("id_mlkem768"), names(), "the temporary file must be removed");
    }

    @Test
    void theNewContentIsCompleteAndPrivateInASiblingTempFileBeforeTheRename() throws IOException {
        Path key = dir.resolve("id_ed25519");
        Files.write(key, OLD);
        AtomicReference<Path> seen = new AtomicReference<>();
        KeyFilePermissions.write(key, NEW, KeyFilePermissions.PRIVATE, tmp -> {
            seen.set(tmp);
            assertEquals(dir.toAbsolutePath(), tmp.getParent(), "temp file in the target's directory");
            assertArrayEquals(NEW, Files.readAllBytes(tmp));
            assertEquals(0600, KeyFilePermissions.mode(tmp));
            assertArrayEquals(OLD, Files.readAllBytes(key), "target not touched before the rename");
        });
        assertTrue(seen.get() != null && !Files.exists(seen.get()));
        assertArrayEquals(NEW, Files.readAllBytes(key));
        assertEquals(0600, KeyFilePermissions.mode(key));
        assertEquals(List.of("id_ed25519"), names());
    }

    @Test
    void replacingAPublicKeyIsARenameNotAnInPlaceRewrite() throws IOException {
        Path pub = dir.resolve("id.pub");
        Files.writeString(pub, "old\n");
        Files.setPosixFilePermissions(pub, PosixFilePermissions.fromString("rw-------"));
        Object before = Files.readAttributes(pub, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        KeyFilePermissions.writePublicKeyFile(pub, "new\n");
        assertNotEquals(before, Files.readAttributes(pub, java.nio.file.attribute.BasicFileAttributes.class)
                .fileKey(), "a new inode: the old file was replaced by rename");
        assertEquals("new\n", Files.readString(pub));
        assertEquals(0644, KeyFilePermissions.mode(pub));
    }

    @Test
    void aRealRenameFailureLeavesTheTargetAndNoTempFile() throws IOException {
        // the target is a non-empty directory: the rename fails (no seam involved)
        Path target = Files.createDirectory(dir.resolve("id_rsa"));
        Files.writeString(target.resolve("keep"), "x");
        assertThrows(IOException.class, () -> KeyFilePermissions.writePrivateKeyFile(target, NEW));
        assertEquals("x", Files.readString(target.resolve("keep")));
        assertEquals(List.of("id_rsa"), names());
    }
}
