package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PermitUserEnvironment in sshd_config: {@code pqssh server -T} prints it as OpenSSH's {@code sshd -T} does for the
 * same file (no, yes, a pattern list). What it does to sessions: UserEnvironmentTest (pqssh-it).
 */
class ServerUserEnvironmentCliTest {
    @Test
    void extendedTestModePrintsItAsSshd(@TempDir Path dir) throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        Path hostKey = CliHarness.sshKeygen(dir.resolve("host_key"), "ed25519");
        Path cfg = dir.resolve("cfg");
        for (String v : List.of("no", "yes", "LANG,LC_*,!LC_ALL")) {
            Files.writeString(cfg, "PermitUserEnvironment " + v + "\n");
            CliHarness.Result ours = CliHarness.pqssh("server", "-T", "-f", cfg.toString());
            assertEquals(0, ours.rc(), ours.all());
            CliHarness.Result theirs = CliHarness.exec(dir, List.of(CliHarness.SSHD.toString(), "-T", "-f",
                    cfg.toString(), "-h", hostKey.toString()));
            assertEquals(0, theirs.rc(), theirs.all());
            assertEquals(line(theirs.out()), line(ours.out()), v);
            assertEquals("permituserenvironment " + v, line(ours.out()));
        }
    }

    private static String line(String out) {
        return out.lines().filter(l -> l.startsWith("permituserenvironment ")).findFirst().orElse("(none)");
    }
}
