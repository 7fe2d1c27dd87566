package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh scp} against a hostile server (CVE-2019-6111 class): Debian's sshd whose {@code scp -f} is a script
 * sending crafted C/D records whatever was asked, and whose SFTP server's directory listings are rewritten to hold
 * {@code ../} names. Nothing may be written outside what was requested; OpenSSH's scp on the same server is the
 * reference for the messages.
 */
class HostileTransferServerTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private Path records;
    private Path down;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        h = new ForwardingHarness(dir);
        key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        records = dir.resolve("records");
        down = Files.createDirectories(dir.resolve("download"));
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

    /**
     * sshd whose every command is a fake {@code scp -f}: waits for the client's first 0 byte, then sends each line of
     * {@code records} ({@code printf %b}: \n and \0 escapes) and waits for one reply byte after each.
     */
    private int hostileScpServer(String... recordLines) throws Exception {
        Files.writeString(records, String.join("\n", recordLines) + "\n");
        Path script = dir.resolve("hostile-scp.sh");
        Files.writeString(script, "#!/bin/sh\n"
                + "printf '%s\\n' \"$SSH_ORIGINAL_COMMAND\" >> " + dir.resolve("commands") + "\n"
                + "dd bs=1 count=1 of=/dev/null 2>/dev/null\n"
                + "while IFS= read -r rec <&3; do\n"
                + "  printf '%b' \"$rec\"\n"
                + "  dd bs=1 count=1 of=/dev/null 2>/dev/null\n"
                + "done 3< " + records + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return h.startSshd(authorized(), "ForceCommand " + script);
    }

    private List<String> opts(int port) {
        return new ArrayList<>(List.of("-P", String.valueOf(port), "-i", key.toString(),
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts")));
    }

    private CliHarness.Result pqsshScp(int port, String... rest) throws Exception {
        List<String> a = new ArrayList<>(List.of("scp"));
        a.addAll(opts(port));
        a.addAll(List.of(rest));
        return CliHarness.pqssh(a.toArray(String[]::new));
    }

    private CliHarness.Result opensshScp(int port, String... rest) throws Exception {
        Path scp = Path.of("/usr/bin/scp");
        CliHarness.requireBinary(scp, "openssh-client");
        List<String> a = new ArrayList<>(List.of(scp.toString(), "-q"));
        a.addAll(opts(port));
        a.addAll(List.of(rest));
        return CliHarness.exec(dir, a);
    }

    private static String remote(String path) {
        return CliHarness.user() + "@127.0.0.1:" + path;
    }

    @Test
    void aFileOtherThanTheOneRequestedIsRefusedAsOpenSshDoes() throws Exception {
        int port = hostileScpServer("C0644 6 .bashrc\\n", "owned\\n\\0");
        CliHarness.Result r = pqsshScp(port, "-O", remote("report.pdf"), down.toString());
        assertEquals(1, r.rc(), r.all());
        assertTrue(r.err().contains("protocol error: filename does not match request\n"), r.all());
        assertFalse(Files.exists(down.resolve(".bashrc")), "the server chose the file pqssh wrote");
        assertEquals(List.of(), fileNames(down));

        CliHarness.Result ssh = opensshScp(port, "-O", remote("report.pdf"), down.toString());
        assertEquals(1, ssh.rc(), ssh.all());
        assertTrue(ssh.err().contains("protocol error: filename does not match request\n"), ssh.all());
        assertEquals(List.of(), fileNames(down));
    }

    @Test
    void globsAndBracesInTheRequestAreMatchedAsScpMatchesThem() throws Exception {
        int port = hostileScpServer("C0644 6 b.txt\\n", "hello\\n\\0", "C0600 4 c.txt\\n", "bad\\n\\0");
        CliHarness.Result r = pqsshScp(port, "-O", remote("docs/{a,b}.txt"), down.toString());
        assertEquals(1, r.rc(), r.all());
        assertEquals("hello\n", Files.readString(down.resolve("b.txt")), "b.txt matched {a,b}.txt");
        assertFalse(Files.exists(down.resolve("c.txt")), "c.txt does not match {a,b}.txt");
        assertTrue(r.err().contains("protocol error: filename does not match request"), r.all());

        Path other = Files.createDirectories(dir.resolve("glob"));
        CliHarness.Result star = pqsshScp(port, "-O", remote("docs/[bc]*.t?t"), other.toString());
        assertEquals(0, star.rc(), star.all());
        assertEquals("hello\n", Files.readString(other.resolve("b.txt")));
        assertEquals("bad\n", Files.readString(other.resolve("c.txt")));
        // the path goes to the server's shell unquoted, as scp sends it, so that it expands the glob there
        assertTrue(Files.readString(dir.resolve("commands")).contains("scp -f docs/[bc]*.t?t\n"),
                CliHarness.read(dir.resolve("commands")));
    }

    @Test
    void dashTTurnsTheNameCheckOffAsInOpenSsh() throws Exception {
        int port = hostileScpServer("C0644 6 other.txt\\n", "owned\\n\\0");
        CliHarness.Result r = pqsshScp(port, "-O", "-T", remote("report.pdf"), down.toString());
        assertEquals(0, r.rc(), r.all());
        assertEquals("owned\n", Files.readString(down.resolve("other.txt")));
    }

    @Test
    void pathsAndDotDotAreRefusedEvenWithRecursion() throws Exception {
        int port = hostileScpServer("D0755 0 tree\\n", "C0644 6 ../escaped\\n", "owned\\n\\0", "E\\n");
        CliHarness.Result r = pqsshScp(port, "-O", "-r", remote("tree"), down.toString());
        assertEquals(1, r.rc(), r.all());
        assertTrue(r.err().contains("error: unexpected filename: ../escaped\n"), r.all());
        assertFalse(Files.exists(down.resolve("escaped")), "written outside the directory the server sent");
        assertFalse(Files.exists(dir.resolve("escaped")), "written outside the target");

        Files.writeString(records, "D0755 0 ..\\n\nC0644 6 escaped\\n\nowned\\n\\0\nE\\n\n");
        Path deeper = Files.createDirectories(down.resolve("a/b"));
        CliHarness.Result dotDot = pqsshScp(port, "-O", "-r", remote("x"), deeper.toString());
        assertEquals(1, dotDot.rc(), dotDot.all());
        assertTrue(dotDot.err().contains("error: unexpected filename: ..\n"), dotDot.all());
        assertFalse(Files.exists(down.resolve("a/escaped")), "the server's '..' directory was entered");
    }

    @Test
    void aDirectoryWithoutDashRIsAProtocolError() throws Exception {
        int port = hostileScpServer("D0755 0 report.pdf\\n", "C0644 6 .bashrc\\n", "owned\\n\\0", "E\\n");
        CliHarness.Result r = pqsshScp(port, "-O", remote("report.pdf"), down.toString());
        assertEquals(1, r.rc(), r.all());
        assertTrue(r.err().contains("protocol error: received directory without -r\n"), r.all());
        assertEquals(List.of(), fileNames(down));
    }

    /**
     * SFTP: the server's directory listing of {@code tree} names {@code ../escaped} (the sftp-server's
     * {@code zz-escaped}, rewritten on its way out by a filter of the same length), and the server holds a file
     * {@code escaped} next to {@code tree}, so that the hostile name resolves on both sides.
     */
    @Test
    void sftpDirectoryEntriesWithSlashesAreSkipped() throws Exception {
        Path remoteRoot = Files.createDirectories(dir.resolve("remote/tree"));
        Files.writeString(remoteRoot.resolve("zz-escaped"), "listed\n");
        Files.writeString(remoteRoot.resolve("fine.txt"), "fine\n");
        Files.writeString(remoteRoot.resolveSibling("escaped"), "owned\n");
        Path filter = dir.resolve("hostile-sftp.sh");
        Files.writeString(filter, "#!/bin/sh\n/usr/lib/openssh/sftp-server | perl -e 'binmode STDIN; binmode STDOUT;"
                + " while (sysread(STDIN, $b, 65536)) { $b =~ s{zz-escaped}{../escaped}g; syswrite(STDOUT, $b); }'\n");
        Files.setPosixFilePermissions(filter, PosixFilePermissions.fromString("rwxr-xr-x"));
        int port = h.startSshd(authorized(), "Subsystem sftp " + filter);

        CliHarness.Result r = pqsshScp(port, "-r", remote(remoteRoot.toString()), down.toString());
        assertFalse(Files.exists(down.resolve("escaped")), "a listed name wrote outside the copied directory");
        assertTrue(r.err().contains("Server sent suspect path \"../escaped\" during readdir of \"" + remoteRoot
                + "\""), r.all());
        assertEquals("fine\n", Files.readString(down.resolve("tree/fine.txt")));
    }

    private static List<String> fileNames(Path d) throws Exception {
        try (var s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
