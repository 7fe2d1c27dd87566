package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.client.config.ClientConfig;

/**
 * The system-wide ssh_config (OpenSSH's {@code /etc/ssh/ssh_config}, moved to a test file through
 * {@link ClientConfig#SYSTEM_CONFIG_PROPERTY}): read after the user's file with first value wins, not read with
 * {@code -F}; Debian's stock file is accepted; {@code HashKnownHosts yes} writes entries OpenSSH's ssh-keygen finds
 * and pqssh matches on the next login.
 */
class SystemSshConfigTest {
    /** Debian 12's /etc/ssh/ssh_config without its comments, Include made relative (ssh resolves it in /etc/ssh). */
    private static final List<String> DEBIAN_STOCK = List.of(
            "Include ssh_config.d/*.conf",
            "Host *",
            "#   ForwardX11 no",
            "    SendEnv LANG LC_*",
            "    HashKnownHosts yes",
            "    GSSAPIAuthentication yes");

    @TempDir
    Path dir;

    /** Runs {@code call} with the system file at {@code system} and the home directory at {@code home}. */
    private static <T> T with(Path system, Path home, Callable<T> call) throws Exception {
        String oldSystem = System.getProperty(ClientConfig.SYSTEM_CONFIG_PROPERTY);
        String oldHome = System.getProperty("user.home");
        System.setProperty(ClientConfig.SYSTEM_CONFIG_PROPERTY, system.toString());
        if (home != null) {
            System.setProperty("user.home", home.toString());
        }
        try {
            return call.call();
        } finally {
            if (oldSystem == null) {
                System.clearProperty(ClientConfig.SYSTEM_CONFIG_PROPERTY);
            } else {
                System.setProperty(ClientConfig.SYSTEM_CONFIG_PROPERTY, oldSystem);
            }
            System.setProperty("user.home", oldHome);
        }
    }

    private Path systemFile(List<String> lines, String dropIn) throws Exception {
        Path etc = Files.createDirectories(dir.resolve("etc-ssh"));
        Files.writeString(etc.resolve("ssh_config"), String.join("\n", lines) + "\n");
        Path d = Files.createDirectories(etc.resolve("ssh_config.d"));
        if (dropIn != null) {
            Files.writeString(d.resolve("20-site.conf"), dropIn);
        }
        return etc.resolve("ssh_config");
    }

