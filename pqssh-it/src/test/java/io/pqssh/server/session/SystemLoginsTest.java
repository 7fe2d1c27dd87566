package io.pqssh.server.session;

import static io.pqssh.server.session.LoginAccounts.capture;
import static io.pqssh.server.session.LoginAccounts.exec;
import static io.pqssh.server.session.LoginAccounts.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.apache.sshd.sftp.client.SftpClient;
import org.apache.sshd.sftp.client.SftpClientFactory;
import org.apache.sshd.sftp.common.SftpException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.ProcessIdentity;
import io.pqssh.server.login.SystemAccounts;

/**
 * Issue 11 §2 as root, with real accounts this test creates (and removes): each login runs as its own account
 * (uid, groups, HOME, USER, working directory, login shell) for KEM and Ed25519 logins, SFTP is OpenSSH's
 * sftp-server as the user (its home, no /etc/shadow); nologin, locked and unknown users are refused, each with a
 * valid key. Fails (does not skip) when not run as root.
 */
class SystemLoginsTest {
    private static final String SUFFIX = KeyLoginAccount.uniqueName("");
    private static final String ALICE = "pqsa" + SUFFIX;
    private static final String BOB = "pqsb" + SUFFIX;
    private static final String NOLOGIN = "pqsn" + SUFFIX;
    private static final String LOCKED = "pqsl" + SUFFIX;
    private static final String GHOST = "pqsg" + SUFFIX;
    private static final LoginAccounts ACCOUNTS = new LoginAccounts();

    @TempDir
    static Path dir;

    private static PqsshServer server;

    @BeforeAll
    static void setUp() throws Exception {
        if (ProcessIdentity.current().uid() != 0) {
            fail("SystemLoginsTest needs root (it creates accounts with useradd and runs sessions as them);"
                    + " CI runs as root");
        }
        for (String tool : List.of("/usr/sbin/useradd", "/usr/sbin/userdel", "/usr/sbin/usermod",
                SessionLaunch.SETPRIV)) {
            assertTrue(Files.isExecutable(Path.of(tool)), "MISSING " + tool + " (passwd / util-linux)");
        }
        assertTrue(UserSessions.findSftpServer().isPresent(),
                "MISSING OpenSSH sftp-server: apt-get install openssh-sftp-server");
        // useradd leaves the password "!" (locked for sshd without PAM): '*' is the key-only account
        ACCOUNTS.add(ALICE, "/bin/bash", "-G", "users");
        usermod(ALICE, "-p", "*");
        ACCOUNTS.add(BOB, "/bin/sh");
        usermod(BOB, "-p", "*");
        ACCOUNTS.add(NOLOGIN, "/usr/sbin/nologin");
        usermod(NOLOGIN, "-p", "*");
        ACCOUNTS.add(LOCKED, "/bin/bash");
        usermod(LOCKED, "-L");
        for (String u : List.of(ALICE, BOB, NOLOGIN, LOCKED)) {
            ACCOUNTS.authorize(home(u).resolve(".ssh/authorized_keys"), u);
        }
        // an absolute %u file: the way a name without an account used to log in
        Path keysDir = dir.resolve("keys");
        Files.createDirectories(keysDir);
        ACCOUNTS.authorize(keysDir.resolve(GHOST), "root");
        FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys " + keysDir + "/%u", "none", true);
        server = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                .publickey(auth.publickey()).kem(KemServerSettings.builder().authorizer(auth.kem()).build())
                .logins(LoginPolicy.switchingUsers(SystemAccounts.INSTANCE)).sftp(true).start();
    }

