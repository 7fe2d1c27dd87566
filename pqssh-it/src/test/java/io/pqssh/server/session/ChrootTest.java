package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.login.Account;

/** ChrootDirectory's tokens and sshd's safely_chroot refusals, in sshd's words. */
class ChrootTest {
    private static final Account ALICE = new Account("alice", 1234, 1234, Path.of("/home/alice"), "/bin/bash");

    @Test
    void tokensExpandAsSshdsPercentExpand() throws IOException {
        assertEquals("/srv/chroot/alice/1234/%/home/alice", Chroot.expand("/srv/chroot/%u/%U/%%%h", ALICE));
        IOException e = assertThrows(IOException.class, () -> Chroot.expand("/srv/%x", ALICE));
        assertEquals("ChrootDirectory /srv/%x: unknown key %x", e.getMessage());
    }

    @Test
    void relativeWritableAndNonDirectoryPathsAreRefused(@TempDir Path dir) throws IOException {
        assertEquals("chroot path does not begin at root",
                assertThrows(IOException.class, () -> Chroot.check("home/alice")).getMessage());
        // a group-writable directory on the way: its group could swap what is below
        Path shared = Files.createDirectories(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxr-x"));
        Path jail = Files.createDirectories(shared.resolve("jail"));
        String msg = assertThrows(IOException.class, () -> Chroot.check(jail.toRealPath().toString())).getMessage();
        assertTrue(msg.startsWith("bad ownership or modes for chroot directory component \""), msg);
        assertEquals("safely_chroot: stat(\"/nonexistent-pqssh\"): No such file or directory",
                assertThrows(IOException.class, () -> Chroot.check("/nonexistent-pqssh/x")).getMessage());
        assertEquals("chroot path \"/etc/hostname\" is not a directory",
                assertThrows(IOException.class, () -> Chroot.check("/etc/hostname")).getMessage());
        assertEquals(Path.of("/"), Chroot.check("/"));
    }
}
