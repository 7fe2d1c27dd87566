package io.pqssh.server.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Reading the files when NSS consults them first must give what getent (NSS itself) gives. */
class SystemAccountsTest {
    @Test
    void nsswitchFirstSource() {
        List<String> conf = List.of("# comment", "passwd:   files systemd", "shadow: sss files # remote first",
                "group: compat");
        assertTrue(SystemAccounts.filesFirst(conf, "passwd"));
        assertFalse(SystemAccounts.filesFirst(conf, "shadow"));
        assertFalse(SystemAccounts.filesFirst(conf, "group"));
        assertTrue(SystemAccounts.filesFirst(conf, "gshadow"), "no line: glibc's default is files");
        assertFalse(SystemAccounts.filesFirst(List.of("passwd: ldap files"), "passwd"));
        assertFalse(SystemAccounts.filesFirst(List.of("passwdx: files", "passwd: db"), "passwd"),
                "a longer database name must not match");
    }

    @Test
    void everyLocalAccountMatchesGetent() throws Exception {
        assertTrue(Files.isExecutable(Path.of("/usr/bin/getent")), "needs getent (libc-bin)");
        List<String> names = new ArrayList<>();
        for (String l : Files.readAllLines(Path.of("/etc/passwd"), StandardCharsets.UTF_8)) {
            int c = l.indexOf(':');
            if (c > 0 && LoginPolicy.isPlausibleName(l.substring(0, c))) {
                names.add(l.substring(0, c));
            }
        }
        assertTrue(names.contains("root"), names.toString());
        for (String n : names) {
            Optional<Account> a = SystemAccounts.INSTANCE.byName(n);
            Optional<Account> expected = getent("passwd", n).flatMap(Account::fromPasswdLine);
            assertEquals(expected, a, n);
            if (Files.isReadable(Path.of("/etc/shadow"))) {
                assertEquals(getent("shadow", n), SystemAccounts.INSTANCE.shadowEntry(n), n);
            }
        }
        assertEquals(Optional.empty(), SystemAccounts.INSTANCE.byName("no-such-user-pqssh-" + ProcessHandle.current()
                .pid()));
        assertEquals(getent("passwd", "root").flatMap(Account::fromPasswdLine),
                SystemAccounts.INSTANCE.byName("root"));
        assertEquals(0, SystemAccounts.INSTANCE.byName("root").orElseThrow().uid());
    }

    static Optional<String> getent(String db, String name) throws Exception {
        Process p = new ProcessBuilder("/usr/bin/getent", db, name).redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        return p.exitValue() == 0 ? Optional.of(out.lines().findFirst().orElseThrow().strip()) : Optional.empty();
    }
}
