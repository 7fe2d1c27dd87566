package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh -W host:port} as OpenSSH's {@code ProxyCommand}: OpenSSH's ssh logs in to Debian's sshd through a
 * pqssh server hop (megabytes both ways, checked by SHA-256) and to a pqssh server through an sshd hop; a refused
 * target and a malformed argument end with ssh's messages and 255.
 */
class StdioForwardTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private Path config;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        config = dir.resolve("pqssh_config");
        Files.writeString(config, String.join("\n", "Host *", "    IdentityFile " + key,
                "    StrictHostKeyChecking accept-new", "    UserKnownHostsFile " + dir.resolve("known_hosts_pqssh"),
                "    User " + CliHarness.user(), ""));
        Files.writeString(dir.resolve("authorized_keys"), Files.readString(pub(key)));
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    /** OpenSSH's ssh to 127.0.0.1:target with {@code pqssh ssh -W %h:%p} through 127.0.0.1:hop as ProxyCommand. */
    private String openSsh(int hop, int target, String remote) {
        return "ssh -F none -o BatchMode=yes -o StrictHostKeyChecking=accept-new"
                + " -o UserKnownHostsFile=" + dir.resolve("known_hosts_openssh") + " -i " + key
                + " -o 'ProxyCommand=$PQSSH ssh -F " + config + " -W %h:%p -p " + hop + " 127.0.0.1'"
                + " -p " + target + " " + CliHarness.user() + "@127.0.0.1 '" + remote + "'";
    }

    @Test
    void openSshThroughAPqsshHopToSshdCarriesMegabytesBothWays() throws Exception {
        int hop = h.startServer(dir.resolve("authorized_keys"));
        int target = h.startSshd(dir.resolve("authorized_keys"));
        CliHarness.Result r = CliHarness.shell(dir, Map.of(), "head -c 3000000 /dev/urandom > up.bin && "
                + openSsh(hop, target, "sha256sum; head -c 3000000 /dev/zero | tr \"\\\\0\" y | sha256sum")
                + " < up.bin && sha256sum < up.bin && head -c 3000000 /dev/zero | tr '\\0' y | sha256sum");
        assertEquals(0, r.rc(), r.all());
        List<String> lines = r.out().lines().toList();
        assertEquals(4, lines.size(), r.all());
        assertEquals(lines.get(2), lines.get(0), "what the destination received differs from what was sent");
        assertEquals(lines.get(3), lines.get(1), "what came back differs from what the destination sent");
        assertTrue(CliHarness.read(h.sshdLog()).contains("Accepted publickey for " + CliHarness.user()),
                CliHarness.read(h.sshdLog()));
    }

    @Test
    void openSshThroughAnSshdHopToAPqsshServer() throws Exception {
        int hop = h.startSshd(dir.resolve("authorized_keys"));
        int target = h.startServer(dir.resolve("authorized_keys"));
        CliHarness.Result r = CliHarness.shell(dir, Map.of(), openSsh(hop, target, "echo via-W; exit 3"));
        assertEquals(3, r.rc(), r.all());
        assertEquals("via-W", r.out().strip(), r.all());
    }

    @Test
    void aRefusedTargetAndABadArgumentEndWith255() throws Exception {
        int hop = h.startServer(dir.resolve("authorized_keys"));
        int closed = CliHarness.freePort();
        CliHarness.Result refused = CliHarness.pqssh("ssh", "-F", config.toString(), "-W", "127.0.0.1:" + closed,
                "-p", String.valueOf(hop), "127.0.0.1");
        assertEquals(255, refused.rc(), refused.all());
        assertTrue(refused.err().contains("open failed: connect failed") && refused.err().contains(
                "stdio forwarding failed"), refused.all());
        CliHarness.Result bad = CliHarness.pqssh("ssh", "-F", config.toString(), "-W", "no-port", "-p",
                String.valueOf(hop), "127.0.0.1");
        assertEquals(255, bad.rc(), bad.all());
        assertTrue(bad.err().contains("Bad stdio forwarding specification 'no-port'"), bad.all());
    }
}
