package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;
import io.pqssh.server.forward.ForwardingPolicy;
import io.pqssh.server.login.LoginPolicy;
import io.pqssh.server.login.SystemAccounts;

/**
 * sshd's PermitUserEnvironment on a root server and a real account, with OpenSSH's ssh: {@code no} leaves the
 * key's {@code environment=} and {@code ~/.ssh/environment} out, {@code yes} sets both, a pattern list only the
 * names it matches. The file is read as the user (a symlink to a file only root may read gives nothing), and what
 * it sets (LD_PRELOAD, LD_DEBUG) reaches only the user's own process: glibc's loader writes LD_DEBUG_OUTPUT files
 * owned by the uid of every process that has it, so a root-owned file would be a root process that saw it.
 */
class UserEnvironmentTest {
    private static final String USER = KeyLoginAccount.uniqueName("pque");
    private static final String PROBE = "echo \"F=[$PQ_FILE] K=[$PQ_KEY] O=[$PQ_OTHER] S=[$PQ_SECRET]"
            + " P=[$LD_PRELOAD] PATH=[$PATH] U=[$USER] C=[${SSH_CONNECTION%% *}]\"";

    @TempDir
    Path dir;

    @Test
    void permitUserEnvironmentNoYesAndPatterns() throws Exception {
        KeyLoginAccount account = KeyLoginAccount.create(dir, USER, "UserEnvironmentTest");
        Path err = dir.resolve("err.txt");
        Path ld = Files.createTempDirectory(Path.of("/tmp"), "pqssh-ue-ld-");
        Path secret = Files.createTempFile(Path.of("/tmp"), "pqssh-ue-secret-", ".txt");
        try {
            Files.setPosixFilePermissions(ld, PosixFilePermissions.fromString("rwxrwxrwx"));
            Files.writeString(secret, "PQ_SECRET=root-only\n");
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
            Path libm = Stream.of("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
                    "/lib64/libm.so.6").map(Path::of).filter(Files::exists).findFirst()
                    .orElseThrow(() -> new AssertionError("MISSING libm.so.6 (glibc) for the LD_PRELOAD probe"));
            Path home = SystemAccounts.INSTANCE.byName(USER).orElseThrow().home();
            Path keys = home.resolve(".ssh/authorized_keys");
            Files.writeString(keys, "environment=\"PQ_KEY=from-key\" " + Files.readString(keys));
            Files.writeString(home.resolve(".ssh/environment"), String.join("\n",
                    "# sshd's format: NAME=value, comments, blank lines, leading blanks",
                    "", "  PQ_FILE=from file = with equals", "PQ_OTHER=other", "no equals sign here",
                    "PATH=/opt/pque/bin:/usr/bin:/bin", "USER=not-the-user",
                    "LD_PRELOAD=" + libm, "LD_DEBUG=libs", "LD_DEBUG_OUTPUT=" + ld.resolve("ld"), ""));
            assertEquals(0, KeyLoginAccount.run(dir, List.of("chown", "-R", USER + ":", home.resolve(".ssh")
                    .toString()), err));

            Map<String, String> no = probe(account, null, err);
            assertEquals(List.of("", "", "", ""), List.of(no.get("F"), no.get("K"), no.get("O"), no.get("P")),
                    "PermitUserEnvironment no: " + no);
            assertEquals(SessionLaunch.USER_PATH, no.get("PATH"));
            assertEmpty(ld, "no");

            Map<String, String> yes = probe(account, "yes", err);
            assertEquals("from file = with equals", yes.get("F"), yes.toString());
            assertEquals("from-key", yes.get("K"));
            assertEquals("other", yes.get("O"));
            assertEquals(libm.toString(), yes.get("P"));
            assertEquals("/opt/pque/bin:/usr/bin:/bin", yes.get("PATH"), "the file may set PATH, as with sshd");
            assertEquals("not-the-user", yes.get("U"), "as sshd: the file comes after USER");
            assertEquals("127.0.0.1", yes.get("C"), "SSH_CONNECTION comes after the file");
            List<String> owners = owners(ld);
            assertFalse(owners.isEmpty(), "the user's own process did not get LD_DEBUG_OUTPUT from the file");
            assertTrue(owners.stream().allMatch(o -> o.startsWith(USER + ":")),
                    "a process running as root saw ~/.ssh/environment: " + owners);
            assertTrue(Files.readString(ld.resolve(owners.get(0).substring(USER.length() + 1))).contains("libm"),
                    "LD_PRELOAD from the file was loaded by the user's process");
            clear(ld);

            Map<String, String> pattern = probe(account, "PQ_*,!PQ_OTHER", err);
            assertEquals(List.of("from file = with equals", "from-key", "", ""), List.of(pattern.get("F"),
                    pattern.get("K"), pattern.get("O"), pattern.get("P")), "only names the list allows: " + pattern);
            assertEquals(SessionLaunch.USER_PATH, pattern.get("PATH"));
            assertEmpty(ld, "a pattern list without LD_*");

            // read as the user: root could read the symlink's target, the user cannot
            Path env = home.resolve(".ssh/environment");
            Files.delete(env);
            Files.createSymbolicLink(env, secret);
            Map<String, String> linked = probe(account, "yes", err);
            assertEquals("", linked.get("S"), "~/.ssh/environment was read with root's rights: " + linked);
            assertEquals("from-key", linked.get("K"));
        } finally {
            TestAccounts.remove(USER);
            clear(ld);
            Files.deleteIfExists(ld);
            Files.deleteIfExists(secret);
        }
    }