    @AfterAll
    static void tearDown() throws Exception {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            ACCOUNTS.removeAll();
        }
    }

    private static void usermod(String name, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/sbin/usermod"));
        cmd.addAll(List.of(args));
        cmd.add(name);
        assertEquals(0, run(cmd), "usermod " + cmd);
    }

    private static Path home(String user) {
        return SystemAccounts.INSTANCE.byName(user).orElseThrow().home();
    }

    @Test
    void eachUserRunsAsItselfWithKemAndEd25519() throws Exception {
        for (String user : List.of(ALICE, BOB)) {
            String uid = capture(List.of("id", "-u", user));
            Set<String> groups = new HashSet<>(List.of(capture(List.of("id", "-G", user)).split(" ")));
            String shell = SystemAccounts.INSTANCE.byName(user).orElseThrow().shell();
            for (boolean kem : new boolean[] {true, false}) {
                String how = user + (kem ? " publickey-kem" : " publickey ed25519");
                try (PqsshClient c = ACCOUNTS.client(kem);
                        ClientSession s = c.login(user, "127.0.0.1", server.port())) {
                    String[] got = exec(s, "id -u; id -G; echo \"$HOME|$USER|$LOGNAME|$SHELL|$PATH\"; pwd;"
                            + " ps -o comm= -p $$; :").split("\n");
                    assertEquals(uid, got[0], how + ": uid");
                    assertEquals(groups, new HashSet<>(List.of(got[1].split(" "))), how + ": groups");
                    assertEquals(home(user) + "|" + user + "|" + user + "|" + shell + "|" + SessionLaunch.USER_PATH,
                            got[2], how + ": environment");
                    assertEquals(home(user).toString(), got[3], how + ": working directory");
                    assertEquals(Path.of(shell).getFileName().toString(), got[4], how + ": login shell runs it");
                }
            }
        }
        assertTrue(capture(List.of("id", "-G", ALICE)).contains("100"), "alice is in group users (100)");
    }

    @Test
    void sftpServesTheUsersHomeAsTheUser() throws Exception {
        Files.writeString(home(BOB).resolve("marker.txt"), "bob's file\n");
        try (PqsshClient c = ACCOUNTS.client(true); ClientSession s = c.login(BOB, "127.0.0.1", server.port());
                SftpClient sftp = SftpClientFactory.instance().createSftpClient(s)) {
            assertEquals(home(BOB).toString(), sftp.canonicalPath("."));
            List<String> names = new ArrayList<>();
            sftp.readDir(".").forEach(e -> names.add(e.getFilename()));
            assertTrue(names.contains("marker.txt"), "home listing " + names);
            SftpException denied = assertThrows(SftpException.class,
                    () -> sftp.read("/etc/shadow").readAllBytes(), "bob read /etc/shadow");
            assertEquals(3, denied.getStatus(), "SSH_FX_PERMISSION_DENIED: " + denied);
            try (var out = sftp.write("uploaded.txt")) {
                out.write("x".getBytes(StandardCharsets.UTF_8));
            }
        }
        Path up = home(BOB).resolve("uploaded.txt");
        assertEquals(capture(List.of("id", "-u", BOB)), String.valueOf(Files.getAttribute(up, "unix:uid")),
                "a file written over sftp belongs to bob");
    }

    @Test
    void scpRunsAsTheUserWithSftpAndWithTheLegacyProtocol() throws Exception {
        for (String tool : List.of("/usr/bin/scp", "/usr/bin/ssh-keygen")) {
            assertTrue(Files.isExecutable(Path.of(tool)), "MISSING " + tool + " (apt-get install openssh-client)");
        }
        Path key = dir.resolve("id_scp");
        assertEquals(0, run(List.of("/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString())));
        Path keys = home(BOB).resolve(".ssh/authorized_keys");
        Files.writeString(keys, Files.readString(keys) + Files.readString(dir.resolve("id_scp.pub")));
        Path local = dir.resolve("payload.txt");
        Files.writeString(local, "payload\n");
        String target = BOB + "@127.0.0.1:";
        for (String protocol : List.of("-s", "-O")) { // -s: SFTP underneath (the default since 9.0), -O: scp -t
            String name = "scp" + protocol + ".txt";
            assertEquals(0, run(scp(key, protocol, local.toString(), target + name)), "scp " + protocol + " up");
            Path up = home(BOB).resolve(name);
            assertEquals(capture(List.of("id", "-u", BOB)), String.valueOf(Files.getAttribute(up, "unix:uid")),
                    "scp " + protocol + ": the file belongs to bob");
            assertTrue(run(scp(key, protocol, target + "/etc/shadow", dir.resolve("shadow" + protocol).toString()))
                    != 0, "scp " + protocol + " read /etc/shadow as bob");
        }
    }

    private static List<String> scp(Path key, String protocol, String from, String to) {
        return List.of("/usr/bin/scp", protocol, "-q", "-F", "/dev/null", "-o", "BatchMode=yes", "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes",
                "-i", key.toString(), "-P", String.valueOf(server.port()), from, to);
    }

    @Test
    void nologinLockedAndUnknownUsersAreRefusedDespiteAValidKey() throws Exception {
        for (String user : List.of(NOLOGIN, LOCKED, GHOST)) {
            for (boolean kem : new boolean[] {true, false}) {
                try (PqsshClient c = ACCOUNTS.client(kem)) {
                    assertThrows(IOException.class, () -> c.login(user, "127.0.0.1", server.port()).close(),
                            user + " logged in with " + (kem ? "publickey-kem" : "publickey"));
                }
            }
        }
        // the keys were valid: the account state was the reason
        usermod(LOCKED, "-p", "*");
        usermod(NOLOGIN, "-s", "/bin/sh");
        for (String user : List.of(NOLOGIN, LOCKED)) {
            try (PqsshClient c = ACCOUNTS.client(true); ClientSession s = c.login(user, "127.0.0.1", server.port())) {
                assertEquals(user, exec(s, "id -un").strip());
            }
        }
        usermod(LOCKED, "-L");
        usermod(NOLOGIN, "-s", "/usr/sbin/nologin");
    }

    @Test
    void aServerLimitedToOneUserRefusesEveryOther() throws Exception {
        FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", true);
        try (PqsshServer only = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                .kem(KemServerSettings.builder().authorizer(auth.kem()).build())
                .logins(LoginPolicy.serverUserOnly(SystemAccounts.INSTANCE, ALICE)).start()) {
            try (PqsshClient c = ACCOUNTS.client(true)) {
                assertThrows(IOException.class, () -> c.login(BOB, "127.0.0.1", only.port()).close(),
                        "bob logged in to a server limited to alice");
            }
            try (PqsshClient c = ACCOUNTS.client(true); ClientSession s = c.login(ALICE, "127.0.0.1", only.port())) {
                assertTrue(s.isAuthenticated());
            }
        }
        assertFalse(LoginPolicy.serverUserOnly(SystemAccounts.INSTANCE, ALICE).switchesUsers());
    }
}
