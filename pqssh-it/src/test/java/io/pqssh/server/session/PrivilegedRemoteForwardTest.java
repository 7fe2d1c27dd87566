package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.PqsshServer;

/**
 * sshd's {@code bind_permitted} on a root server: a fresh (non-root) account's {@code ssh -R P:...} with P below 1024
 * fails as it fails against sshd ({@code remote port forwarding failed for listen port P}) and nothing listens on P;
 * the same account's {@code -R 0:...} (a port the kernel picks) still works.
 */
class PrivilegedRemoteForwardTest {
    private static final String USER = KeyLoginAccount.uniqueName("pqrf");

    @TempDir
    Path dir;

    /** A privileged loopback port nothing listens on now (root can bind it, so the server could too). */
    private static int freePrivilegedPort() throws Exception {
        for (int port = 1023; port > 600; port--) {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress("127.0.0.1", port));
                return port;
            } catch (java.io.IOException taken) {
                // try the next one
            }
        }
        throw new IllegalStateException("no free port between 601 and 1023");
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void aUsersRemoteForwardCannotTakeAPrivilegedPortOfARootServer() throws Exception {
        KeyLoginAccount account = KeyLoginAccount.create(dir, USER, "PrivilegedRemoteForwardTest");
        Path err = dir.resolve("err.txt");
        PqsshServer server = null;
        try {
            server = KeyLoginAccount.rootServer();
            List<String> ssh = account.ssh(server.port());

            int privileged = freePrivilegedPort();
            List<String> refused = new ArrayList<>(ssh);
            refused.addAll(List.of("-R", privileged + ":127.0.0.1:9", USER + "@127.0.0.1",
                    "sleep 1; exit 7"));
            int rc = KeyLoginAccount.run(dir, refused, err);
            String stderr = Files.readString(err);
            assertFalse(listening(privileged), "the root server listened on port " + privileged + " for " + USER);
            assertEquals(255, rc, stderr);
            assertTrue(stderr.contains("remote port forwarding failed for listen port " + privileged), stderr);

            List<String> anyPort = new ArrayList<>(ssh);
            anyPort.addAll(List.of("-R", "0:127.0.0.1:9", USER + "@127.0.0.1", "exit 7"));
            rc = KeyLoginAccount.run(dir, anyPort, err);
            stderr = Files.readString(err);
            assertEquals(7, rc, stderr);
            assertTrue(stderr.contains("Allocated port"), stderr);
        } finally {
            if (server != null) {
                server.close();
            }
            TestAccounts.remove(USER);
        }
    }
}