    private Path home(String... userConfig) throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path ssh = Files.createDirectories(home.resolve(".ssh"));
        Files.writeString(ssh.resolve("config"), String.join("\n", userConfig) + "\n");
        return home;
    }

    private static void has(CliHarness.Result r, String line) {
        assertTrue(r.out().lines().anyMatch(l -> l.equals(line)), "missing '" + line + "' in\n" + r.all());
    }

    private static void lacks(CliHarness.Result r, String line) {
        assertFalse(r.out().lines().anyMatch(l -> l.equals(line)), "unexpected '" + line + "' in\n" + r.all());
    }

    @Test
    void debianStockFileIsReadAfterTheUserFileAndFirstValueWins() throws Exception {
        // a drop-in with OpenSSH options pqssh does not implement (as Fedora's and Ubuntu's have): skipped, no error
        Path system = systemFile(DEBIAN_STOCK, "Host *\n    ForwardX11Trusted yes\n"
                + "    CheckHostIP yes\n    Port 2300\n    User sysuser\n");
        Path home = home("Host web", "    Port 2201", "    SendEnv FOO");
        CliHarness.Result r = with(system, home, () -> CliHarness.pqssh("ssh", "-G", "web"));
        assertEquals(0, r.rc(), r.all());
        has(r, "port 2201"); // the user's file comes first
        has(r, "user sysuser"); // the system file fills what the user's file left unset
        has(r, "hashknownhosts yes");
        has(r, "sendenv FOO"); // accumulates: the user's, then the system file's
        // one line per pattern, as ssh -G
        List<String> sendEnv = r.out().lines().filter(l -> l.startsWith("sendenv ")).toList();
        assertEquals(List.of("sendenv FOO", "sendenv LANG", "sendenv LC_*"), sendEnv, r.all());

        // -v says what was skipped and why
        CliHarness.Result v = with(system, home, () -> CliHarness.pqssh("ssh", "-v", "-G", "other"));
        assertEquals(0, v.rc(), v.all());
        assertTrue(v.err().contains("Reading configuration data " + system.toAbsolutePath()), v.all());
        assertTrue(v.err().contains("CheckHostIP yes: not implemented by pqssh, skipped in the system-wide"
                + " file"), v.all());
        has(v, "port 2300");
    }

    @Test
    void dashFReadsNeitherTheUserNorTheSystemFile() throws Exception {
        Path system = systemFile(DEBIAN_STOCK, "Host *\n    Port 2300\n");
        Path home = home("Host *", "    User fromuserfile");
        Path own = dir.resolve("own_config");
        Files.writeString(own, "Host *\n    Port 2400\n");
        CliHarness.Result r = with(system, home, () -> CliHarness.pqssh("ssh", "-F", own.toString(), "-G", "web"));
        assertEquals(0, r.rc(), r.all());
        has(r, "port 2400");
        has(r, "hashknownhosts no");
        lacks(r, "user fromuserfile");
        lacks(r, "sendenv LANG");
        CliHarness.Result none = with(system, home, () -> CliHarness.pqssh("ssh", "-F", "none", "-G", "web"));
        assertEquals(0, none.rc(), none.all());
        has(none, "port 22");
        has(none, "hashknownhosts no");
    }

    @Test
    void anUnknownKeywordInTheSystemFileIsStillAnErrorNamingIt() throws Exception {
        Path system = systemFile(List.of("Host *", "    NoSuchOption yes"), null);
        Path home = home("Host other", "    Port 1");
        CliHarness.Result r = with(system, home, () -> CliHarness.pqssh("ssh", "-G", "web"));
        assertEquals(255, r.rc(), r.all());
        assertTrue(r.err().contains(system.toAbsolutePath() + " line 2: Bad configuration option: nosuchoption"),
                r.all());
        // in the user's own file an unimplemented option stays an error (it is written for pqssh too)
        Path home2 = home("Host *", "    VerifyHostKeyDNS yes");
        CliHarness.Result u = with(systemFile(DEBIAN_STOCK, null), home2, () -> CliHarness.pqssh("ssh", "-G", "web"));
        assertEquals(255, u.rc(), u.all());
        assertTrue(u.err().contains("Unsupported option \"VerifyHostKeyDNS\""), u.all());
    }

    @Test
    void hashKnownHostsWritesHashedEntriesThatSshKeygenFindsAndTheNextLoginMatches() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path authorized = dir.resolve("authorized_keys");
        Files.copy(CliHarness.pub(key), authorized);
        Path system = systemFile(DEBIAN_STOCK, null);
        Path knownHosts = dir.resolve("known_hosts");
        try (ForwardingHarness h = new ForwardingHarness(dir)) {
            int port = h.startServer(authorized);
            String dest = CliHarness.user() + "@127.0.0.1";
            CliHarness.Result first = with(system, null, () -> CliHarness.pqssh("ssh", "-i", key.toString(),
                    "-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile=" + knownHosts,
                    "-p", String.valueOf(port), dest, "exit 3"));
            assertEquals(3, first.rc(), first.all());
            String hostBlob = Files.readString(CliHarness.pub(dir.resolve("ssh_host_ed25519_key"))).split("\\s+")[1];
            List<String> lines = Files.readAllLines(knownHosts).stream().filter(l -> !l.isBlank()).toList();
            assertEquals(1, lines.size(), String.join("\n", lines));
            String line = lines.get(0);
            assertTrue(line.matches("\\|1\\|[A-Za-z0-9+/=]{28}\\|[A-Za-z0-9+/=]{28} ssh-ed25519 \\S+"), line);
            assertFalse(line.contains("127.0.0.1"), "host name written in clear: " + line);
            assertTrue(line.contains(" ssh-ed25519 " + hostBlob), line);

            // OpenSSH recomputes the HMAC: the entry is found under the name ssh would look up
            CliHarness.Result found = CliHarness.exec(dir, List.of(CliHarness.SSH_KEYGEN.toString(), "-F",
                    "[127.0.0.1]:" + port, "-f", knownHosts.toString()));
            assertEquals(0, found.rc(), found.all());
            assertTrue(found.out().contains(hostBlob), found.all());
            CliHarness.Result other = CliHarness.exec(dir, List.of(CliHarness.SSH_KEYGEN.toString(), "-F",
                    "[127.0.0.1]:" + (port == 65535 ? 1 : port + 1), "-f", knownHosts.toString()));
            assertEquals(1, other.rc(), other.all());

            // strict checking now needs the hashed entry to match
            CliHarness.Result strict = with(system, null, () -> CliHarness.pqssh("ssh", "-i", key.toString(),
                    "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts,
                    "-p", String.valueOf(port), dest, "exit 4"));
            assertEquals(4, strict.rc(), strict.all());
            assertEquals(line, Files.readAllLines(knownHosts).stream().filter(l -> !l.isBlank()).toList().get(0));

            // without HashKnownHosts (-F none) a new entry is written in clear, as before
            Path plain = dir.resolve("known_hosts_plain");
            CliHarness.Result clear = with(system, null, () -> CliHarness.pqssh("ssh", "-F", "none", "-i",
                    key.toString(), "-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile=" + plain,
                    "-p", String.valueOf(port), dest, "exit 5"));
            assertEquals(5, clear.rc(), clear.all());
            assertTrue(CliHarness.read(plain).contains("[127.0.0.1]:" + port + " ssh-ed25519 " + hostBlob),
                    CliHarness.read(plain));
        }
    }
}
