package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.server.PqsshServer;

/** {@code pqssh scan} end to end: a PQ and a classical pqssh server and a closed port, every output file. */
class ScanCommandTest {
    @TempDir
    static Path dir;
    static PqsshServer pq;
    static PqsshServer classical;
    static int closed;

    record Run(int rc, String out, String err) {
    }

    /** Runs {@code pqssh ARGS} in this JVM with captured stdout/stderr. */
    static synchronized Run pqssh(String... args) {
        PrintStream o = System.out;
        PrintStream e = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int rc;
        try {
            rc = Main.run(args);
        } finally {
            System.setOut(o);
            System.setErr(e);
        }
        Run r = new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        System.out.println("$ pqssh " + String.join(" ", args) + " -> " + rc + "\n" + r.out() + r.err());
        return r;
    }

    @BeforeAll
    static void servers() throws Exception {
        pq = PqsshServer.builder().systemShell().sftp(true).host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(
                KeyUtils.generateKeyPair("ssh-ed25519", 256))).password((u, p, s) -> false).start();
        classical = PqsshServer.builder().systemShell().sftp(true)
                .host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(
                KeyUtils.generateKeyPair("ssh-ed25519", 256))).password((u, p, s) -> false)
                .kex(List.of("curve25519-sha256")).start();
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
    }

    @AfterAll
    static void stop() throws IOException {
        if (pq != null) {
            pq.close();
        }
        if (classical != null) {
            classical.close();
        }
    }

    @Test
    void scanWritesEveryFormatAndFailOnSetsTheExitCode() throws Exception {
        Path targets = dir.resolve("hosts.txt");
        Files.writeString(targets, "# fleet\n127.0.0.1:" + pq.port() + "\n127.0.0.1:" + classical.port()
                + "  # old box\n");
        Path json = dir.resolve("r.json");
        Path sarif = dir.resolve("r.sarif");
        Path csv = dir.resolve("r.csv");
        Path html = dir.resolve("r.html");
        Run r = pqssh("scan", "-f", targets.toString(), "127.0.0.1:" + closed, "--rate", "0", "--connect-timeout",
                "2", "--read-timeout", "3", "--hostkeys", "--json", json.toString(), "--sarif", sarif.toString(),
                "--csv", csv.toString(), "--html", html.toString(), "--fail-on", "classical-kex");
        assertEquals(1, r.rc(), r.toString());
        assertTrue(r.err().contains("--fail-on classical-kex: 1 target(s)"), r.err());
        assertTrue(r.out().contains("3 targets: 1 pq-ready, 1 classical-only, 0 not-ssh, 1 unreachable"), r.out());
        assertTrue(!r.err().contains("Server key did not validate"), "MINA's rejection warnings leak: " + r.err());

        ObjectMapper m = new ObjectMapper();
        JsonNode all = m.readTree(json.toFile()).get("targets");
        assertEquals(3, all.size());
        java.util.Map<Integer, JsonNode> byPort = new java.util.HashMap<>();
        all.forEach(x -> byPort.put(x.get("port").asInt(), x));
        List<JsonNode> t = List.of(byPort.get(pq.port()), byPort.get(classical.port()), byPort.get(closed));
        assertEquals("pq-ready", t.get(0).get("category").asText());
        assertEquals("mlkem768x25519-sha256", t.get(0).get("pqsshNegotiates").asText());
        assertTrue(t.get(0).get("hostKeys").get(0).get("fingerprint").asText().startsWith("SHA256:"));
        assertEquals("classical-only", t.get(1).get("category").asText());
        assertEquals("curve25519-sha256", t.get(1).get("openssh10Negotiates").asText());
        assertEquals("unreachable: connection refused", t.get(2).get("error").asText());
        JsonNode s = m.readTree(sarif.toFile());
        assertEquals("2.1.0", s.get("version").asText());
        assertTrue(s.get("runs").get(0).get("results").size() >= 2);
        assertEquals(4, Files.readAllLines(csv).size());
        assertTrue(Files.readString(html).contains("<svg"));

        Run ok = pqssh("scan", "-q", "--rate", "0", "127.0.0.1:" + pq.port(), "--fail-on", "classical-kex");
        assertEquals(0, ok.rc(), ok.toString());
        // --fail-on weak follows the weak list the report shows (hmac-sha1, CBC, ... are weak: ssh-audit 3.x)
        Run weak = pqssh("scan", "-q", "--rate", "0", "127.0.0.1:" + pq.port(), "--fail-on", "weak");
        assertEquals(t.get(0).get("weak").isEmpty() ? 0 : 1, weak.rc(), weak + " " + t.get(0));
        Run unreachable = pqssh("scan", "-q", "127.0.0.1:" + closed, "--fail-on", "unreachable");
        assertEquals(1, unreachable.rc(), unreachable.toString());
        Run stdoutJson = pqssh("scan", "--json", "-", "127.0.0.1:" + closed, "[::1]:" + closed);
        JsonNode st = m.readTree(stdoutJson.out()).get("targets");
        assertEquals("unreachable", st.get(0).get("category").asText());
        assertEquals("[::1]:" + closed, st.get(1).get("target").asText());
        assertEquals("::1", st.get(1).get("host").asText());
        assertEquals("unreachable", st.get(1).get("category").asText());
    }

    @Test
    void badTargetsAndOptionsAreUsageErrors() {
        Run port = pqssh("scan", "127.0.0.1:99999");
        assertEquals(2, port.rc());
        assertTrue(port.err().contains("port 99999 out of range"), port.err());
        Run big = pqssh("scan", "10.0.0.0/8");
        assertEquals(2, big.rc());
        assertTrue(big.err().contains("--force-large"), big.err());
        Run fail = pqssh("scan", "--fail-on", "everything", "127.0.0.1:" + closed);
        assertEquals(2, fail.rc());
        assertTrue(fail.err().contains("unknown --fail-on 'everything'"), fail.err());
        Run none = pqssh("scan");
        assertEquals(2, none.rc());
        assertTrue(none.err().contains("no targets"), none.err());
    }
}
