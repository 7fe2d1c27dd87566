package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each transport cipher pqssh offers, forced with {@code -o Ciphers=}, moves a file up and down through
 * {@code pqssh scp} against Debian's OpenSSH sshd, SHA-256 checked; chacha20-poly1305 also against {@code pqssh
 * server}, whose side uses the same JDK-ChaCha20 implementation (issue 25). {@code -v} shows the cipher in use.
 */
class CipherTransferTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private Path src;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        h = new ForwardingHarness(dir);
        key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        byte[] b = new byte[2 * 1024 * 1024 + 4099]; // many full 32 KiB packets and a short last one
        new SecureRandom().nextBytes(b);
        src = Files.write(dir.resolve("src.bin"), b);
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

    private static String sha256(Path f) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
    }

    private CliHarness.Result scp(int port, String cipher, String from, String to) throws Exception {
        List<String> a = new ArrayList<>(List.of("scp", "-v", "-P", String.valueOf(port), "-i", key.toString(),
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts"),
                "-o", "Ciphers=" + cipher));
        if (cipher.endsWith("-ctr")) {
            a.addAll(List.of("-o", "MACs=hmac-sha2-256-etm@openssh.com"));
        }
        a.addAll(List.of(from, to));
        return CliHarness.pqssh(a.toArray(String[]::new));
    }

    private void roundTrip(int port, String cipher, String tag) throws Exception {
        String remote = CliHarness.user() + "@127.0.0.1:";
        Path there = dir.resolve("there-" + tag + ".bin");
        Path back = dir.resolve("back-" + tag + ".bin");
        CliHarness.Result up = scp(port, cipher, src.toString(), remote + there);
        assertEquals(0, up.rc(), up.all());
        assertTrue(up.all().contains("kex: client->server cipher: " + cipher), up.all());
        assertEquals(sha256(src), sha256(there), "upload with " + cipher);
        CliHarness.Result down = scp(port, cipher, remote + there, back.toString());
        assertEquals(0, down.rc(), down.all());
        assertTrue(down.all().contains("kex: server->client cipher: " + cipher), down.all());
        assertEquals(sha256(src), sha256(back), "download with " + cipher);
    }

    @ParameterizedTest
    @ValueSource(strings = {"chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
        "aes128-ctr"})
    void eachCipherAgainstOpenSshSshd(String cipher) throws Exception {
        int port = h.startSshd(authorized(), "Subsystem sftp /usr/lib/openssh/sftp-server",
                "Ciphers chacha20-poly1305@openssh.com,aes128-gcm@openssh.com,aes256-gcm@openssh.com,aes128-ctr");
        roundTrip(port, cipher, "sshd");
    }

    @Test
    void chachaAgainstPqsshServer() throws Exception {
        roundTrip(h.startServer(authorized()), "chacha20-poly1305@openssh.com", "pqssh");
    }
}
