package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ls -l FILE} and {@code ls -l GLOB} in {@code pqssh sftp}: the long lines sftp builds itself from the
 * attributes (mode with set-id bits, {@code ?} links, owner and group names from {@code users-groups-by-id@openssh.com},
 * recent and old dates, a glob naming one directory lists it), byte for byte as OpenSSH's sftp 9.2 prints them against
 * the same Debian sshd/sftp-server, and against {@code pqssh server}. (They printed the bare name.)
 */
class SftpLongListTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private Path remote;

    @BeforeEach
    void setUp() throws Exception {
        h = new ForwardingHarness(dir);
        key = h.userKey();
        remote = Files.createDirectories(dir.resolve("remote")).toRealPath();
        Files.writeString(remote.resolve("recent.txt"), "recent\n");
        Path old = Files.writeString(remote.resolve("old.bin"), "x".repeat(12345));
        Files.setLastModifiedTime(old, FileTime.from(Instant.parse("2020-01-02T03:04:05Z")));
        Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rwxr-x---"));
        Files.setAttribute(old, "unix:mode", 04750);
        Path sticky = Files.createDirectories(remote.resolve("shared"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Files.createDirectories(remote.resolve("share2"));
        Files.writeString(sticky.resolve("inside.txt"), "in\n");
        Path soon = Files.writeString(remote.resolve("future.txt"), "later\n");
        Files.setLastModifiedTime(soon, FileTime.from(Instant.now().plus(3, ChronoUnit.DAYS)));
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private Path batch() {
        try {
            return Files.writeString(dir.resolve("batch"), String.join("\n", "ls -l " + remote + "/old.bin",
                    "cd " + remote, "ls -l recent.txt", "ls -l *.txt", "ls -l sh*", "ls -l shared*", "ls -1 shared*", "ls -l future.txt", ""));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<String> opts(int port) {
        return List.of("-b", batch().toString(), "-F", "none", "-i", key.toString(), "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts"), "-P", String.valueOf(port),
                CliHarness.user() + "@127.0.0.1");
    }

    @Test
    void sameLinesAsOpenSshSftp() throws Exception {
        CliHarness.requireBinary(Path.of("/usr/bin/sftp"), "openssh-client");
        int port = h.startSshd(h.authorizedKeys(), "Subsystem sftp /usr/lib/openssh/sftp-server");
        List<String> sftp = new java.util.ArrayList<>(List.of("/usr/bin/sftp"));
        sftp.addAll(opts(port));
        CliHarness.Result o = CliHarness.exec(dir, sftp);
        assertEquals(0, o.rc(), o.all());
        List<String> pq = new java.util.ArrayList<>(List.of("sftp"));
        pq.addAll(opts(port));
        CliHarness.Result r = CliHarness.pqssh(pq.toArray(String[]::new));
        assertEquals(0, r.rc(), r.all());
        assertEquals(o.out(), r.out(), "OpenSSH's sftp:\n" + o.all() + "\npqssh sftp:\n" + r.all());
        assertTrue(r.out().contains("-rwsr-x---    ? root     root        12345 Jan  2  2020 " + remote + "/old.bin"),
                r.all());
    }

    @Test
    void pqsshServerToo() throws Exception {
        int port = h.startServer(h.authorizedKeys());
        List<String> pq = new java.util.ArrayList<>(List.of("sftp"));
        pq.addAll(opts(port));
        CliHarness.Result r = CliHarness.pqssh(pq.toArray(String[]::new));
        assertEquals(0, r.rc(), r.all());
        assertTrue(r.out().contains("-rwsr-x---    ? root     root        12345 Jan  2  2020 " + remote + "/old.bin"),
                r.all());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("drwxrwxrwt    \\? root     root     +\\d+ .* shared/")),
                r.all());
        assertTrue(r.out().contains("sftp> ls -1 shared*\nshared/inside.txt\n"), r.all());
    }
}
