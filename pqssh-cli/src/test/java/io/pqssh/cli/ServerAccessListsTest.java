package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * sshd's AllowUsers, DenyUsers, AllowGroups, DenyGroups in {@code pqssh server}, seen by OpenSSH's {@code ssh}: a
 * refused user fails like an unknown one (exit 255) and is logged as sshd logs it; a {@code user@CIDR} entry
 * matches on the client's address. One server, the lists changed by SIGHUP reloads.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerAccessListsTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void listsRefuseAndAdmitAsSshd(@TempDir Path dir) throws Exception {
        String user = CliHarness.user();
        Path hostKey = CliHarness.sshKeygen(dir.resolve("host_key"), "ed25519");
        Path userKey = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.copy(CliHarness.pub(userKey), dir.resolve(user + "_keys"));
        String group = CliHarness.exec(dir, List.of("/usr/bin/id", "-gn")).out().strip();
        Path conf = dir.resolve("sshd_config");
        String base = String.join("\n", "ListenAddress 127.0.0.1", "HostKey " + hostKey,
                "AuthorizedKeysFile " + dir + "/%u_keys", "AuthorizedKEMKeysFile none", "StrictModes no") + "\n";
        Files.writeString(conf, base + "DenyUsers nobody " + user + "\n");
        int port = CliHarness.freePort();
        Path err = dir.resolve("server.err");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.pqssh.cli.Main", "server", "-D", "-f",
                conf.toString(), "-p", Integer.toString(port)).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("server.out").toFile()).redirectError(err.toFile());
        pb.environment().put("PQSSH_CONFIG_DIR", dir.resolve("config").toString());
        Process p = pb.start();
        try {
            CliHarness.waitUntil(WAIT, () -> CliHarness.read(err).contains("pqssh server listening"),
                    () -> "server did not start:\n" + CliHarness.read(err));
            String from = Pattern.quote("User " + user + " from 127.0.0.1 not allowed because ");
            refused(dir, port, err, from + "listed in DenyUsers$");
            assertTrue(Pattern.compile("(?m) - Failed publickey for invalid user " + Pattern.quote(user)
                    + " from 127\\.0\\.0\\.1 port \\d+ ssh2").matcher(CliHarness.read(err)).find(),
                    "a refused user must be logged as an invalid user:\n" + CliHarness.read(err));

            reload(dir, p, err, conf, base + "AllowUsers nobody@* " + user + "@127.0.0.0/8\n");
            assertEquals(0, ssh(dir, port).rc(), "user@127.0.0.0/8 must admit a loopback login");
            reload(dir, p, err, conf, base + "AllowUsers " + user + "@10.0.0.0/8\n");
            refused(dir, port, err, from + "not listed in AllowUsers$");
            reload(dir, p, err, conf, base + "AllowGroups no-such-group " + group + "\n");
            assertEquals(0, ssh(dir, port).rc(), "AllowGroups with the user's group must admit");
            reload(dir, p, err, conf, base + "DenyGroups " + group + "\n");
            refused(dir, port, err, from + "a group is listed in DenyGroups$");
            reload(dir, p, err, conf, base + "AllowGroups no-such-group\n");
            refused(dir, port, err, from + "none of user's groups are listed in AllowGroups$");
        } finally {
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static void refused(Path dir, int port, Path err, String logLine) throws Exception {
        int before = count(err, logLine);
        CliHarness.Result r = ssh(dir, port);
        assertEquals(255, r.rc(), "the login must fail:\n" + r.all());
        assertTrue(r.err().contains("Permission denied"), r.all());
        CliHarness.waitUntil(WAIT, () -> count(err, logLine) > before,
                () -> "no log line /" + logLine + "/:\n" + CliHarness.read(err));
    }

    private static int count(Path err, String logLine) {
        Pattern line = Pattern.compile("^\\S+ INFO \\S+ - " + logLine);
        return (int) CliHarness.read(err).lines().filter(l -> line.matcher(l).find()).count();
    }

    private static void reload(Path dir, Process p, Path err, Path conf, String text) throws Exception {
        Files.writeString(conf, text);
        long before = CliHarness.read(err).lines().filter(l -> l.contains("pqssh server: reloaded")).count();
        CliHarness.Result k = CliHarness.exec(dir, List.of("/bin/kill", "-HUP", Long.toString(p.pid())));
        assertEquals(0, k.rc(), k.all());
        CliHarness.waitUntil(WAIT, () -> CliHarness.read(err).lines()
                .filter(l -> l.contains("pqssh server: reloaded")).count() > before,
                () -> "no reload:\n" + CliHarness.read(err));
    }

    private static CliHarness.Result ssh(Path dir, int port) throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        return CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", "none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=20",
                "-i", dir.resolve("id_ed25519").toString(), "-p", Integer.toString(port),
                CliHarness.user() + "@127.0.0.1", "true"));
    }
}
