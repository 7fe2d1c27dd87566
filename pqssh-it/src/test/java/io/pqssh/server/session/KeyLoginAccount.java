package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.forward.ForwardingPolicy;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.ProcessIdentity;
import io.pqssh.server.login.SystemAccounts;

/**
 * A fresh system account that logs in to a root pqssh server with OpenSSH's ssh and an Ed25519 key in its
 * {@code ~/.ssh/authorized_keys}: the set-up of the tests that need a real other user (root only, as CI runs).
 */
final class KeyLoginAccount {
    final String user;
    final Path key;

    private KeyLoginAccount(String user, Path key) {
        this.user = user;
        this.key = key;
    }

    /** A unique account name with {@code prefix}, short enough for useradd. */
    static String uniqueName(String prefix) {
        return prefix + Long.toString(ProcessHandle.current().pid(), 36)
                + Integer.toString(new SecureRandom().nextInt(1 << 20), 36);
    }

    /** Creates {@code user} (shell /bin/sh, password '*') with a new key authorized; fails loudly without root. */
    static KeyLoginAccount create(Path dir, String user, String testName) throws Exception {
        if (ProcessIdentity.current().uid() != 0) {
            fail(testName + " needs root (it creates an account with useradd); CI runs as root");
        }
        for (String tool : List.of("/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/sbin/useradd")) {
            assertTrue(Files.isExecutable(Path.of(tool)), "MISSING " + tool + " (apt-get install openssh-client"
                    + " passwd)");
        }
        Path err = dir.resolve("err.txt");
        assertEquals(0, run(dir, List.of("/usr/sbin/useradd", "-m", "-s", "/bin/sh", "-p", "*", user), err),
                Files.readString(err));
        Path key = dir.resolve("id_ed25519");
        assertEquals(0, run(dir, List.of("/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                key.toString()), err));
        Path home = SystemAccounts.INSTANCE.byName(user).orElseThrow().home();
        Path keys = home.resolve(".ssh/authorized_keys");
        Files.createDirectories(keys.getParent());
        Files.writeString(keys, Files.readString(key.resolveSibling("id_ed25519.pub")));
        assertEquals(0, run(dir, List.of("chown", "-R", user + ":", keys.getParent().toString()), err));
        return new KeyLoginAccount(user, key);
    }

    /** A root server on loopback that switches to the logged-in account, with the default forwarding policy. */
    static PqsshServer rootServer() throws Exception {
        FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", true);
        return PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                .publickey(auth.publickey()).logins(LoginPolicy.switchingUsers(SystemAccounts.INSTANCE))
                .forwarding(ForwardingPolicy.DEFAULT).start();
    }

    /** OpenSSH's ssh with this account's key, no config, no host key check, forwarding failures fatal. */
    List<String> ssh(int port) {
        return List.of("/usr/bin/ssh", "-i", key.toString(), "-F", "none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "ExitOnForwardFailure=yes", "-p", String.valueOf(port));
    }

    /** Runs {@code cmd} with stdin from /dev/null, stderr to {@code err}; fails after 60 s. */
    static int run(Path dir, List<String> cmd, Path err) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            fail(String.join(" ", cmd) + " did not finish within 60 s: " + Files.readString(err));
        }
        return p.exitValue();
    }
}
