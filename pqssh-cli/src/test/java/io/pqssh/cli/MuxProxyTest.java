package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.client.mux.UnixSocket;

/**
 * Proxy mode of OpenSSH's connection sharing (PROTOCOL.mux section 9, MUX_C_PROXY): OpenSSH 9.2's own {@code ssh -S
 * path -O proxy host command} through a {@code pqssh ssh -M} master connected to Debian's sshd on loopback. That
 * client speaks unencrypted SSH connection-protocol packets on the control socket and the master relays them on
 * its connection. Checked: output, stderr, stdin and the exit status; two clients at once on one login; a
 * local forwarding of the proxy client (direct-tcpip); a client that dies has its channels closed (its remote pty
 * process goes); a downstream that breaks the protocol is closed alone, with one log line. Runs as root (sshd with
 * its own configuration, PermitRootLogin), as the other connection-sharing tests.
 */
class MuxProxyTest {
    private static final Pattern MASTER_PID = Pattern.compile("Master running \\(pid=(\\d+)\\)");

    @TempDir
    Path dir;

    private Path userKey;
    private Path authorizedKeys;
    private Process sshd;
    private Path sshdLog;
    private int port;
    private final List<Long> pids = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        CliHarness.ensureSshdPrivsepDir();
        userKey = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        authorizedKeys = dir.resolve("authorized_keys");
        Files.writeString(authorizedKeys, Files.readString(pub(userKey)));
        Path hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        port = startSshd(hostKey);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (long pid : pids) {
            // the master and clients this test started, by the pids they reported
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        }
        if (sshd != null) {
            sshd.destroy();
            if (!sshd.waitFor(5, TimeUnit.SECONDS)) {
                sshd.destroyForcibly();
            }
        }
    }

    private int startSshd(Path hostKey) throws Exception {
        for (int attempt = 0; attempt < 3; attempt++) {
            int p = CliHarness.freePort();
            Path config = dir.resolve("sshd_config");
            Files.writeString(config, String.join("\n", "ListenAddress 127.0.0.1", "HostKey " + hostKey,
                    "AuthorizedKeysFile " + authorizedKeys, "StrictModes no", "UsePAM no", "PidFile none",
                    "PermitRootLogin yes", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
                    "AllowUsers " + CliHarness.user(), ""));
            sshdLog = dir.resolve("sshd-" + p + ".log");
            sshd = new ProcessBuilder(CliHarness.SSHD.toString(), "-D", "-e", "-f", config.toString(), "-p",
                    String.valueOf(p)).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(sshdLog.toFile()).start();
            Process s = sshd;
            CliHarness.waitUntil(Duration.ofSeconds(10), () -> !s.isAlive()
                    || CliHarness.read(sshdLog).contains("Server listening on 127.0.0.1 port " + p),
                    () -> "sshd did not start:\n" + CliHarness.read(sshdLog));
            if (s.isAlive()) {
                return p;
            }
        }
        fail("sshd would not start:\n" + CliHarness.read(sshdLog));
        return -1;
    }

    private String common() {
        return "-F none -p " + port + " -i " + userKey + " -o UserKnownHostsFile=" + dir.resolve("known_hosts")
                + " -o StrictHostKeyChecking=accept-new -o BatchMode=yes -o ConnectTimeout=20";
    }

    private String dest() {
        return CliHarness.user() + "@127.0.0.1";
    }

    private CliHarness.Result sh(String script) throws Exception {
        return CliHarness.shell(dir, Map.of(), script);
    }

    private int logins() {
        return (int) CliHarness.read(sshdLog).lines().filter(l -> l.contains("Accepted publickey for")).count();
    }

    /** OpenSSH's ssh in proxy mode through the master at {@code socket}. */
    private String proxyClient(Path socket) {
        return CliHarness.SSH + " " + common() + " -S " + socket + " -O proxy";
    }

    /** {@code pqssh ssh -M -S socket -fN} (with -v: its stderr, kept in master.log, says what it relays). */
    private Path startPqsshMaster(Path socket) throws Exception {
        Path masterLog = dir.resolve("master.log");
        CliHarness.Result m = sh("$PQSSH ssh " + common() + " -v -M -S " + socket + " -fN " + dest() + " >"
                + masterLog + " 2>&1");
        assertEquals(0, m.rc(), m.all() + CliHarness.read(masterLog));
        CliHarness.Result c = sh(CliHarness.SSH + " -S " + socket + " -O check " + dest());
        assertEquals(0, c.rc(), c.all());
        Matcher pm = MASTER_PID.matcher(c.err());
        assertTrue(pm.find(), c.all());
        pids.add(Long.parseLong(pm.group(1)));
        assertEquals(1, logins(), CliHarness.read(sshdLog));
        return masterLog;
    }

    @Test
    void openSshProxyClientsRunCommandsThroughAPqsshMaster() throws Exception {
        Path socket = dir.resolve("ctl");
        Path masterLog = startPqsshMaster(socket);

        CliHarness.Result s = sh("printf 'to-the-remote\\n' | " + proxyClient(socket) + " " + dest()
                + " 'cat; echo on-stderr >&2; exit 7'");
        assertEquals(7, s.rc(), s.all() + CliHarness.read(masterLog));
        assertEquals("to-the-remote\n", s.out(), s.all());
        assertTrue(s.err().contains("on-stderr"), s.all());

        // two proxy clients at once: the first still runs while the second comes and goes; 1 MB through each
        CliHarness.Result two = sh("(" + proxyClient(socket) + " " + dest()
                + " 'sleep 2; head -c 1048576 /dev/zero; echo first' > one.out 2>&1; echo $? > one.rc) & "
                + "sleep 0.5; " + proxyClient(socket) + " " + dest()
                + " 'head -c 1048576 /dev/zero | wc -c; exit 3'; echo second=$?; wait; cat one.rc; "
                + "tail -c 6 one.out; wc -c < one.out");
        assertEquals(0, two.rc(), two.all() + CliHarness.read(masterLog));
        assertEquals(List.of("1048576", "second=3", "0", "first", "1048582"),
                two.out().lines().map(String::trim).toList(), two.all() + CliHarness.read(masterLog));

        // the proxy client's own -L: direct-tcpip channels it opens, here to sshd itself, which greets first
        int lport = CliHarness.freePort();
        CliHarness.Result fwd = sh(proxyClient(socket) + " -N -L " + lport + ":127.0.0.1:" + port + " " + dest()
                + " > fwd.log 2>&1 & echo $!");
        assertEquals(0, fwd.rc(), fwd.all());
        pids.add(Long.parseLong(fwd.out().trim()));
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.portOpen(lport),
                () -> "-L through the proxy client did not listen:\n" + CliHarness.read(dir.resolve("fwd.log")));
        assertTrue(CliHarness.firstLine(lport).startsWith("SSH-2.0-OpenSSH"), CliHarness.read(masterLog));

        // its global requests are answered by the master (REQUEST_FAILURE): -R fails as ssh reports it, the session
        // goes on; keepalives are answered (unanswered, the client would give up after about 6 s: "Timeout, server
        // ... not responding"; interval and count leave a loaded machine seconds per reply)
        int rport = CliHarness.freePort();
        CliHarness.Result r = sh(proxyClient(socket) + " -R " + rport + ":127.0.0.1:" + port + " " + dest()
                + " 'echo ran'");
        assertEquals(0, r.rc(), r.all() + CliHarness.read(masterLog));
        assertEquals("ran\n", r.out(), r.all());
        assertTrue(r.err().contains("Warning: remote port forwarding failed for listen port " + rport), r.all());
        CliHarness.Result alive = sh(proxyClient(socket) + " -o ServerAliveInterval=2 -o ServerAliveCountMax=2 "
                + dest() + " 'sleep 9; echo alive'");
        assertEquals(0, alive.rc(), alive.all() + CliHarness.read(masterLog));
        assertEquals("alive\n", alive.out(), alive.all());

        assertEquals(1, logins(), "proxy clients must not log in again:\n" + CliHarness.read(sshdLog));
        assertTrue(CliHarness.read(masterLog).contains("mux: proxy request"), CliHarness.read(masterLog));
    }

    /** The same through a pqssh master logged in to {@code pqssh server} (MINA on both ends of the connection). */
    @Test
    void openSshProxyClientThroughAPqsshMasterToAPqsshServer() throws Exception {
        try (ForwardingHarness h = new ForwardingHarness(dir)) {
            int pqPort = h.startServer(authorizedKeys);
            Path socket = dir.resolve("pq-ctl");
            Path masterLog = dir.resolve("pq-master.log");
            String opts = common().replace("-p " + port + " ", "-p " + pqPort + " ");
            CliHarness.Result m = sh("$PQSSH ssh " + opts + " -v -M -S " + socket + " -fN " + dest() + " >"
                    + masterLog + " 2>&1");
            assertEquals(0, m.rc(), m.all() + CliHarness.read(masterLog));
            CliHarness.Result c = sh(CliHarness.SSH + " -S " + socket + " -O check " + dest());
            Matcher pm = MASTER_PID.matcher(c.err());
            assertTrue(pm.find(), c.all());
            pids.add(Long.parseLong(pm.group(1)));

            CliHarness.Result s = sh("printf 'to-the-remote\\n' | " + CliHarness.SSH + " " + opts + " -S " + socket
                    + " -O proxy " + dest() + " 'cat; echo on-stderr >&2; exit 5'");
            assertEquals(5, s.rc(), s.all() + CliHarness.read(masterLog));
            assertEquals("to-the-remote\n", s.out(), s.all());
            assertTrue(s.err().contains("on-stderr"), s.all());
            CliHarness.Result big = sh(CliHarness.SSH + " " + opts + " -S " + socket + " -O proxy " + dest()
                    + " 'head -c 3000000 /dev/zero' | wc -c");
            assertEquals("3000000", big.out().trim(), big.all() + CliHarness.read(masterLog));
        }
    }

    /**
     * A proxy client killed while its pty session runs: the master closes that channel on the connection, so sshd
     * hangs up the pty and the remote process ends (without the clean-up it would run on).
     */
    @Test
    void aDeadProxyClientsChannelsAreClosed() throws Exception {
        Path socket = dir.resolve("ctl");
        Path masterLog = startPqsshMaster(socket);
        String marker = "sleep 317" + (System.nanoTime() % 1000);
        CliHarness.Result started = sh("(sleep 60 | " + proxyClient(socket) + " -tt " + dest() + " 'echo started; exec "
                + marker + "' > pty.out 2>&1 &) ; for i in $(seq 200); do grep -q started pty.out && break; "
                + "sleep 0.1; done; pgrep -f '^" + CliHarness.SSH + " .*exec " + marker + "'");
        assertEquals(0, started.rc(), started.all() + CliHarness.read(masterLog));
        long client = Long.parseLong(started.out().lines().findFirst().orElseThrow().trim());
        pids.add(client);
        assertTrue(remoteRunning(marker), "the remote command runs");

        ProcessHandle.of(client).ifPresent(ProcessHandle::destroyForcibly); // no CHANNEL_CLOSE from it
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> !remoteRunning(marker),
                () -> "the remote " + marker + " still runs: its channel was not closed\n"
                        + CliHarness.read(masterLog));
        // the master goes on
        CliHarness.Result after = sh(proxyClient(socket) + " " + dest() + " 'echo still-there'");
        assertEquals("still-there\n", after.out(), after.all() + CliHarness.read(masterLog));
    }

    private boolean remoteRunning(String marker) {
        try {
            return sh("pgrep -f '^" + marker + "$'").rc() == 0;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Hand-made downstreams that break the protocol after MUX_S_PROXY — a CHANNEL_DATA for a channel that is not
     * theirs (here number 0: the server's number of some channel, perhaps the master's own), a packet too short to
     * have a type, a message type a client may not send — are each closed with one error line, while an OpenSSH
     * proxy client's session running at the same time goes on and the master stays.
     */
    @Test
    void aMalformedDownstreamIsClosedAlone() throws Exception {
        Path socket = dir.resolve("ctl");
        Path masterLog = startPqsshMaster(socket);
        CliHarness.Result bg = sh("(" + proxyClient(socket) + " " + dest()
                + " 'sleep 3; echo survived' > bg.out 2>&1; echo $? > bg.rc) > /dev/null 2>&1 & sleep 1");
        assertEquals(0, bg.rc(), bg.all());

        byte[][] bad = {
            // CHANNEL_DATA (94) to channel 0 with 2 bytes
            {0, 94, 0, 0, 0, 0, 0, 0, 0, 2, 'h', 'i'},
            {0}, // no type
            {0, 21}, // NEWKEYS: not a connection-protocol message
            {0, 91, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0}, // OPEN_CONFIRMATION: never routed to it
        };
        for (int i = 0; i < bad.length; i++) {
            int before = errorLines(masterLog);
            try (UnixSocket s = UnixSocket.connect(socket)) {
                s.write(frame(new byte[] {0, 0, 0, 1, 0, 0, 0, 4})); // MUX_MSG_HELLO, version 4
                byte[] hello = readPacket(s);
                assertEquals(1, hello[3], "master's hello");
                s.write(frame(new byte[] {0x10, 0, 0, 0x0f, 0, 0, 0, 0})); // MUX_C_PROXY, request id 0
                byte[] reply = readPacket(s);
                assertEquals(List.of((byte) 0x80, (byte) 0, (byte) 0, (byte) 0x0f),
                        List.of(reply[0], reply[1], reply[2], reply[3]), "MUX_S_PROXY");
                s.write(frame(bad[i]));
                assertTrue(s.poll(10_000), "the master must close a downstream that sent bad packet " + i + "\n"
                        + CliHarness.read(masterLog));
                assertClosed(s, "closed, not answered: bad packet " + i);
            }
            int n = i;
            CliHarness.waitUntil(Duration.ofSeconds(5), () -> errorLines(masterLog) == before + 1,
                    () -> "one error line for bad packet " + n + ":\n" + CliHarness.read(masterLog));
        }
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> Files.exists(dir.resolve("bg.rc")),
                () -> "the other proxy client did not finish\n" + CliHarness.read(masterLog));
        assertEquals("0", CliHarness.read(dir.resolve("bg.rc")).trim(), CliHarness.read(dir.resolve("bg.out")));
        assertEquals("survived\n", CliHarness.read(dir.resolve("bg.out")), CliHarness.read(masterLog));
        CliHarness.Result check = sh(CliHarness.SSH + " -S " + socket + " -O check " + dest());
        assertEquals(0, check.rc(), check.all());
    }

    /** An end of stream or a reset: the master closed its end (a reset when our bytes were still unread). */
    private static void assertClosed(UnixSocket s, String message) throws Exception {
        try {
            assertNull(s.readFully(4), message);
        } catch (UnixSocket.SysError e) {
            assertTrue(e.getMessage().contains("Connection reset by peer"), message + ": " + e);
        }
    }

    /**
     * OpenSSH 10.3's "info" extension, which the installed OpenSSH 9.2 client does not have: {@code pqssh ssh -O
     * conninfo|channels} through a pqssh master (its hello offers "info"), the answer to an unknown info name on a
     * raw connection, OpenSSH 9.2's master (no "info": ssh's fatal line), and {@code pqssh ssh -O proxy}'s refusal.
     */
    @Test
    void conninfoAndChannelsOfAPqsshMaster() throws Exception {
        Path socket = dir.resolve("ctl");
        Path masterLog = startPqsshMaster(socket);
        long masterPid = pids.get(pids.size() - 1);
        // a proxy client whose session channel stays open until this test ends it (by its pid)
        // (the remote sleep ends by itself)
        CliHarness.Result bg = sh(proxyClient(socket) + " " + dest() + " 'echo up; sleep 90' > bg.out 2>&1 & echo $!");
        assertEquals(0, bg.rc(), bg.all());
        pids.add(Long.parseLong(bg.out().trim()));
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(dir.resolve("bg.out")).contains("up"),
                () -> "the proxy client's session did not start:\n" + CliHarness.read(masterLog));

        CliHarness.Result info = sh("$PQSSH ssh -F none -S " + socket + " -O conninfo " + dest());
        assertEquals(0, info.rc(), info.all() + CliHarness.read(masterLog));
        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        assertTrue(info.out().startsWith("Connection information for " + host + " pid " + masterPid + "\r\n"),
                info.all());
        assertTrue(Pattern.compile("\r\n  tcp 127\\.0\\.0\\.1:\\d+ -> 127\\.0\\.0\\.1:" + port + "\r\n")
                .matcher(info.out()).find(), info.all());
        for (String line : List.of("  duration 00:00:", "  kexalgorithm ", "  hostkeyalgorithm ssh-ed25519\r\n",
                "  cipher ", "  mac ", "  compression none\r\n")) {
            assertTrue(info.out().contains(line), line + " in:\n" + info.all());
        }
        CliHarness.Result ch = sh("$PQSSH ssh -F none -S " + socket + " -O channels " + dest());
        assertEquals(0, ch.rc(), ch.all());
        assertTrue(ch.out().startsWith("The following connections are open:\r\n"), ch.all());
        assertTrue(Pattern.compile("  #\\d+ mux-proxy \\(\\[session\\] r\\d+ m0\\)\r\n").matcher(ch.out()).find(),
                "the proxy client's session channel is listed:\n" + ch.all() + CliHarness.read(masterLog));

        try (UnixSocket s = UnixSocket.connect(socket)) {
            s.write(frame(new byte[] {0, 0, 0, 1, 0, 0, 0, 4}));
            byte[] hello = readPacket(s);
            assertEquals("info", new String(hello, 12, 4, java.nio.charset.StandardCharsets.US_ASCII),
                    "the master's hello offers the info extension");
            byte[] name = "bogus".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            byte[] req = new byte[12 + name.length];
            req[0] = 0x20;
            req[3] = 1; // MUX_C_EXT_INFO
            req[7] = 9; // request id 9
            req[11] = (byte) name.length;
            System.arraycopy(name, 0, req, 12, name.length);
            s.write(frame(req));
            byte[] reply = readPacket(s);
            assertEquals(List.of((byte) 0x90, (byte) 0, (byte) 0, (byte) 1, (byte) 9, (byte) 0),
                    List.of(reply[0], reply[1], reply[2], reply[3], reply[7], reply[11]), "MUX_S_EXT_INFO, id 9, 0");
            assertTrue(new String(reply, java.nio.charset.StandardCharsets.US_ASCII)
                    .endsWith("info request type not supported"), "ssh's words for an unknown name");
        }

        Path osSocket = dir.resolve("os-ctl");
        CliHarness.Result om = sh(CliHarness.SSH + " " + common() + " -M -S " + osSocket + " -fN " + dest());
        assertEquals(0, om.rc(), om.all());
        CliHarness.Result oc = sh(CliHarness.SSH + " -S " + osSocket + " -O check " + dest());
        Matcher pm = MASTER_PID.matcher(oc.err());
        assertTrue(pm.find(), oc.all());
        pids.add(Long.parseLong(pm.group(1)));
        CliHarness.Result old = sh("$PQSSH ssh -F none -S " + osSocket + " -O conninfo " + dest());
        assertEquals(255, old.rc(), old.all());
        assertTrue(old.err().lines().anyMatch(l -> l.equals("mux server does not support info request")), old.all());

        CliHarness.Result proxy = sh("$PQSSH ssh -F none -S " + socket + " -O proxy " + dest() + " true");
        assertEquals(255, proxy.rc(), proxy.all());
        assertTrue(proxy.err().contains("-O proxy is not supported by pqssh ssh"), proxy.all());
    }

    private static int errorLines(Path masterLog) {
        return (int) CliHarness.read(masterLog).lines().filter(l -> l.startsWith("mux proxy client:")).count();
    }

    private static byte[] frame(byte[] body) {
        byte[] p = new byte[body.length + 4];
        p[0] = (byte) (body.length >>> 24);
        p[1] = (byte) (body.length >>> 16);
        p[2] = (byte) (body.length >>> 8);
        p[3] = (byte) body.length;
        System.arraycopy(body, 0, p, 4, body.length);
        return p;
    }

    private static byte[] readPacket(UnixSocket s) throws Exception {
        assertTrue(s.poll(10_000), "no answer from the master");
        byte[] len = s.readFully(4);
        assertTrue(len != null, "the master closed the connection");
        int n = ((len[0] & 0xff) << 24) | ((len[1] & 0xff) << 16) | ((len[2] & 0xff) << 8) | (len[3] & 0xff);
        return s.readFully(n);
    }
}