    @Test
    void sshdsParsingAndLimits() throws Exception {
        UserEnvironment any = UserEnvironment.parse("yes");
        Map<String, String> env = new LinkedHashMap<>();
        any.parse("\tA=1\n#B=2\n\nC\nD==x\r\nE=\n", Path.of("f"), env);
        assertEquals(Map.of("A", "1", "D", "=x\r", "E", ""), env, "sshd keeps the CR and an empty value");
        assertEquals(null, UserEnvironment.parse("no"));
        assertEquals("no", UserEnvironment.sshdT(null));
        assertEquals("LANG,LC_*", UserEnvironment.sshdT(UserEnvironment.parse("LANG,LC_*")));
        assertTrue(UserEnvironment.parse("LC_*,!LC_ALL").allows("LC_TIME"));
        assertFalse(UserEnvironment.parse("LC_*,!LC_ALL").allows("LC_ALL"));
        assertFalse(UserEnvironment.parse("lang").allows("LANG"), "case-sensitive, as sshd");
        String many = "A=1\n".repeat(UserEnvironment.MAX_LINES + 1);
        assertTrue(assertThrows(java.io.IOException.class, () -> any.parse(many, Path.of("f"), env)).getMessage()
                .contains("Too many lines in environment file f"));
    }

    private Map<String, String> probe(KeyLoginAccount account, String permit, Path err) throws Exception {
        FileKeyAuthorizers auth = new FileKeyAuthorizers(".ssh/authorized_keys", "none", true);
        PqsshServer server = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(SecurityUtils.getKeyPairGenerator("Ed25519").generateKeyPair()))
                .publickey(auth.publickey()).logins(LoginPolicy.switchingUsers(SystemAccounts.INSTANCE))
                .forwarding(ForwardingPolicy.DEFAULT)
                .permitUserEnvironment(permit == null ? null : UserEnvironment.parse(permit)).start();
        try {
            List<String> ssh = new ArrayList<>(account.ssh(server.port()));
            ssh.addAll(List.of("-T", USER + "@127.0.0.1", PROBE));
            assertEquals(0, KeyLoginAccount.run(dir, ssh, err), Files.readString(err));
            String out = Files.readString(dir.resolve("out.txt"));
            Map<String, String> m = new LinkedHashMap<>();
            java.util.regex.Matcher x = java.util.regex.Pattern.compile("(\\w+)=\\[([^\\]]*)\\]").matcher(out);
            while (x.find()) {
                m.put(x.group(1), x.group(2));
            }
            assertEquals(8, m.size(), out);
            return m;
        } finally {
            server.close();
        }
    }

    private static List<String> owners(Path ld) throws Exception {
        List<String> owners = new ArrayList<>();
        try (Stream<Path> s = Files.list(ld)) {
            for (Path p : s.toList()) {
                owners.add(Files.getOwner(p).getName() + ":" + p.getFileName());
            }
        }
        return owners;
    }

    private static void assertEmpty(Path ld, String setting) throws Exception {
        assertEquals(List.of(), owners(ld), "LD_DEBUG from ~/.ssh/environment applied with " + setting);
    }

    private static void clear(Path ld) throws Exception {
        if (Files.isDirectory(ld)) {
            try (Stream<Path> s = Files.list(ld)) {
                for (Path p : s.toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
