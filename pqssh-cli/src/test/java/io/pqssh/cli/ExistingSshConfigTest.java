package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21: a ~/.ssh/config written for OpenSSH, with many keywords under {@code Host *} (connection sharing, X11,
 * GSSAPI, macOS's UseKeychain...), logs in with pqssh: what pqssh does not carry out and cannot weaken security by
 * ignoring is accepted with one warning line each; what would weaken security if ignored stays an error.
 */
class ExistingSshConfigTest {
    @TempDir
    Path dir;

    /** A daily user's config, as found in the wild: every line here is accepted by OpenSSH 9.2's ssh too. */
    private static List<String> realistic(Path key, Path knownHosts, int port, Path controlDir) {
        return List.of(
                "Host test-box",
                "    HostName 127.0.0.1",
                "    Port " + port,
                "    IdentityFile " + key,
                "    IdentitiesOnly yes",
                "",
                "Host *",
                "    IgnoreUnknown UseKeychain",
                "    UseKeychain yes",
                "    AddKeysToAgent yes",
                "    ControlMaster auto",
                "    ControlPath " + controlDir + "/cm-%r@%h:%p",
                "    ControlPersist 10m",
                "    ForwardX11 yes",
                "    ForwardX11Trusted yes",
                "    XAuthLocation /usr/bin/xauth",
                "    GSSAPIAuthentication yes",
                "    GSSAPIDelegateCredentials no",
                "    ServerAliveInterval 60",
                "    ServerAliveCountMax 3",
                "    TCPKeepAlive yes",
                "    Compression yes",
                "    HashKnownHosts yes",
                "    StrictHostKeyChecking accept-new",
                "    UserKnownHostsFile " + knownHosts,
                "    VisualHostKey no",
                "    UpdateHostKeys yes",
                "    CanonicalizeHostname no",
                "    CheckHostIP no",
                "    IPQoS lowdelay throughput",
                "    ConnectTimeout 20",
                "    RekeyLimit 512M 1h",
                "    LogLevel INFO",
                "    SendEnv LANG LC_*",
                "    VerifyHostKeyDNS no",
                "    PermitLocalCommand no",
                "    EnableEscapeCommandline no");
    }

    private Path write(String name, List<String> lines) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, String.join("\n", lines) + "\n");
        return f;
    }

    @Test
    void aRealisticConfigWithManyKeywordsUnderHostStarLogsIn() throws Exception {
        try (ForwardingHarness h = new ForwardingHarness(dir)) {
            Path key = h.userKey();
            int port = h.startServer(h.authorizedKeys());
            Path config = write("config", realistic(key, dir.resolve("known_hosts"), port, dir));
            // OpenSSH's own ssh accepts the same file (so the test is about a config ssh users really have)
            CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
            CliHarness.Result ssh = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", config.toString(),
                    "-G", "test-box"));
            assertEquals(0, ssh.rc(), ssh.all());

            // its own process: ControlMaster auto with ControlPersist starts a background master (connection
            // sharing, ConnectionSharingTest), which a JVM does by starting itself again
            CliHarness.Result r = CliHarness.shell(dir, java.util.Map.of(), "$PQSSH ssh -F " + config
                    + " test-box 'echo in; exit 3'");
            assertEquals(3, r.rc(), r.all());
            assertEquals("in", r.out().strip(), r.all());
            // one line for each option that asked for something pqssh does not do, and only those
            List<String> warnings = r.err().lines().filter(l -> l.startsWith("pqssh: warning: ")).toList();
            assertEquals(1, warnings.size(), r.all());
            assertTrue(warnings.get(0).startsWith("pqssh: warning: AddKeysToAgent yes ("), r.all());
            // ForwardX11 yes is carried out: without DISPLAY (as here) ssh only says so at -v
            assertFalse(r.err().contains("ForwardX11"), r.all());
            assertTrue(Files.exists(dir.resolve("cm-" + CliHarness.user() + "@127.0.0.1:" + port)),
                    "ControlPersist 10m leaves a master listening");
            // -q silences them, as ssh's warnings (this session goes through the master)
            CliHarness.Result q = CliHarness.shell(dir, java.util.Map.of(), "$PQSSH ssh -q -F " + config
                    + " test-box 'exit 4'");
            assertEquals(4, q.rc(), q.all());
            assertFalse(q.err().contains("warning"), q.all());
            CliHarness.Result exit = CliHarness.shell(dir, java.util.Map.of(), "$PQSSH ssh -F " + config
                    + " -O exit test-box");
            assertEquals(0, exit.rc(), exit.all());
        }
    }

    @Test
    void optionsWhoseIgnoringWouldWeakenSecurityStayErrors() throws Exception {
        for (String line : List.of("VerifyHostKeyDNS yes", "StrictHostKeyChecking sometimes", "CheckHostIP yes",
                "RevokedHostKeys /etc/ssh/revoked", "HostKeyAlias other")) {
            Path config = write("bad", List.of("Host *", "    " + line));
            CliHarness.Result r = CliHarness.pqssh("ssh", "-F", config.toString(), "-G", "x");
            assertEquals(255, r.rc(), line + ": " + r.all());
            assertTrue(r.err().contains(config + " line 2: "), r.all());
        }
    }

    @Test
    void refuseConnectionRefusesBeforeConnecting() throws Exception {
        Path config = write("refuse", List.of("Host old-*", "    RefuseConnection yes"));
        // port 1 on loopback: nothing listens, so a connection attempt would say "Connection refused" instead
        CliHarness.Result r = CliHarness.pqssh("ssh", "-F", config.toString(), "-p", "1", "old-box", "true");
        assertEquals(255, r.rc(), r.all());
        assertTrue(r.err().contains("connection to old-box refused by configuration (RefuseConnection yes, "
                + config + " line 2)"), r.all());
        CliHarness.Result bad = CliHarness.pqssh("ssh", "-F", config.toString(), "-o", "RekeyLimit=8", "-G", "x");
        assertEquals(255, bad.rc(), bad.all());
        assertTrue(bad.err().contains("RekeyLimit too small"), bad.all());
    }
}
