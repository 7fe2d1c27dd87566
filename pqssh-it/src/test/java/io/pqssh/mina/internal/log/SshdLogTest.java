package io.pqssh.mina.internal.log;

import io.pqssh.server.log.SshdLogServerMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.server.session.RawAuthClient;

/**
 * Issue 11 §3: sshd's INFO lines, one per event, at the level {@code pqssh server} ships (everything WARN, the
 * {@code io.pqssh.sshd} logger INFO), read from a server JVM's real stderr. Asserted: the exact lines; peer strings
 * with a newline (user name, method name, disconnect message) escaped so that no forged line appears; MINA's own
 * WARN about an unknown method never fires; no password in the log.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public class SshdLogTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void sshdLinesExactlyOncePerEventAndNothingForged(@TempDir Path dir) throws Exception {
        KemKeyPair alice = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        KemKeyPair stranger = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        Path log = dir.resolve("server-stderr.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java,
                // what pqssh-cli's simplelogger.properties sets
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.log.io.pqssh=warn",
                "-Dorg.slf4j.simpleLogger.log.io.pqssh.sshd=info", "-Dorg.slf4j.simpleLogger.showThreadName=false",
                "-Dorg.slf4j.simpleLogger.showDateTime=false",
                "-Dorg.slf4j.simpleLogger.log.org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier=error",
                "-cp", System.getProperty("java.class.path"), SshdLogServerMain.class.getName(),
                Base64.getEncoder().encodeToString(alice.publicKey()))
                .redirectError(log.toFile()).start();
        List<String> expected = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String portLine = out.readLine();
            assertTrue(portLine != null && portLine.matches("\\d+"), "no port from the server: " + portLine + "\n"
                    + Files.readString(log));
            int port = Integer.parseInt(portLine);

            // 0. PerSourceMaxStartups 3: three held connections, the fourth is dropped before the banner (first, while
            // nothing else is connected, so the count in the line is exact)
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    held.add(new Socket("127.0.0.1", port));
                    held.get(i).getInputStream().read(); // the banner: the server counted it
                }
                try (Socket fourth = new Socket("127.0.0.1", port)) {
                    int cp = fourth.getLocalPort();
                    fourth.setSoTimeout(10_000);
                    int first;
                    try {
                        first = fourth.getInputStream().read();
                    } catch (java.net.SocketException reset) {
                        first = -1;
                    }
                    assertEquals(-1, first, "the fourth connection gets no banner");
                    expected.add("INFO io.pqssh.sshd - drop connection #3 from [127.0.0.1]:" + cp + " on [127.0.0.1]:"
                            + port + " past PerSourceMaxStartups 3");
                }
            } finally {
                for (Socket s : held) {
                    int cp = s.getLocalPort();
                    s.close();
                    expected.add("INFO io.pqssh.sshd - Connection closed by 127.0.0.1 port " + cp + " [preauth]");
                }
            }
            // the server has seen the three close (and freed their PerSourceMaxStartups slots just around it)
            waitForLines(log, expected);
            Thread.sleep(500);
            // 1. a KEM login, then the client ends the session
            try (RawAuthClient c = RawAuthClient.connect("alice", port, null)) {
                int cp = localPort(c);
                assertEquals(SshConstants.SSH_MSG_USERAUTH_SUCCESS, c.kemLogin("alice", "mlkem768", alice).cmd());
                expected.add("INFO io.pqssh.sshd - Accepted publickey-kem for alice from 127.0.0.1 port " + cp
                        + " ssh2: ML-KEM-768 " + fp(alice));
                c.session().close(true);
                expected.add("INFO io.pqssh.sshd - Disconnected from user alice 127.0.0.1 port " + cp);
            }
            // 2. a wrong password, a key nobody authorized, an unauthorized publickey probe, then TCP closes
            try (RawAuthClient c = RawAuthClient.connect("alice", port, null)) {
                int cp = localPort(c);
                c.password("alice", "wrong-secret");
                assertEquals(SshConstants.SSH_MSG_USERAUTH_FAILURE, c.next().cmd());
                expected.add("INFO io.pqssh.sshd - Failed password for alice from 127.0.0.1 port " + cp + " ssh2");
                assertEquals(SshConstants.SSH_MSG_USERAUTH_FAILURE, c.kemLogin("alice", "mlkem768", stranger).cmd());
                expected.add("INFO io.pqssh.sshd - Failed publickey-kem for alice from 127.0.0.1 port " + cp
                        + " ssh2: ML-KEM-768 " + fp(stranger));
                KeyPair ed = KeyUtils.generateKeyPair("ssh-ed25519", 256);
                c.request("alice", "publickey", b -> {
                    b.putBoolean(false);
                    b.putString("ssh-ed25519");
                    b.putPublicKey(ed.getPublic());
                });
                assertEquals(SshConstants.SSH_MSG_USERAUTH_FAILURE, c.next().cmd());
                expected.add("INFO io.pqssh.sshd - Failed publickey for alice from 127.0.0.1 port " + cp
                        + " ssh2: ED25519 " + KeyUtils.getFingerPrint(ed.getPublic()));
                c.session().close(true);
                expected.add("INFO io.pqssh.sshd - Connection closed by authenticating user alice 127.0.0.1 port "
                        + cp + " [preauth]");
            }
            // 3. forged newlines: in the user name, the method name and the client's disconnect message
            try (RawAuthClient c = RawAuthClient.connect("bob\nFORGED user line", port, null)) {
                int cp = localPort(c);
                c.password("bob\nFORGED user line", "wrong-secret");
                assertEquals(SshConstants.SSH_MSG_USERAUTH_FAILURE, c.next().cmd());
                expected.add("INFO io.pqssh.sshd - Invalid user bob\\x0aFORGED user line from 127.0.0.1 port " + cp);
                expected.add("INFO io.pqssh.sshd - Failed password for invalid user bob\\x0aFORGED user line from"
                        + " 127.0.0.1 port " + cp + " ssh2");
                c.request("bob\nFORGED user line", "x\r\nFORGED method line\u001b[31m", b -> { });
                assertEquals(SshConstants.SSH_MSG_USERAUTH_FAILURE, c.next().cmd());
                expected.add("INFO io.pqssh.sshd - Failed x\\x0d\\x0aFORGED method line\\x1b[31m for invalid user"
                        + " bob\\x0aFORGED user line from 127.0.0.1 port " + cp + " ssh2");
                c.session().disconnect(SshConstants.SSH2_DISCONNECT_BY_APPLICATION, "bye\nFORGED disconnect line");
                // MINA closes the session once the DISCONNECT is written; leaving the block before that closed the socket
                // with the packet unsent under load (the server then logged "Connection closed by")
                assertTrue(c.awaitClosed(RawAuthClient.T));
                expected.add("INFO io.pqssh.sshd - Received disconnect from 127.0.0.1 port " + cp
                        + ":11: bye\\x0aFORGED disconnect line [preauth]");
                expected.add("INFO io.pqssh.sshd - Disconnected from invalid user bob\\x0aFORGED user line"
                        + " 127.0.0.1 port " + cp + " [preauth]");
            }
            // 4. MaxAuthTries 4
            try (RawAuthClient c = RawAuthClient.connect("alice", port, null)) {
                int cp = localPort(c);
                for (int i = 0; i < 4; i++) {
                    c.password("alice", "wrong-secret");
                    expected.add("INFO io.pqssh.sshd - Failed password for alice from 127.0.0.1 port " + cp
                            + " ssh2");
                }
                assertTrue(c.awaitClosed(RawAuthClient.T));
                expected.add("WARN io.pqssh.sshd - maximum authentication attempts exceeded for alice from 127.0.0.1"
                        + " port " + cp + " ssh2 [preauth]");
                expected.add("INFO io.pqssh.sshd - Disconnecting authenticating user alice 127.0.0.1 port " + cp
                        + ": Too many authentication failures [preauth]");
            }
            String text = waitForLines(log, expected);
            List<String> lines = text.lines().toList();
            for (String e : expected) {
                assertEquals(expected.stream().filter(e::equals).count(), lines.stream().filter(e::equals).count(),
                        "once per event: " + e);
            }
            for (String line : lines) {
                assertFalse(line.startsWith("FORGED") || line.contains("\u001b"), "forged or raw line: " + line);
                assertTrue(line.startsWith("INFO ") || line.startsWith("WARN ") || line.startsWith("ERROR "),
                        "every line is a log record: " + line + "\n" + text);
            }
            assertFalse(text.contains("not in methods that can proceed"), "MINA saw the peer's method name");
            assertFalse(text.contains("secret"), "a password reached the log");
            assertEquals(expected.size(), lines.stream().filter(l -> l.contains("io.pqssh.sshd")).count(),
                    "one line per event, nothing else from io.pqssh.sshd:\n" + text);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nserver stderr:\n" + Files.readString(log), e);
        } finally {
            try (OutputStream in = p.getOutputStream()) {
                in.close();
            }
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private static int localPort(RawAuthClient c) {
        return ((InetSocketAddress) c.session().getLocalAddress()).getPort();
    }

    private static String fp(KemKeyPair k) {
        return KeyFingerprints.sha256(KemPublicKey.blob(KemAlgorithm.MLKEM768, k.publicKey()));
    }

    private static String waitForLines(Path log, List<String> expected) throws Exception {
        long end = System.nanoTime() + WAIT.toNanos();
        String text = "";
        while (System.nanoTime() < end) {
            text = Files.readString(log, StandardCharsets.UTF_8);
            List<String> lines = text.lines().toList();
            if (lines.containsAll(expected)) {
                Thread.sleep(300); // anything that would follow (a second line for one event) has time to show
                return Files.readString(log, StandardCharsets.UTF_8);
            }
            Thread.sleep(100);
        }
        List<String> lines = text.lines().toList();
        List<String> missing = expected.stream().filter(e -> !lines.contains(e)).toList();
        throw new AssertionError("missing log lines " + missing + "\nserver stderr:\n" + text);
    }
}
