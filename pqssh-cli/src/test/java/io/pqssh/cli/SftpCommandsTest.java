package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.keyprovider.FileKeyPairProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;

/**
 * {@code pqssh sftp -b} with the commands beyond get/put/ls (chmod, chown, chgrp, ln, symlink, cp, df, lumask,
 * progress, reget/reput, get/put -a -p -f) against Debian's sshd with OpenSSH's sftp-server, {@code pqssh server}
 * (which runs the same sftp-server as the user) and MINA's in-process SFTP subsystem (an embedded
 * {@link PqsshServer}): each checks the remote file system afterwards, and OpenSSH 9.2 sftp's messages. Needs root
 * (chown to another uid), as CI runs.
 */
class SftpCommandsTest {
    private static final long OLD_MTIME = 1_000_000_000L;

    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private PqsshServer embedded;

    @BeforeEach
    void setUp() throws Exception {
        assertEquals("root", System.getProperty("user.name"),
                "SftpCommandsTest needs root (chown to another uid), as CI runs");
        h = new ForwardingHarness(dir);
        key = h.userKey();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (embedded != null) {
            embedded.close();
        }
        h.close();
    }

    @Test
    void againstOpenSshSshd() throws Exception {
        commands(h.startSshd(h.authorizedKeys(), "Subsystem sftp /usr/lib/openssh/sftp-server"), true);
    }

    @Test
    void againstPqsshServer() throws Exception {
        commands(h.startServer(h.authorizedKeys()), true);
    }

    @Test
    void againstMinaSftpSubsystem() throws Exception {
        FileKeyAuthorizers auth = new FileKeyAuthorizers(h.authorizedKeys().toString(), "none");
        Path hostKey = CliHarness.sshKeygen(dir.resolve("embedded_host_key"), "ed25519");
        embedded = PqsshServer.builder().systemShell().sftp(true).host("127.0.0.1").port(0)
                .hostKeys(new FileKeyPairProvider(hostKey)).publickey(auth.publickey())
                .kem(KemServerSettings.builder().authorizer(auth.kem()).build()).start();
        commands(embedded.port(), false);
    }

    /** {@code -b batchfile}: sftp's batch rules (no "Changing" lines, the first error ends it unless "-"). */
    private CliHarness.Result batch(int port, String... lines) throws Exception {
        Path b = Files.createTempFile(dir, "batch", "");
        Files.writeString(b, String.join("\n", lines) + "\n");
        return CliHarness.pqssh(sftpArgs(port, "-b", b.toString()));
    }

    /** Commands piped to {@code pqssh sftp} without -b: sftp's interactive rules (messages, the session goes on). */
    private CliHarness.Result piped(int port, String... lines) throws Exception {
        return CliHarness.pqsshWithStdin((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8),
                sftpArgs(port));
    }

