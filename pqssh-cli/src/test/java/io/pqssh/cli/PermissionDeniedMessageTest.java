package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last line of a refused login is ssh's {@code user@host: Permission denied (METHODS).}, with the methods the
 * server still offered: against Debian's sshd, compared with OpenSSH's ssh; against pqssh server, its KEM methods too.
 */
class PermissionDeniedMessageTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path wrongKey;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        Path allowed = CliHarness.sshKeygen(dir.resolve("allowed"), "ed25519");
        wrongKey = CliHarness.sshKeygen(dir.resolve("wrong"), "ed25519");
        Files.writeString(dir.resolve("authorized_keys"), Files.readString(pub(allowed)));
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private List<String> options(int port) {
        return new ArrayList<>(List.of("-p", String.valueOf(port), "-i", wrongKey.toString(), "-o", "BatchMode=yes",
                "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts"), CliHarness.user() + "@127.0.0.1", "true"));
    }

    private static String lastLine(String s) {
        List<String> lines = s.replace("\r\n", "\n").lines().filter(l -> !l.matches("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*"))
                .toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }

    @Test
    void againstSshdTheLineIsSshs() throws Exception {
        int port = h.startSshd(dir.resolve("authorized_keys"));
        List<String> p = new ArrayList<>(List.of("ssh"));
        p.addAll(options(port));
        CliHarness.Result pq = CliHarness.pqssh(p.toArray(String[]::new));
        List<String> o = new ArrayList<>(List.of(CliHarness.SSH.toString(), "-F", "none"));
        o.addAll(options(port));
        CliHarness.Result ssh = CliHarness.exec(dir, o);
        assertEquals(255, ssh.rc(), ssh.all());
        assertEquals(255, pq.rc(), pq.all());
        assertEquals(CliHarness.user() + "@127.0.0.1: Permission denied (publickey).", lastLine(ssh.err()), ssh.all());
        assertEquals(lastLine(ssh.err()), lastLine(pq.err()), pq.all());
    }

    @Test
    void againstPqsshServerTheKemMethodIsListed() throws Exception {
        int port = h.startServer(dir.resolve("authorized_keys"));
        List<String> p = new ArrayList<>(List.of("ssh"));
        p.addAll(options(port));
        CliHarness.Result pq = CliHarness.pqssh(p.toArray(String[]::new));
        assertEquals(255, pq.rc(), pq.all());
        assertEquals(CliHarness.user() + "@127.0.0.1: Permission denied (publickey,publickey-kem,publickey-kem-and).",
                lastLine(pq.err()),
                pq.all());
    }
}
