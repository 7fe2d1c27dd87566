package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh -J}: through a pqssh server to a second pqssh server, through two pqssh hops (comma-separated) to
 * Debian's OpenSSH sshd, and a hop with {@code AllowTcpForwarding no} that must stop the login. known_hosts gets
 * the hops' and the destination's names, never the local forwarding's port.
 */
class JumpHostTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private Path config;
    private Path knownHosts;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        h = new ForwardingHarness(dir);
        key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        knownHosts = dir.resolve("known_hosts");
        config = dir.resolve("ssh_config");
        // the hops use their ssh_config settings, as with OpenSSH's ProxyJump
        Files.writeString(config, String.join("\n", "Host *", "    IdentityFile " + key,
                "    StrictHostKeyChecking accept-new", "    UserKnownHostsFile " + knownHosts,
                "    User " + CliHarness.user(), ""));
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private Path authorized() throws Exception {
        Path a = dir.resolve("authorized_keys");
        Files.writeString(a, Files.readString(pub(key)));
        return a;
    }

    private int startSshd() throws Exception {
        return h.startSshd(authorized());
    }

    private CliHarness.Result jump(String hops, int port, String command) throws Exception {
        return CliHarness.pqssh("ssh", "-F", config.toString(), "-J", hops, "-p", String.valueOf(port),
                "127.0.0.1", command);
    }

    private Set<String> knownNames() throws Exception {
        Set<String> names = new TreeSet<>();
        for (String l : Files.readAllLines(knownHosts)) {
            if (!l.isBlank()) {
                names.add(l.split("\\s+")[0]);
            }
        }
        return names;
    }

    @Test
    void throughPqsshHopsToPqsshAndOpenSsh() throws Exception {
        int hop1 = h.startServer(authorized());
        int hop2 = h.startServer(authorized());
        int target = startSshd();
        String u = CliHarness.user() + "@";

        CliHarness.Result one = jump(u + "127.0.0.1:" + hop1, hop2, "echo one-hop");
        assertEquals(0, one.rc(), one.all());
        assertEquals("one-hop", one.out().strip(), one.all());
        assertEquals(new TreeSet<>(List.of("[127.0.0.1]:" + hop1, "[127.0.0.1]:" + hop2)), knownNames(),
                CliHarness.read(knownHosts));

        CliHarness.Result two = jump(u + "127.0.0.1:" + hop1 + "," + u + "127.0.0.1:" + hop2, target,
                "echo two-hops; exit 7");
        assertEquals(7, two.rc(), two.all());
        assertEquals("two-hops", two.out().strip(), two.all());
        assertTrue(CliHarness.read(h.sshdLog()).contains("Accepted publickey for " + CliHarness.user()),
                CliHarness.read(h.sshdLog()));
        assertEquals(new TreeSet<>(List.of("[127.0.0.1]:" + hop1, "[127.0.0.1]:" + hop2, "[127.0.0.1]:" + target)),
                knownNames(), CliHarness.read(knownHosts));
    }

    @Test
    void aHopThatRefusesForwardingStopsTheLogin() throws Exception {
        int closed = h.startServer(authorized(), "-o", "AllowTcpForwarding=no");
        int target = h.startServer(authorized());
        CliHarness.Result r = jump(CliHarness.user() + "@127.0.0.1:" + closed, target, "echo must-not-run");
        assertEquals(255, r.rc(), r.all());
        assertTrue(!r.out().contains("must-not-run"), r.all());
    }
}
