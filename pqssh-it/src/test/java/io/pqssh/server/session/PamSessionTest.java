package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.PamLogins;
import io.pqssh.server.login.SystemAccounts;

/**
 * Issue 20 §2, UsePAM's session stack, as root with the system's Linux-PAM, OpenSSH's ssh and an account this test
 * creates (and removes): through Debian's {@code sshd} service the session's {@code /proc/self/loginuid} is the
 * user's uid (pam_loginuid; the server's own stays unset); through a temporary {@code /etc/pam.d/pqssh-test-sess-*}
 * service, pam_env's variable is in the session, pam_limits' limit applies to the session and not to the server
 * (this JVM), pam_exec sees {@code open_session} before the command and {@code close_session} once it has ended
 * (PAM_TTY {@code ssh} without a pty, the pty's path with one), pam_motd's text shows on an interactive login and
 * not for a command, and the exit status passes through unchanged. Each check fails without the session stack.
 * Fails (does not skip) when not root or when /etc/pam.d/sshd or a module is missing.
 */
class PamSessionTest {
    private static final String USER = KeyLoginAccount.uniqueName("pqps");
    private static final String SERVICE = "pqssh-test-sess-" + USER;
    private static final String MOTD = "PQSSH-PAM-MOTD-" + USER;
    private static final String VALUE = "from-pam-env-" + USER;
    private static final int NOFILE = 777;
    private static KeyLoginAccount account;
    private static Path serviceFile;
    private static Path markers;
    private static Path motdDir;

    @TempDir
    static Path dir;

