package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.client.PqsshClient;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.mina.auth.KemClientIdentity;
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
    private static final Duration T = Duration.ofSeconds(30);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String SUFFIX = Long.toString(ProcessHandle.current().pid(), 36)
            + Integer.toString(RANDOM.nextInt(1 << 20), 36);
    private static final String FRESH = "pqpf" + SUFFIX;
    private static final String DENY_SERVICE = "pqssh-test-deny-" + SUFFIX;
    private static final String PASSWORD = "pam-" + Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
    private static final List<String> CREATED = new ArrayList<>();
    private static final KemKeyPair KEM = MlKem.generate(KemAlgorithm.MLKEM768, RANDOM);
    private static KeyPair ed25519;
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
        ed25519 = SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair();
        // useradd's password field stays "!": what sshd without PAM calls locked
        assertEquals(0, run(List.of("/usr/sbin/useradd", "-m", "-s", "/bin/bash", FRESH)), "useradd");
        CREATED.add(FRESH);
        String shadow = SystemAccounts.INSTANCE.shadowEntry(FRESH).orElseThrow();
        assertTrue(shadow.split(":")[1].startsWith("!"), "useradd leaves '!': " + shadow.split(":")[1]);
        Path keys = SystemAccounts.INSTANCE.byName(FRESH).orElseThrow().home().resolve(".ssh/authorized_keys");
        Files.createDirectories(keys.getParent());
        Files.writeString(keys, new KemPublicKey(KemAlgorithm.MLKEM768, KEM.publicKey()).toLine("kem") + "\n"
                + PublicKeyEntry.toString(ed25519.getPublic()) + " ed\n");
        assertEquals(0, run(List.of("chown", "-R", FRESH + ":", keys.getParent().toString())));
        assertEquals(0, run(List.of("chmod", "700", keys.getParent().toString())));
        assertEquals(0, run(List.of("chmod", "600", keys.toString())));
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
            for (String u : CREATED) {
                TestAccounts.remove(u);
            }
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

    private static PqsshClient client(boolean kem) {
        PqsshClient.Builder b = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                .warningSink(w -> { }).timeout(T);
        return kem ? b.kemIdentity(KemClientIdentity.of(KEM)).preferredAuthentications(List.of("publickey-kem"))
                .start() : b.identity(ed25519).preferredAuthentications(List.of("publickey")).start();
    }

    private static String exec(ClientSession s, String command) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = PqsshClient.exec(s, command, out, err, T);
        assertEquals(0, rc, command + ": " + err);
        return out.toString(StandardCharsets.UTF_8).strip();
    }

    @Test
    void useraddAccountLogsInWithKeyUnderPamAndIsRefusedWithout() throws Exception {
        String uid = capture(List.of("id", "-u", FRESH));
        try (PqsshServer server = server(PamLogins.SSHD, false)) {
            for (boolean kem : new boolean[] {false, true}) {
                try (PqsshClient c = client(kem); ClientSession s = c.login(FRESH, "127.0.0.1", server.port())) {
                    assertEquals(uid, exec(s, "id -u"), "UsePAM yes, kem=" + kem);
                }
            }
        }
        try (PqsshServer server = server(null, false); PqsshClient c = client(false)) {
            assertThrows(Exception.class, () -> c.login(FRESH, "127.0.0.1", server.port()).close(),
                    "UsePAM no: a '!' account is locked for sshd");
        }
    }

    @Test
    void pamDenyInTheAccountStackRefusesKeyLogins() throws Exception {
        try (PqsshServer server = server(DENY_SERVICE, false)) {
            for (boolean kem : new boolean[] {false, true}) {
                try (PqsshClient c = client(kem)) {
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

    private static int run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().transferTo(System.err);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), cmd + " hangs");
        return p.exitValue();
    }

    private static String capture(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return out;
    }
}
