package io.pqssh.common.forward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import org.apache.sshd.common.session.Session;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A Unix-domain listener appears at its path only with its final mode, and never replaces a file. */
class LocalForwardListenerTest {
    @TempDir
    Path dir;

    /** A session that is open and does nothing else: no connection comes in during these tests. */
    private static Session openSession() {
        return (Session) Proxy.newProxyInstance(Session.class.getClassLoader(), new Class<?>[] {Session.class},
                (p, m, a) -> m.getName().equals("isOpen") ? Boolean.TRUE : null);
    }

    private static boolean isSocket(Path p) throws IOException {
        return Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class,
                java.nio.file.LinkOption.NOFOLLOW_LINKS).isOther();
    }

    private List<String> leftovers() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".pqssh-bind-")).toList();
        }
    }

    @Test
    void theSocketHasItsModeAndNoStagingIsLeft() throws Exception {
        Path sock = dir.resolve("fwd.sock");
        for (int mask : new int[] {0177, 0117, 0}) {
            LocalForwardListener l = LocalForwardListener.unix(openSession(), sock, mask, false,
                    LocalForwardListener.Opening.directTcpip("127.0.0.1", 9), w -> { });
            try {
                String want = PosixFilePermissions.toString(LocalForwardListener.mode(mask));
                assertEquals(want, PosixFilePermissions.toString(Files.getPosixFilePermissions(sock)), "mask " + mask);
                assertTrue(isSocket(sock), "a socket, not a file");
                assertEquals(List.of(), leftovers());
            } finally {
                l.close();
            }
            assertTrue(Files.notExists(sock), "the listener removes its socket");
        }
    }

    @Test
    void anExistingFileIsNeverReplacedUnlessUnlinkIsAsked() throws Exception {
        Path sock = dir.resolve("taken");
        Files.writeString(sock, "mine");
        IOException e = assertThrows(IOException.class, () -> LocalForwardListener.unix(openSession(), sock, 0177,
                false, LocalForwardListener.Opening.directTcpip("127.0.0.1", 9), w -> { }));
        assertTrue(e.getMessage().contains("Address already in use"), e.getMessage());
        assertEquals("mine", Files.readString(sock));
        assertEquals(List.of(), leftovers());
        LocalForwardListener l = LocalForwardListener.unix(openSession(), sock, 0177, true,
                LocalForwardListener.Opening.directTcpip("127.0.0.1", 9), w -> { });
        try {
            assertTrue(isSocket(sock), "StreamLocalBindUnlink replaced the file with the socket");
        } finally {
            l.close();
        }
    }
}
