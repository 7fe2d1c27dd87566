package io.pqssh.mina.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.mina.server.FileKeyAuthorizers;
import io.pqssh.mina.server.PqsshServer;
import io.pqssh.mina.server.forward.ForwardingPolicy;
import io.pqssh.mina.server.login.LoginPolicy;
import io.pqssh.mina.server.login.ProcessIdentity;
import io.pqssh.mina.server.login.SystemAccounts;

/**
 * A root pqssh server refuses Unix-domain socket forwarding to an account other than root (it would create the
 * socket with root's rights, where sshd acts as the user): OpenSSH's {@code ssh -R /path:host:port} as a fresh
 * account fails with ssh's own message and no socket appears, while TCP forwarding stays allowed.
 */
class StreamLocalOtherUserTest {
    private static final String USER = "pqsl" + Long.toString(ProcessHandle.current().pid(), 36)
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

    @Test
    void aRootServerRefusesSocketForwardingForAnotherAccount() throws Exception {
        if (ProcessIdentity.current().uid() != 0) {
            fail("StreamLocalOtherUserTest needs root (it creates an account with useradd); CI runs as root");
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
            Path socket = dir.resolve("other-user.sock");
            List<String> ssh = List.of("/usr/bin/ssh", "-i", key.toString(), "-F", "none", "-o", "BatchMode=yes",
                    "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    "-o", "ExitOnForwardFailure=yes", "-p", String.valueOf(server.port()));
            List<String> unix = new java.util.ArrayList<>(ssh);
            unix.addAll(List.of("-R", socket + ":127.0.0.1:9", USER + "@127.0.0.1", "exit 7"));
            assertEquals(255, run(dir, unix, err), Files.readString(err));
            assertTrue(Files.readString(err).contains("remote port forwarding failed for listen path " + socket),
                    Files.readString(err));
            assertFalse(Files.exists(socket), "the socket was created for another account");

            // the same login with a TCP -R works: only the socket forwarding is refused
            List<String> tcp = new java.util.ArrayList<>(ssh);
            tcp.addAll(List.of("-R", "0:127.0.0.1:9", USER + "@127.0.0.1", "exit 7"));
            assertEquals(7, run(dir, tcp, err), Files.readString(err));
        } finally {
            if (server != null) {
                server.close();
            }
            TestAccounts.remove(USER);
        }
    }
}