    private String[] sftpArgs(int port, String... extra) {
        List<String> a = new ArrayList<>(List.of("sftp", "-P", String.valueOf(port), "-i", key.toString(),
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts")));
        a.addAll(List.of(extra));
        a.add(CliHarness.user() + "@127.0.0.1");
        return a.toArray(String[]::new);
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private void commands(int port, boolean openSshSftpServer) throws Exception {
        Path remote = Files.createDirectories(dir.resolve("remote")).toRealPath();
        Path local = Files.createDirectories(dir.resolve("local")).toRealPath();
        byte[] big = random(200_000);
        Files.write(local.resolve("big.bin"), big);
        Files.write(remote.resolve("big.bin"), big);
        Files.write(local.resolve("part.bin"), Arrays.copyOf(big, 70_000));
        Files.write(remote.resolve("part.bin"), Arrays.copyOf(big, 50_000));
        Files.writeString(remote.resolve("a.txt"), "alpha\n");
        Files.setPosixFilePermissions(remote.resolve("a.txt"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.writeString(remote.resolve("ab.txt"), "alpha beta\n");
        Files.writeString(local.resolve("old.txt"), "old\n");
        Files.setLastModifiedTime(local.resolve("old.txt"), FileTime.from(OLD_MTIME, TimeUnit.SECONDS));
        Files.setPosixFilePermissions(local.resolve("old.txt"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.writeString(local.resolve("tool.sh"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(local.resolve("tool.sh"), PosixFilePermissions.fromString("rwxr-x---"));

        CliHarness.Result r = piped(port, "cd " + remote, "lcd " + local,
                "chmod 640 a*", "chown 4321 a.txt", "chgrp 4322 a.txt",
                "ln -s a.txt soft.txt", "symlink ab.txt soft2.txt", "ln a.txt hard.txt", "chown -h 4323 soft.txt",
                "lumask 077", "get a.txt got.txt", "put tool.sh",
                "put -p old.txt old.txt", "get -p old.txt oldback.txt",
                "reget big.bin part.bin", "reput big.bin part.bin", "get -a big.bin big.bin",
                "put -f big.bin synced.bin", "get -f synced.bin synced-back.bin", "progress",
                "df", "df -h", "df -i", "cp a.txt c.txt", "bye");
        assertEquals(0, r.rc(), r.all());
        String out = r.out();
        assertTrue(out.contains("sftp> chmod 640 a*\nChanging mode on " + remote + "/a.txt\nChanging mode on "
                + remote + "/ab.txt\n"), r.all());
        assertTrue(out.contains("sftp> chown 4321 a.txt\nChanging owner on " + remote + "/a.txt\n"), r.all());
        assertTrue(out.contains("sftp> chgrp 4322 a.txt\nChanging group on " + remote + "/a.txt\n"), r.all());
        assertTrue(out.contains("sftp> reget big.bin part.bin\nResuming " + remote + "/big.bin to part.bin\n"),
                r.all());
        assertTrue(out.contains("sftp> reput big.bin part.bin\nResuming upload of big.bin to " + remote
                + "/part.bin\n"), r.all());
        // -h: lsetstat@openssh.com changes the link itself (both servers have it), not the file it names
        assertEquals(4323, Files.getAttribute(remote.resolve("soft.txt"), "unix:uid", LinkOption.NOFOLLOW_LINKS),
                r.all());
        // chmod with a glob, chown/chgrp with numeric ids
        assertEquals("rw-r-----", mode(remote.resolve("a.txt")), r.all());
        assertEquals("rw-r-----", mode(remote.resolve("ab.txt")), r.all());
        assertEquals(4321, Files.getAttribute(remote.resolve("a.txt"), "unix:uid"), r.all());
        assertEquals(4322, Files.getAttribute(remote.resolve("a.txt"), "unix:gid"), r.all());
        // symbolic links store the target as typed; the hard link is the same file
        assertEquals(Path.of("a.txt"), Files.readSymbolicLink(remote.resolve("soft.txt")), r.all());
        assertEquals(Path.of("ab.txt"), Files.readSymbolicLink(remote.resolve("soft2.txt")), r.all());
        assertTrue(Files.isSameFile(remote.resolve("a.txt"), remote.resolve("hard.txt")), r.all());
        assertEquals(2, Files.getAttribute(remote.resolve("a.txt"), "unix:nlink"), r.all());
        // df: sftp's three tables where the server has statvfs@openssh.com (MINA's has not)
        if (!openSshSftpServer) {
            assertTrue(r.err().contains("Server does not support statvfs@openssh.com extension\n"), r.all());
        } else {
            dfTables(r);
        }
        // lumask 077: a downloaded file gets (remote mode | u+w) & ~077
        assertTrue(out.contains("sftp> lumask 077\nLocal umask: 077\n"), r.all());
        assertEquals("rw-------", mode(local.resolve("got.txt")), r.all());
        // put creates the remote file with the local permission bits (SSH_FXP_OPEN's attributes, as sftp)
        assertEquals("rwxr-x---", mode(remote.resolve("tool.sh")), r.all());
        // -p: times and mode both ways
        assertEquals(OLD_MTIME, Files.getLastModifiedTime(remote.resolve("old.txt")).to(
                TimeUnit.SECONDS), r.all());
        assertEquals("rwxr-x---", mode(remote.resolve("old.txt")), r.all());
        assertEquals(OLD_MTIME, Files.getLastModifiedTime(local.resolve("oldback.txt")).to(
                TimeUnit.SECONDS), r.all());
        assertEquals("rwxr-x---", mode(local.resolve("oldback.txt")), r.all());
        // reget/reput append what is missing: the result equals the source byte for byte
        assertArrayEquals(big, Files.readAllBytes(local.resolve("part.bin")), "reget");
        assertArrayEquals(big, Files.readAllBytes(remote.resolve("part.bin")), "reput");
        assertTrue(r.err().contains("File \"big.bin\" was not modified"), r.all());
        assertArrayEquals(big, Files.readAllBytes(remote.resolve("synced.bin")), "put -f");
        assertArrayEquals(big, Files.readAllBytes(local.resolve("synced-back.bin")), "get -f");
        // stderr is no terminal here, so the meter starts off (as sftp) and the toggle turns it on
        assertTrue(out.contains("sftp> progress\nProgress meter enabled\n"), r.all());

        // copy-data: OpenSSH's sftp-server has it; MINA's does not, and sftp's message says so
        if (openSshSftpServer) {
            assertEquals("alpha\n", Files.readString(remote.resolve("c.txt")), r.all());
            assertEquals("rw-r-----", mode(remote.resolve("c.txt")), r.all());
        } else {
            assertTrue(r.err().contains("Server does not support copy-data extension\n"), r.all());
            assertFalse(Files.exists(remote.resolve("c.txt")));
        }

        // errors: sftp's messages ("-" lets the batch go on after each); the copies are left as they were
        Files.write(local.resolve("a-local-larger.bin"), new byte[300_000]);
        String[][] errors = {
            {"chmod 6x0 a.txt", "You must supply a numeric argument to the chmod command."},
            {"chown bob a.txt", "You must supply a numeric argument to the chown command."},
            {"chmod 600", "You must specify a path after a chmod command."},
            {"chmod 600 nope", "remote setstat \"" + remote + "/nope\": No such file or directory"},
            {"ln a.txt", "You must specify two paths after a ln command."},
            {"ln -x a.txt b", "ln: Invalid flag -x"},
            // an existing link: OpenSSH's server says SSH_FX_FAILURE; MINA's a status SFTP v3 does not define
            {"symlink a.txt soft.txt", "remote symlink file \"a.txt\" to \"" + remote + "/soft.txt\": "
                    + (openSshSftpServer ? "Failure" : "Unknown status")},
            {"df -x", "df: Invalid flag -x"},
            {"lumask 9z", "You must supply a numeric argument to the lumask command."},
            {"reget nope", "File \"" + remote + "/nope\" not found."},
            {"reput old.txt big.bin", "resume \"old.txt\": destination file same size or larger"},
            {"get -a big.bin a-local-larger.bin",
                "Unable to resume download of \"a-local-larger.bin\": local file is larger than remote"},
        };
        List<String> lines = new ArrayList<>(List.of("cd " + remote, "lcd " + local));
        for (String[] e : errors) {
            lines.add("-" + e[0]);
        }
        // without "-", the first failing command ends the batch with status 1
        lines.addAll(List.of("chmod 600 nope", "mkdir after-error"));
        CliHarness.Result bad = batch(port, lines.toArray(String[]::new));
        assertEquals(1, bad.rc(), bad.all());
        assertFalse(Files.exists(remote.resolve("after-error")), "the batch went on\n" + bad.all());
        assertFalse(bad.out().contains("Changing mode"), "batch mode prints no 'Changing' lines\n" + bad.all());
        StringBuilder expected = new StringBuilder();
        for (String[] e : errors) {
            expected.append(e[1]).append('\n');
        }
        // (the in-process servers' log lines share stderr)
        String messages = bad.err().replaceAll("(?m)^\\d\\d:\\d\\d:\\d\\d\\.\\d+ .*\n", "");
        assertTrue(messages.contains(expected), "expected in order:\n" + expected + bad.all());
        assertArrayEquals(big, Files.readAllBytes(remote.resolve("big.bin")), "a failed reput changed the file");
        assertEquals(300_000, Files.size(local.resolve("a-local-larger.bin")), "a failed reget changed the file");
    }

    private static void dfTables(CliHarness.Result df) {
        assertTrue(df.out().contains("sftp> df\n        Size         Used        Avail       (root)    %Capacity\n"),
                df.all());
        assertTrue(df.out().matches("(?s).*sftp> df -h\n    Size     Used    Avail   \\(root\\)    %Capacity\n"
                + " *[0-9.]+[BKMGTPE]B +[0-9.]+[BKMGTPE]B .*"), df.all());
        assertTrue(df.out().contains("sftp> df -i\n     Inodes        Used       Avail      (root)    %Capacity\n"),
                df.all());
    }
}