    @BeforeAll
    static void setUp() throws Exception {
        account = KeyLoginAccount.create(dir, USER, "PamSessionTest");
        assertTrue(Files.isRegularFile(Path.of("/etc/pam.d/sshd")),
                "MISSING /etc/pam.d/sshd: apt-get install openssh-server");
        for (String m : List.of("pam_loginuid", "pam_limits", "pam_env", "pam_exec", "pam_motd", "pam_permit")) {
            assertTrue(Files.exists(Path.of("/lib/x86_64-linux-gnu/security", m + ".so"))
                    || Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/security", m + ".so")),
                    "MISSING " + m + ".so: apt-get install libpam-modules");
        }
        // the files PAM's modules read as root: in a root-only directory
        Path pam = Files.createDirectory(dir.resolve("pam"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Path env = pam.resolve("environment");
        Files.writeString(env, "PQSSH_PAM_TEST=" + VALUE + "\n");
        Path limits = pam.resolve("limits.conf");
        Files.writeString(limits, USER + " - nofile " + NOFILE + "\n");
        // pam_motd reads it as the user (it drops privileges): a directory others can enter
        motdDir = Files.createTempDirectory("pqssh-pam-motd");
        Files.setPosixFilePermissions(motdDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path motd = motdDir.resolve("motd");
        Files.writeString(motd, MOTD + "\n");
        markers = pam.resolve("markers");
        Path hook = pam.resolve("hook");
        Files.writeString(hook, "#!/bin/sh\necho \"$PAM_TYPE $PAM_USER $PAM_TTY $PAM_RHOST\" >> " + markers + "\n");
        Files.setPosixFilePermissions(hook, PosixFilePermissions.fromString("rwx------"));
        serviceFile = Path.of("/etc/pam.d", SERVICE);
        Files.writeString(serviceFile, String.join("\n",
                // pam_setcred runs the auth stack's setcred (pam_deny's would fail it, as it fails sshd's); the
                // server does not authenticate through PAM here
                "auth required pam_permit.so",
                "account required pam_permit.so",
                "session required pam_loginuid.so",
                "session required pam_limits.so conf=" + limits,
                "session required pam_env.so conffile=/dev/null envfile=" + env,
                "session optional pam_motd.so motd=" + motd + " noupdate",
                "session required pam_exec.so " + hook, ""));
    }

    @AfterAll
    static void tearDown() throws Exception {
        try {
            if (serviceFile != null) {
                Files.deleteIfExists(serviceFile);
            }
            if (motdDir != null) {
                Files.deleteIfExists(motdDir.resolve("motd"));
                Files.deleteIfExists(motdDir);
            }
        } finally {
            TestAccounts.remove(USER);
        }
    }

    private static PqsshServer server(String service) throws Exception {
        FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", true);
        PamLogins pam = PamLogins.checked(service);
        assertTrue(pam.sessionHelper().isPresent(), "a root server runs the session stack");
        return PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                .publickey(auth.publickey())
                .logins(LoginPolicy.switchingUsers(SystemAccounts.INSTANCE).withPam(pam)).start();
    }

    private record Result(int rc, String out) {
    }

    /** OpenSSH's ssh with the account's key; {@code input} is its stdin (with -tt: typed into the pty). */
    private static Result ssh(int port, List<String> options, String input, String... command) throws Exception {
        List<String> cmd = new ArrayList<>(account.ssh(port));
        cmd.addAll(List.of("-o", "LogLevel=ERROR"));
        cmd.addAll(options);
        cmd.add(USER + "@127.0.0.1");
        cmd.addAll(List.of(command));
        Path in = dir.resolve("stdin");
        Files.writeString(in, input);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(in.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "ssh hangs: " + out);
        return new Result(p.exitValue(), out);
    }

    private static String uid() throws Exception {
        return Long.toString(SystemAccounts.INSTANCE.byName(USER).orElseThrow().uid());
    }

    @Test
    void debianSshdServiceSetsTheLoginUidOfTheSession() throws Exception {
        String server = Files.readString(Path.of("/proc/self/loginuid")).strip();
        try (PqsshServer s = server(PamLogins.SSHD)) {
            Result r = ssh(s.port(), List.of(), "", "cat /proc/self/loginuid; echo; id -u");
            assertEquals(0, r.rc, r.out);
            assertEquals(uid() + "\n" + uid(), r.out.strip(), "pam_loginuid: the session's audit uid is the user's");
            Result pty = ssh(s.port(), List.of("-tt"), "", "cat /proc/self/loginuid");
            assertEquals(0, pty.rc, pty.out);
            assertTrue(pty.out.contains(uid()), pty.out);
        }
        assertEquals(server, Files.readString(Path.of("/proc/self/loginuid")).strip(), "the server's stays its own");
    }

    @Test
    void sessionStackRunsAroundACommand() throws Exception {
        Files.deleteIfExists(markers);
        try (PqsshServer s = server(SERVICE)) {
            Result r = ssh(s.port(), List.of(), "", "cat /proc/self/loginuid; echo; printenv PQSSH_PAM_TEST;"
                    + " ulimit -n; ulimit -Hn; echo $SSH_CONNECTION");
            assertEquals(0, r.rc, r.out);
            String[] lines = r.out.strip().split("\n");
            assertEquals(uid(), lines[0], "pam_loginuid: " + r.out);
            assertEquals(VALUE, lines[1], "pam_env's variable in the session: " + r.out);
            assertEquals(Integer.toString(NOFILE), lines[2], "pam_limits (soft): " + r.out);
            assertEquals(Integer.toString(NOFILE), lines[3], "pam_limits (hard): " + r.out);
            assertTrue(lines[4].startsWith("127.0.0.1 "), "sshd's SSH_CONNECTION: " + r.out);
            assertFalse(r.out.contains(MOTD), "no motd for a command: " + r.out);
            // the exit status passes through the helper unchanged
            assertEquals(7, ssh(s.port(), List.of(), "", "exit 7").rc);
        }
        String limits = Files.readString(Path.of("/proc/self/limits"));
        String nofile = limits.lines().filter(l -> l.startsWith("Max open files")).findFirst().orElseThrow();
        assertFalse(nofile.matches(".*\\s" + NOFILE + "\\s.*"), "the server keeps its own limits: " + nofile);
        List<String> m = Files.readAllLines(markers);
        String where = USER + " ssh 127.0.0.1";
        assertEquals(List.of("open_session " + where, "close_session " + where,
                "open_session " + where, "close_session " + where), m,
                "pam_open_session before, pam_close_session after each session");
    }

    @Test
    void interactivePtyLoginShowsPamMotdAndUsesThePtyAsPamTty() throws Exception {
        Files.deleteIfExists(markers);
        try (PqsshServer s = server(SERVICE)) {
            Result r = ssh(s.port(), List.of("-tt"), "echo \"E=$PQSSH_PAM_TEST L=$(cat /proc/self/loginuid)\"; exit 3\n");
            assertEquals(3, r.rc, r.out);
            assertTrue(r.out.contains(MOTD), "pam_motd's text on an interactive login: " + r.out);
            assertTrue(r.out.contains("E=" + VALUE + " L=" + uid()), r.out);
            assertTrue(r.out.indexOf(MOTD) < r.out.indexOf("E=" + VALUE), "the motd before the shell: " + r.out);
        }
        List<String> m = Files.readAllLines(markers);
        assertEquals(2, m.size(), m.toString());
        assertTrue(m.get(0).matches("open_session " + USER + " /dev/pts/[0-9]+ 127\\.0\\.0\\.1"), m.toString());
        assertEquals(m.get(0).replace("open_session", "close_session"), m.get(1));
    }

    @Test
    void hushloginSilencesPamMessages() throws Exception {
        Path hush = SystemAccounts.INSTANCE.byName(USER).orElseThrow().home().resolve(".hushlogin");
        Files.writeString(hush, "");
        try (PqsshServer s = server(SERVICE)) {
            Result r = ssh(s.port(), List.of("-tt"), "echo DONE-$((40+2)); exit\n");
            assertEquals(0, r.rc, r.out);
            assertTrue(r.out.contains("DONE-42"), r.out);
            assertFalse(r.out.contains(MOTD), "~/.hushlogin: no motd (sshd's check_quietlogin): " + r.out);
        } finally {
            Files.deleteIfExists(hush);
        }
    }
}
