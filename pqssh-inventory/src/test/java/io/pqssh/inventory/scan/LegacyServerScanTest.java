package io.pqssh.inventory.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.inventory.LoopbackServers;

/**
 * Legacy and refusing servers: Debian's sshd (OpenSSH 9.2) offering only diffie-hellman-group14-sha1 and ssh-rsa
 * gives its host key and RSA size to {@code --hostkeys}; an OpenSSH penalty reply is reported as such.
 */
class LegacyServerScanTest {
    @TempDir
    Path dir;

    @Test
    void hostKeysAreCollectedFromAGroup14Sha1SshRsaServer() throws Exception {
        Path key = LoopbackServers.sshKeygen(dir.resolve("ssh_host_rsa_key"), "-t", "rsa", "-b", "3072");
        String pub = Files.readString(dir.resolve("ssh_host_rsa_key.pub")).strip();
        String fp = KeyFingerprints.sha256(Base64.getDecoder().decode(pub.split(" ")[1]));
        try (LoopbackServers.Sshd sshd = LoopbackServers.Sshd.start(dir, key,
                "KexAlgorithms diffie-hellman-group14-sha1\nHostKeyAlgorithms ssh-rsa")) {
            Scanner.Options o = new Scanner.Options();
            o.hostKeys = true;
            o.ratePerSecond = 0;
            o.connectTimeout = Duration.ofSeconds(5);
            o.readTimeout = Duration.ofSeconds(10);
            long start = System.nanoTime();
            ScanResult r = new Scanner(o).scan(List.of(new Target("127.0.0.1", sshd.port)), null).get(0);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals("classical-only", r.category(), r.toString());
            assertEquals(List.of("diffie-hellman-group14-sha1"), r.kexInit().kex().stream()
                    .filter(n -> !Algorithms.isPseudoKex(n)).toList());
            assertTrue(r.classification().weak().containsAll(List.of("kex:diffie-hellman-group14-sha1",
                    "hostkey:ssh-rsa")), r.classification().weak().toString());
            assertEquals(1, r.hostKeys().size(), r.hostKeys().toString());
            ScanResult.HostKey h = r.hostKeys().get(0);
            assertNull(h.error(), h.toString() + "\nsshd log:\n" + Files.readString(sshd.log));
            assertEquals("ssh-rsa", h.algorithm());
            assertEquals(fp, h.fingerprint());
            assertEquals(3072, h.bits());
            assertTrue(ms < 10_000, "took " + ms + " ms (it used to wait 15 s for nothing)");
        }
    }

    @Test
    void aPenaltyReplyIsReportedAsSuchNotAsNotSsh() throws Exception {
        // what sshd (PerSourcePenalties, OpenSSH 9.8+) writes to a penalised source before closing
        try (ServerSocket ss = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                try (Socket s = ss.accept(); OutputStream out = s.getOutputStream(); InputStream in = s.getInputStream()) {
                    out.write("Not allowed at this time\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } catch (IOException ignored) {
                    // the probe may already be gone
                }
            }, "penalty-server");
            t.setDaemon(true);
            t.start();
            Scanner.Options o = new Scanner.Options();
            o.ratePerSecond = 0;
            o.retries = 0;
            ScanResult r = new Scanner(o).scan(List.of(new Target("127.0.0.1", ss.getLocalPort())), null).get(0);
            assertEquals("unreachable", r.category(), r.toString());
            assertTrue(r.error().contains("Not allowed at this time") && r.error().contains("PerSourcePenalties"),
                    r.error());
            t.join(5000);
        }
    }
}
