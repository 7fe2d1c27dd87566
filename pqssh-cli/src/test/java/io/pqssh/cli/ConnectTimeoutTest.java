package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ConnectTimeout covers the banner exchange, as ssh's: a server that accepts the TCP connection and never sends its
 * identification line ends the login after ConnectTimeout with ssh's two lines, the same as OpenSSH's ssh prints
 * against the same listener (before issue 21 pqssh waited for its 30 s authentication timeout, or 10 minutes on a
 * terminal).
 */
class ConnectTimeoutTest {
    @TempDir
    Path dir;

    @Test
    void aServerThatNeverSpeaksTimesOutDuringBannerExchange() throws Exception {
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (!silent.isClosed()) {
                        Socket s = silent.accept();
                        synchronized (accepted) {
                            accepted.add(s); // held open, never written to
                        }
                    }
                } catch (java.io.IOException e) {
                    // the listener closed: the test is over
                }
            }, "silent-listener");
            acceptor.setDaemon(true);
            acceptor.start();
            int port = silent.getLocalPort();
            long start = System.nanoTime();
            CliHarness.Result r = CliHarness.pqssh("ssh", "-F", "none", "-o", "ConnectTimeout=2", "-o",
                    "BatchMode=yes", "-o", "UserKnownHostsFile=" + dir.resolve("kh"), "-p", String.valueOf(port),
                    "127.0.0.1", "true");
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(255, r.rc(), r.all());
            assertTrue(ms >= 1_900 && ms < 15_000, "ended after " + ms + " ms: " + r.all());
            List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
            assertEquals(List.of("Connection timed out during banner exchange",
                    "Connection to 127.0.0.1 port " + port + " timed out"), lines, r.all());

            CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
            CliHarness.Result ssh = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-F", "none", "-o",
                    "ConnectTimeout=2", "-o", "BatchMode=yes", "-o", "UserKnownHostsFile=" + dir.resolve("kh"),
                    "-p", String.valueOf(port), "127.0.0.1", "true"));
            assertEquals(255, ssh.rc(), ssh.all());
            assertEquals(lines, ssh.err().lines().filter(l -> !l.isBlank()).toList(), ssh.all());
        } finally {
            synchronized (accepted) {
                for (Socket s : accepted) {
                    s.close();
                }
            }
        }
    }
}
