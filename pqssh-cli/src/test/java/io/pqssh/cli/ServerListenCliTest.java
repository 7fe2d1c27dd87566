package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several Port and ListenAddress lines, as sshd: every ListenAddress without a port at every Port, {@code host:port}
 * and {@code [v6]:port} at their own port; each socket serves OpenSSH logins. {@code -p} replaces the file's Port
 * lines; AddressFamily keeps names and the wildcard to one family.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ServerListenCliTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void everyPortAndListenAddressServesLogins(@TempDir Path dir) throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        String user = CliHarness.user();
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.copy(CliHarness.pub(key), dir.resolve(user + "_keys"));
        Path hostKey = CliHarness.sshKeygen(dir.resolve("host_key"), "ed25519");
        int p1 = CliHarness.freePort();
        int p2 = CliHarness.freePort();
        int p3 = CliHarness.freePort();
        int unused = CliHarness.freePort();
        assertEquals(4, java.util.Set.of(p1, p2, p3, unused).size(), "four distinct free ports");
        Path cfg = dir.resolve("cfg");
        Files.writeString(cfg, String.join("\n", "Port " + p1, "ListenAddress 127.0.0.1", "Port " + p2,
                "ListenAddress 127.0.0.1:" + p3, "HostKey " + hostKey, "AuthorizedKeysFile " + dir + "/%u_keys",
                "StrictModes no", "PermitRootLogin yes", ""));
        CliHarness.Result t = CliHarness.pqssh("server", "-T", "-f", cfg.toString());
        assertEquals(0, t.rc(), t.all());
        assertTrue(t.out().contains("port " + p1 + "\nport " + p2 + "\n"), t.out());
        assertTrue(t.out().contains("listenaddress 127.0.0.1:" + p1 + "\nlistenaddress 127.0.0.1:" + p2
                + "\nlistenaddress 127.0.0.1:" + p3 + "\n"), t.out());
        Path err = dir.resolve("server.err");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "io.pqssh.cli.Main", "server", "-D", "-f", cfg.toString())
                .directory(dir.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("server.out").toFile()).redirectError(err.toFile()).start();
        try {
            // the listeners' lines come in the order their binds complete, not the file's
            CliHarness.waitUntil(WAIT, () -> List.of(p1, p2, p3).stream()
                    .allMatch(port -> CliHarness.read(err).contains("listening on 127.0.0.1:" + port + "\n")),
                    () -> "server did not start:\n" + CliHarness.read(err));
            for (int port : List.of(p1, p2, p3)) {
                assertTrue(CliHarness.read(err).contains("pqssh server listening on 127.0.0.1:" + port),
                        CliHarness.read(err));
                CliHarness.Result r = ssh(dir, key, port, user);
                assertEquals(0, r.rc(), "port " + port + ":\n" + r.all() + "\n" + CliHarness.read(err));
                assertEquals("logged-in", r.out().strip());
            }
            assertFalse(CliHarness.portOpen(unused), "only the configured ports listen");
        } finally {
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void commandLinePortReplacesTheFilesPortsAndFamiliesFilter(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("cfg");
        Files.writeString(cfg, "Port 2201\nPort 2202\nListenAddress 127.0.0.1\nListenAddress [::1]:2203\n");
        CliHarness.Result r = CliHarness.pqssh("server", "-T", "-f", cfg.toString(), "-p", "2300");
        assertEquals(0, r.rc(), r.all());
        assertEquals(List.of("port 2300", "listenaddress 127.0.0.1:2300", "listenaddress [::1]:2203"),
                lines(r.out(), "port ", "listenaddress "));
        Files.writeString(cfg, "AddressFamily inet\nPort 2201\n");
        assertEquals(List.of("port 2201", "addressfamily inet", "listenaddress 0.0.0.0:2201"),
                lines(CliHarness.pqssh("server", "-T", "-f", cfg.toString()).out(), "port ", "addressfamily ",
                        "listenaddress "));
        Files.writeString(cfg, "AddressFamily inet6\n");
        assertEquals(List.of("listenaddress [::]:22"),
                lines(CliHarness.pqssh("server", "-T", "-f", cfg.toString()).out(), "listenaddress "));
        expect255(cfg, "AddressFamily inet\nListenAddress ::1\n", "bad addr or host: ::1");
        expect255(cfg, "ListenAddress 127.0.0.1:99999\n", cfg + " line 1: ListenAddress: bad port number");
        expect255(cfg, "ListenAddress [::1\n", cfg + " line 1: ListenAddress: bad address:port usage");
        expect255(cfg, "AddressFamily ipx\n", cfg + " line 1: AddressFamily: unsupported option \"ipx\".");
        expect255(cfg, "ListenAddress 127.0.0.1 rdomain red\n", "routing domains (rdomain) are not implemented");
        expect255(cfg, "AddressFamily inet\nGatewayPorts yes\n", "AddressFamily inet with GatewayPorts yes is not"
                + " supported");
    }

    private static void expect255(Path cfg, String text, String message) throws Exception {
        Files.writeString(cfg, text);
        CliHarness.Result r = CliHarness.pqssh("server", "-t", "-f", cfg.toString());
        assertEquals(255, r.rc(), r.all());
        assertTrue(r.err().contains(message), "expected '" + message + "':\n" + r.all());
    }

    private static List<String> lines(String out, String... prefixes) {
        List<String> l = new ArrayList<>();
        for (String s : out.split("\n")) {
            for (String p : prefixes) {
                if (s.startsWith(p)) {
                    l.add(s);
                }
            }
        }
        return l;
    }

    private static CliHarness.Result ssh(Path dir, Path key, int port, String user) throws Exception {
        return CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", "none", "-o", "BatchMode=yes", "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=20", "-o",
                "IdentitiesOnly=yes", "-i", key.toString(), "-p", Integer.toString(port), user + "@127.0.0.1",
                "echo logged-in"));
    }
}
