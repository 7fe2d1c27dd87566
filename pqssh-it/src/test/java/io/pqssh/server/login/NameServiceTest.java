package io.pqssh.server.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/**
 * The in-process NSS look-up ({@code getpwnam_r}/{@code getspnam_r} through JNA) gives getent's lines, byte for byte,
 * for every local account; an unknown name is no entry. Shadow entries need root (CI runs as root).
 */
class NameServiceTest {
    @Test
    void everyLocalAccountAsGetentPrintsIt() throws Exception {
        assertTrue(NameService.available(), "JNA could not bind libc");
        if (ProcessIdentity.current().uid() != 0) {
            fail("NameServiceTest reads shadow entries and needs root; CI runs as root");
        }
        int n = 0;
        for (String l : Files.readAllLines(Path.of("/etc/passwd"), StandardCharsets.UTF_8)) {
            String name = l.substring(0, Math.max(0, l.indexOf(':')));
            if (!LoginPolicy.isPlausibleName(name)) {
                continue;
            }
            assertEquals(SystemAccountsTest.getent("passwd", name), NameService.lookup("passwd", name), name);
            assertEquals(SystemAccountsTest.getent("shadow", name), NameService.lookup("shadow", name), name);
            n++;
        }
        assertTrue(n > 5, "only " + n + " accounts read");
        String ghost = "no-such-user-pqssh-" + ProcessHandle.current().pid();
        assertEquals(Optional.empty(), NameService.lookup("passwd", ghost));
        assertEquals(Optional.empty(), NameService.lookup("shadow", ghost));
    }
}
