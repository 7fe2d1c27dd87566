package io.pqssh.common.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.login.ProcessIdentity;

/**
 * A root server hands the forwarded-agent socket and its directory to the login's account. If the account wins the
 * race and the socket's name is already a symlink to a root file when root changes the owner, the link itself is
 * given away, never its target (the old order, directory first and then a chown that follows links, gave the
 * account the target: any file, /etc/shadow included).
 */
class AgentSocketHandOverTest {
    @TempDir
    Path tmp;

    @Test
    void aSymlinkInPlaceOfTheSocketDoesNotGiveAwayItsTarget() throws Exception {
        if (ProcessIdentity.current().uid() != 0) {
            fail("AgentSocketHandOverTest needs root (it changes file owners); CI runs as root");
        }
        Path dir = Files.createDirectory(tmp.resolve("pqssh-agent"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path rootFile = Files.writeString(tmp.resolve("root-secret"), "root only\n");
        Path socket = dir.resolve("agent.1");
        Files.createSymbolicLink(socket, rootFile);
        UserPrincipal nobody = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");

        ForwardedAgentServer.handOver(dir, socket, nobody);

        assertEquals("root", Files.getOwner(rootFile, LinkOption.NOFOLLOW_LINKS).getName(),
                "the symlink's target was given to the account");
        assertEquals("nobody", Files.getOwner(socket, LinkOption.NOFOLLOW_LINKS).getName());
        assertEquals("nobody", Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName());
    }
}
