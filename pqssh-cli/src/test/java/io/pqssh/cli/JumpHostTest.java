package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh -J}: through a pqssh server to a second pqssh server, through two pqssh hops (comma-separated) to
 * Debian's OpenSSH sshd, and a hop with {@code AllowTcpForwarding no} that must stop the login. known_hosts gets
 * the hops' and the destination's names. A client process logged in through two hops holds one TCP socket (to the
 * first hop) and no listening socket: each next hop's SSH runs inside the previous hop's direct-tcpip channel.
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
    void aClientThroughTwoHopsListensNowhereAndHoldsOneTcpSocket() throws Exception {
        int hop1 = h.startServer(authorized());
        int hop2 = h.startServer(authorized());
        int target = startSshd();
        String u = CliHarness.user() + "@";
        Path marker = dir.resolve("logged-in");
        Path release = dir.resolve("looked");
        ForwardingHarness.Proc p = h.startPqssh(Map.of(), "ssh", "-F", config.toString(), "-J",
                u + "127.0.0.1:" + hop1 + "," + u + "127.0.0.1:" + hop2, "-p", String.valueOf(target), "127.0.0.1",
                // the command waits (at most 60 s) until this test has looked at the client's sockets
                "touch " + marker + "; for i in $(seq 600); do [ -e " + release + " ] && break; sleep 0.1; done;"
                        + " echo through-two-hops");
        CliHarness.waitUntil(Duration.ofSeconds(90), () -> Files.exists(marker) || !p.process().isAlive(),
                p::output);
        assertTrue(Files.exists(marker), "the remote command never ran: " + p.output());
        // the destination's command runs now, so the whole chain is up: look at the client's sockets
        long pid = p.process().pid();
        Set<Long> mine = socketInodes(pid);
        List<String> tcp = new ArrayList<>();
        List<String> listening = new ArrayList<>();
        for (String table : List.of("tcp", "tcp6")) {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/net/" + table))) {
                String[] f = line.strip().split("\\s+");
                if (f.length > 9 && f[9].matches("\\d+") && mine.contains(Long.parseLong(f[9]))) {
                    tcp.add(table + ": " + line.strip());
                    if (f[3].equals("0A")) {
                        listening.add(table + ": " + line.strip());
                    }
                }
            }
        }
        assertTrue(p.process().isAlive(), p.output());
        Files.writeString(release, "");
        assertEquals(List.of(), listening, "the client listens on a TCP port during a -J login");
        assertEquals(1, tcp.size(), "the client should hold exactly one TCP socket (to the first hop): " + tcp);
        assertEquals(0, p.waitFor(Duration.ofSeconds(60)), p.output());
        assertEquals("through-two-hops", CliHarness.read(p.out()).strip(), p.output());
    }

    /** Megabytes both ways through a hop: more than the channels' windows, so both window directions must work. */
    @Test
    void bulkDataBothWaysThroughAHop() throws Exception {
        int hop = h.startServer(authorized());
        int target = startSshd();
        byte[] up = new byte[3_000_000];
        new java.util.Random(12).nextBytes(up);
        String want = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(up));
        CliHarness.Result r = CliHarness.pqsshWithStdin(up, "ssh", "-F", config.toString(), "-J",
                CliHarness.user() + "@127.0.0.1:" + hop, "-p", String.valueOf(target), "127.0.0.1",
                "sha256sum; head -c 3000000 /dev/zero | tr '\\0' x");
        assertEquals(0, r.rc(), r.all());
        assertTrue(r.out().startsWith(want + "  -\n"), r.all());
        String down = r.out().substring(r.out().indexOf('\n') + 1);
        assertEquals(3_000_000, down.length(), r.all());
        assertTrue(down.chars().allMatch(c -> c == 'x'), "the bytes from the destination changed on the way");
    }

    /** Inodes of the sockets among a process's file descriptors. */
    private static Set<Long> socketInodes(long pid) throws Exception {
        Set<Long> out = new TreeSet<>();
        try (var fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        out.add(Long.parseLong(target.substring(8, target.length() - 1)));
                    }
                } catch (java.nio.file.NoSuchFileException e) {
                    // closed between the listing and the read
                }
            }
        }
        return out;
    }

    @Test
    void aHopThatRefusesForwardingStopsTheLogin() throws Exception {
        int closed = h.startServer(authorized(), "-o", "AllowTcpForwarding=no");
        int target = h.startServer(authorized());
        CliHarness.Result r = jump(CliHarness.user() + "@127.0.0.1:" + closed, target, "echo must-not-run");
        assertEquals(255, r.rc(), r.all());
        assertTrue(!r.out().contains("must-not-run"), r.all());
        // ssh -J's words for a refused direct-tcpip open
        assertTrue(r.err().contains(": open failed: ") && r.err().contains("stdio forwarding failed"), r.all());
    }
}
