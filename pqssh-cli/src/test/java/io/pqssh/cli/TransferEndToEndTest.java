package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

/**
 * {@code pqssh scp} (SFTP and legacy -O) and {@code pqssh sftp -b} against {@code pqssh server} and Debian's OpenSSH
 * sshd with its sftp-server: SHA-256-checked round trips of files and -r directories, -p keeping times and modes,
 * batch exit status on errors.
 */
class TransferEndToEndTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        h = new ForwardingHarness(dir);
        key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
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
        return h.startSshd(authorized(), "Subsystem sftp /usr/lib/openssh/sftp-server");
    }

    private List<String> opts(String portFlag, int port) {
        return new ArrayList<>(List.of(portFlag, String.valueOf(port), "-i", key.toString(),
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts")));
    }

    private CliHarness.Result scp(int port, String... rest) throws Exception {
        List<String> a = new ArrayList<>(List.of("scp"));
        a.addAll(opts("-P", port));
        a.addAll(List.of(rest));
        return CliHarness.pqssh(a.toArray(String[]::new));
    }

    private CliHarness.Result sftpBatch(int port, Path batch) throws Exception {
        List<String> a = new ArrayList<>(List.of("sftp"));
        a.addAll(opts("-P", port));
        a.addAll(List.of("-b", batch.toString(), CliHarness.user() + "@127.0.0.1"));
        return CliHarness.pqssh(a.toArray(String[]::new));
    }

    private static String sha256(Path f) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
    }

    private static Path randomFile(Path f, int size) throws Exception {
        byte[] b = new byte[size];
        new SecureRandom().nextBytes(b);
        Files.createDirectories(f.getParent());
        Files.write(f, b);
        return f;
    }

    @Test
    void againstPqsshServer() throws Exception {
        roundTrips(h.startServer(authorized()), "pqssh");
    }

    @Test
    void againstOpenSshServer() throws Exception {
        roundTrips(startSshd(), "openssh");
    }

    private void roundTrips(int port, String tag) throws Exception {
        String remote = CliHarness.user() + "@127.0.0.1:";
        Path src = randomFile(dir.resolve("src/big.bin"), 3 * 1024 * 1024 + 17);
        Path tree = dir.resolve("src/tree");
        randomFile(tree.resolve("a.bin"), 100_000);
        randomFile(tree.resolve("sub/b.bin"), 12_345);
        Files.createDirectories(tree.resolve("empty"));
        Path remoteDir = Files.createDirectories(dir.resolve("remote-" + tag));
        Path back = Files.createDirectories(dir.resolve("back-" + tag));

        // SFTP (default): file up and down
        CliHarness.Result up = scp(port, src.toString(), remote + remoteDir + "/");
        assertEquals(0, up.rc(), up.all());
        assertEquals(sha256(src), sha256(remoteDir.resolve("big.bin")));
        CliHarness.Result down = scp(port, remote + remoteDir.resolve("big.bin"), back.resolve("copy.bin").toString());
        assertEquals(0, down.rc(), down.all());
        assertEquals(sha256(src), sha256(back.resolve("copy.bin")));

        // -p keeps the modification time and mode both ways (over SFTP: SETSTAT up, utimes/chmod down)
        Path stamped = randomFile(dir.resolve("src/stamped.bin"), 1000);
        Files.setLastModifiedTime(stamped, java.nio.file.attribute.FileTime.fromMillis(1_000_000_000_000L));
        Files.setPosixFilePermissions(stamped, java.nio.file.attribute.PosixFilePermissions.fromString("rwx---r--"));
        CliHarness.Result upP = scp(port, "-p", stamped.toString(), remote + remoteDir + "/");
        assertEquals(0, upP.rc(), upP.all());
        assertEquals(1_000_000_000_000L, Files.getLastModifiedTime(remoteDir.resolve("stamped.bin")).toMillis());
        assertEquals("rwx---r--", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(remoteDir.resolve("stamped.bin"))));
        CliHarness.Result downP = scp(port, "-p", remote + remoteDir.resolve("stamped.bin"),
                back.resolve("stamped.bin").toString());
        assertEquals(0, downP.rc(), downP.all());
        assertEquals(1_000_000_000_000L, Files.getLastModifiedTime(back.resolve("stamped.bin")).toMillis());
        assertEquals("rwx---r--", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(back.resolve("stamped.bin"))));

        // -r directories both ways
        CliHarness.Result upR = scp(port, "-r", tree.toString(), remote + remoteDir);
        assertEquals(0, upR.rc(), upR.all());
        assertEquals(sha256(tree.resolve("sub/b.bin")), sha256(remoteDir.resolve("tree/sub/b.bin")));
        assertTrue(Files.isDirectory(remoteDir.resolve("tree/empty")));
        CliHarness.Result downR = scp(port, "-r", remote + remoteDir.resolve("tree"), back.toString());
        assertEquals(0, downR.rc(), downR.all());
        assertEquals(sha256(tree.resolve("a.bin")), sha256(back.resolve("tree/a.bin")));
        assertEquals(sha256(tree.resolve("sub/b.bin")), sha256(back.resolve("tree/sub/b.bin")));

        // a directory without -r, and a missing remote file: exit 1
        CliHarness.Result noR = scp(port, tree.toString(), remote + remoteDir.resolve("x"));
        assertEquals(1, noR.rc(), noR.all());
        CliHarness.Result missing = scp(port, remote + remoteDir.resolve("nope.bin"), back.toString());
        assertEquals(1, missing.rc(), missing.all());

        // legacy SCP protocol (-O)
        CliHarness.Result legacy = scp(port, "-O", src.toString(), remote + remoteDir.resolve("legacy.bin"));
        assertEquals(0, legacy.rc(), legacy.all());
        assertEquals(sha256(src), sha256(remoteDir.resolve("legacy.bin")));
        CliHarness.Result legacyR = scp(port, "-O", "-r", remote + remoteDir.resolve("tree"),
                back.resolve("legacy-tree").toString());
        assertEquals(0, legacyR.rc(), legacyR.all());
        assertEquals(sha256(tree.resolve("sub/b.bin")), sha256(back.resolve("legacy-tree/sub/b.bin")));

        // sftp -b: put, ls, get in another local directory, mkdir, rm, rename
        Path work = Files.createDirectories(dir.resolve("sftp-" + tag));
        Path batch = dir.resolve("batch-" + tag);
        Files.writeString(batch, String.join("\n", "cd " + remoteDir, "mkdir made", "put " + src + " made/p.bin",
                "ls made", "lcd " + work, "get made/p.bin", "rename made/p.bin made/q.bin", "pwd",
                "-rm does-not-exist", "rm made/q.bin", "rmdir made", "exit", ""));
        CliHarness.Result ok = sftpBatch(port, batch);
        assertEquals(0, ok.rc(), ok.all());
        assertTrue(ok.out().contains("sftp> ls made\nmade/p.bin"), ok.all()); // sftp prefixes the named directory
        assertTrue(ok.out().contains("Remote working directory: " + remoteDir.toRealPath()), ok.all());
        assertEquals(sha256(src), sha256(work.resolve("p.bin")));
        assertFalse(Files.exists(remoteDir.resolve("made")), "rmdir in the batch did not happen");

        // the first failing command ends the batch with exit status 1; later commands do not run
        Path bad = dir.resolve("bad-" + tag);
        Files.writeString(bad, String.join("\n", "cd " + remoteDir, "get no-such-file", "mkdir after-error", ""));
        CliHarness.Result failed = sftpBatch(port, bad);
        assertEquals(1, failed.rc(), failed.all());
        assertFalse(Files.exists(remoteDir.resolve("after-error")), "a command after the error ran");
    }
}
