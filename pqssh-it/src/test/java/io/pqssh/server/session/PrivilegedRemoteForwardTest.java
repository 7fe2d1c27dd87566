package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.forward.ForwardingPolicy;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.ProcessIdentity;
import io.pqssh.server.login.SystemAccounts;

/**
 * sshd's {@code bind_permitted} on a root server: a fresh (non-root) account's {@code ssh -R P:...} with P below 1024
 * fails as it fails against sshd ({@code remote port forwarding failed for listen port P}) and nothing listens on P;
 * the same account's {@code -R 0:...} (a port the kernel picks) still works.
 */
class PrivilegedRemoteForwardTest {
    private static final String USER = "pqrf" + Long.toString(ProcessHandle.current().pid(), 36)
            + Integer.toString(new SecureRandom().nextInt(1 << 20), 36);

    @TempDir
    Path dir;

    private static int run(Path dir, List<String> cmd, Path err) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            fail(String.join(" ", cmd) + " did not finish within 60 s: " + Files.readString(err));
        }
        return p.exitValue();
    }

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
        if (ProcessIdentity.current().uid() != 0) {
            fail("PrivilegedRemoteForwardTest needs root (it creates an account with useradd); CI runs as root");
        }
        for (String tool : List.of("/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/sbin/useradd")) {
            assertTrue(Files.isExecutable(Path.of(tool)), "MISSING " + tool + " (apt-get install openssh-client"
                    + " passwd)");
        }
        Path err = dir.resolve("err.txt");
        assertEquals(0, run(dir, List.of("/usr/sbin/useradd", "-m", "-s", "/bin/sh", "-p", "*", USER), err),
                Files.readString(err));
        PqsshServer server = null;
        try {
            Path key = dir.resolve("id_ed25519");
            assertEquals(0, run(dir, List.of("/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                    key.toString()), err));
            Path home = SystemAccounts.INSTANCE.byName(USER).orElseThrow().home();
            Path keys = home.resolve(".ssh/authorized_keys");
            Files.createDirectories(keys.getParent());
            Files.writeString(keys, Files.readString(key.resolveSibling("id_ed25519.pub")));
            assertEquals(0, run(dir, List.of("chown", "-R", USER + ":", keys.getParent().toString()), err));
            FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", true);
            server = PqsshServer.builder().host("127.0.0.1").port(0)
                    .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                    .publickey(auth.publickey()).logins(LoginPolicy.switchingUsers(SystemAccounts.INSTANCE))
                    .forwarding(ForwardingPolicy.DEFAULT).start();
            List<String> ssh = List.of("/usr/bin/ssh", "-i", key.toString(), "-F", "none", "-o", "BatchMode=yes",
                    "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    "-o", "ExitOnForwardFailure=yes", "-p", String.valueOf(server.port()));

            int privileged = freePrivilegedPort();
            List<String> refused = new ArrayList<>(ssh);
            refused.addAll(List.of("-R", privileged + ":127.0.0.1:9", USER + "@127.0.0.1",
                    "sleep 1; exit 7"));
            int rc = run(dir, refused, err);
            String stderr = Files.readString(err);
            assertFalse(listening(privileged), "the root server listened on port " + privileged + " for " + USER);
            assertEquals(255, rc, stderr);
            assertTrue(stderr.contains("remote port forwarding failed for listen port " + privileged), stderr);

            List<String> anyPort = new ArrayList<>(ssh);
            anyPort.addAll(List.of("-R", "0:127.0.0.1:9", USER + "@127.0.0.1", "exit 7"));
            rc = run(dir, anyPort, err);
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
