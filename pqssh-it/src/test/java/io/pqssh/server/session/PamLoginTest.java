package io.pqssh.server.session;

import static io.pqssh.server.session.LoginAccounts.capture;
import static io.pqssh.server.session.LoginAccounts.exec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.client.PqsshClient;
import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.PamLogins;
import io.pqssh.server.login.ProcessIdentity;
import io.pqssh.server.login.SystemAccounts;

/**
 * Issue 20 §2, UsePAM, as root with the system's Linux-PAM and accounts this test creates (and removes): a
 * {@code useradd} account (password {@code !}) logs in with a key through Debian's {@code sshd} PAM service and is
 * refused without PAM (sshd's locked-account rule); a PAM service whose account stack is pam_deny refuses key and
 * KEM logins; keyboard-interactive runs pam_unix's conversation for OpenSSH's ssh (SSH_ASKPASS), the right password
 * logs in and a wrong one does not. Fails (does not skip) when not root or /etc/pam.d/sshd is missing.
 */
class PamLoginTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String SUFFIX = KeyLoginAccount.uniqueName("");
    private static final String FRESH = "pqpf" + SUFFIX;
    private static final String DENY_SERVICE = "pqssh-test-deny-" + SUFFIX;
    private static final String PASSWORD = "pam-" + Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
    private static final LoginAccounts ACCOUNTS = new LoginAccounts();
    private static FileKeyAuthorizers auth;
    private static Path denyFile;

    @TempDir
    static Path dir;

    @BeforeAll
    static void setUp() throws Exception {
        if (ProcessIdentity.current().uid() != 0) {
            fail("PamLoginTest needs root (useradd, PAM's pam_unix reading /etc/shadow); CI runs as root");
        }
        assertTrue(Files.isRegularFile(Path.of("/etc/pam.d/sshd")),
                "MISSING /etc/pam.d/sshd: apt-get install openssh-server");
        assertEquals(null, io.pqssh.server.login.Pam.unavailableReason(), "libpam.so.0 (libpam0g)");
        // useradd's password field stays "!": what sshd without PAM calls locked
        ACCOUNTS.add(FRESH, "/bin/bash");
        String shadow = SystemAccounts.INSTANCE.shadowEntry(FRESH).orElseThrow();
        assertTrue(shadow.split(":")[1].startsWith("!"), "useradd leaves '!': " + shadow.split(":")[1]);
        ACCOUNTS.authorize(SystemAccounts.INSTANCE.byName(FRESH).orElseThrow().home().resolve(".ssh/authorized_keys"),
                FRESH);
        auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", true);
        denyFile = Path.of("/etc/pam.d", DENY_SERVICE);
        Files.writeString(denyFile, "auth required pam_unix.so\naccount required pam_deny.so\n"
                + "session required pam_permit.so\n");
    }

    @AfterAll
    static void tearDown() throws Exception {
        try {
            if (denyFile != null) {
                Files.deleteIfExists(denyFile);
            }
        } finally {
            ACCOUNTS.removeAll();
        }
    }

    private static PqsshServer server(String pamService, boolean kbd) throws Exception {
        LoginPolicy policy = LoginPolicy.switchingUsers(SystemAccounts.INSTANCE);
        PqsshServer.Builder b = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                .publickey(auth.publickey()).kem(KemServerSettings.builder().authorizer(auth.kem()).build());
        if (pamService != null) {
            PamLogins pam = PamLogins.checked(pamService);
            policy = policy.withPam(pam);
            if (kbd) {
                b.pamKeyboardInteractive(pam);
            }
        }
        return b.logins(policy).start();
    }

    @Test
    void useraddAccountLogsInWithKeyUnderPamAndIsRefusedWithout() throws Exception {
        String uid = capture(List.of("id", "-u", FRESH));
        try (PqsshServer server = server(PamLogins.SSHD, false)) {
            for (boolean kem : new boolean[] {false, true}) {
                try (PqsshClient c = ACCOUNTS.client(kem);
                        ClientSession s = c.login(FRESH, "127.0.0.1", server.port())) {
                    assertEquals(uid, exec(s, "id -u").strip(), "UsePAM yes, kem=" + kem);
                }
            }
        }
        try (PqsshServer server = server(null, false); PqsshClient c = ACCOUNTS.client(false)) {
            assertThrows(Exception.class, () -> c.login(FRESH, "127.0.0.1", server.port()).close(),
                    "UsePAM no: a '!' account is locked for sshd");
        }
    }

    @Test
    void pamDenyInTheAccountStackRefusesKeyLogins() throws Exception {
        try (PqsshServer server = server(DENY_SERVICE, false)) {
            for (boolean kem : new boolean[] {false, true}) {
                try (PqsshClient c = ACCOUNTS.client(kem)) {
                    assertThrows(Exception.class, () -> {
                        try (ClientSession s = c.login(FRESH, "127.0.0.1", server.port())) {
                            exec(s, "true");
                        }
                    }, "pam_deny in the account stack, kem=" + kem);
                }
            }
        }
    }

    @Test
    void keyboardInteractiveRunsPamUnixConversation() throws Exception {
        Process chpasswd = new ProcessBuilder("/usr/sbin/chpasswd").redirectErrorStream(true).start();
        chpasswd.getOutputStream().write((FRESH + ":" + PASSWORD + "\n").getBytes(StandardCharsets.UTF_8));
        chpasswd.getOutputStream().close();
        assertTrue(chpasswd.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, chpasswd.exitValue(), "chpasswd");
        try (PqsshServer server = server(PamLogins.SSHD, true)) {
            Result ok = ssh(server.port(), PASSWORD);
            assertEquals(0, ok.rc, ok.out);
            assertTrue(ok.out.contains("KBD-PAM-OK " + FRESH), ok.out);
            assertTrue(ok.out.contains("PROMPT (" + FRESH + "@127.0.0.1) Password:"), "pam_unix's prompt reached the client: " + ok.out);
            Result wrong = ssh(server.port(), PASSWORD + "x");
            assertEquals(255, wrong.rc, wrong.out);
            assertTrue(wrong.out.contains("Permission denied"), wrong.out);
        }
    }

    private record Result(int rc, String out) {
    }

    /** OpenSSH's ssh without a terminal: SSH_ASKPASS answers (and logs) keyboard-interactive's prompts. */
    private static Result ssh(int port, String answer) throws Exception {
        Path askpass = dir.resolve("askpass-" + RANDOM.nextInt(1 << 30));
        Path answerFile = dir.resolve(askpass.getFileName() + ".answer");
        Files.writeString(answerFile, answer);
        Files.writeString(askpass, "#!/bin/sh\necho \"PROMPT $1\" >&2\ncat '" + answerFile + "'\n");
        Files.setPosixFilePermissions(askpass, PosixFilePermissions.fromString("rwx------"));
        ProcessBuilder pb = new ProcessBuilder("setsid", "-w", "/usr/bin/ssh", "-F", "none", "-p",
                Integer.toString(port), "-o", "StrictHostKeyChecking=no", "-o",
                "UserKnownHostsFile=/dev/null", "-o", "PreferredAuthentications=keyboard-interactive", "-o",
                "NumberOfPasswordPrompts=1", "-o", "BatchMode=no", "-o", "LogLevel=ERROR", FRESH + "@127.0.0.1",
                "echo KBD-PAM-OK $(id -un)");
        Map<String, String> env = pb.environment();
        env.put("SSH_ASKPASS", askpass.toString());
        env.put("SSH_ASKPASS_REQUIRE", "force");
        env.put("DISPLAY", ":77");
        pb.redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "ssh hangs: " + out);
        return new Result(p.exitValue(), out);
    }
}
