package io.pqssh.server.sftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The internal-sftp jail as pqssh server starts it ({@link SftpJail#command}), driven by OpenSSH's own sftp
 * ({@code sftp -D}): it changes root and ids before serving, so the kernel confines every path, symbolic links
 * included, and every file it writes is the account's. Root only (chroot, a change of uid), as CI runs.
 */
class SftpJailTest {
    /** Debian's nobody/nogroup: an account that exists on every Debian box. */
    private static final int NOBODY = 65534;

    @BeforeAll
    static void needsRootAndSftp() throws Exception {
        assertEquals("0", run(List.of("id", "-u"), null).strip(),
                "SftpJailTest changes root and uid: run it as root (CI does)");
        assertTrue(Files.isExecutable(Path.of("/usr/bin/sftp")), "OpenSSH's sftp is missing: apt-get install"
                + " openssh-client");
    }

    @Test
    void servesOnlyTheChrootAsTheAccount(@TempDir Path dir) throws Exception {
        Path root = Files.createDirectory(dir.resolve("jail"));
        Path pub = Files.createDirectory(root.resolve("pub"));
        Files.setAttribute(pub, "unix:uid", NOBODY);
        Files.setAttribute(pub, "unix:gid", NOBODY);
        Path secret = Files.writeString(root.resolve("secret"), "root's only\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(pub.resolve("readme"), "hello from the jail\n");
        // outside the chroot this names a real file of the host; inside, nothing
        Files.createSymbolicLink(pub.resolve("escape"), Path.of("/etc/hostname"));
        assertTrue(Files.exists(Path.of("/etc/hostname")), "the host has no /etc/hostname to escape to");
        Path local = Files.writeString(dir.resolve("up.txt"), "uploaded\n");
        String batch = String.join("\n", "pwd", "ls -1 /", "ls -1 /pub", "get /pub/readme " + dir.resolve("got"),
                "-get /secret " + dir.resolve("secret-copy"), "-get /pub/escape " + dir.resolve("escaped"),
                "put " + local + " /pub/up.txt", "-put " + local + " /not-mine.txt", "cd ..", "pwd", "");
        Result r = sftp(dir, batch, SftpJail.command(root, NOBODY, NOBODY, "nobody", "/pub", List.of()));
        assertEquals(0, r.rc, r.all());
        assertTrue(r.out.contains("Remote working directory: /pub"), "the home inside the chroot:\n" + r.all());
        assertEquals(List.of("/pub", "/secret"), listing(r.out, "ls -1 /"), "only the chroot is /:\n" + r.all());
        assertEquals(List.of("/pub/escape", "/pub/readme"), listing(r.out, "ls -1 /pub"), r.all());
        assertEquals("hello from the jail\n", Files.readString(dir.resolve("got")));
        assertFalse(Files.exists(dir.resolve("secret-copy")), "uid " + NOBODY + " read root's 0600 file");
        assertTrue(r.err.contains("Permission denied"), r.all());
        assertFalse(Files.exists(dir.resolve("escaped")), "a symbolic link reached the host's /etc/hostname");
        assertTrue(r.err.contains("No such file"), r.all());
        Path up = pub.resolve("up.txt");
        assertEquals("uploaded\n", Files.readString(up));
        assertEquals(NOBODY, Files.getAttribute(up, "unix:uid"), "the upload is the account's");
        assertEquals(NOBODY, Files.getAttribute(up, "unix:gid"));
        assertFalse(Files.exists(root.resolve("not-mine.txt")), "uid " + NOBODY + " wrote into root's directory");
        assertTrue(r.out.lines().filter(l -> l.equals("Remote working directory: /")).count() == 1,
                "cd .. from /pub ends at the chroot's /:\n" + r.all());
    }

    @Test
    void homeMissingInsideTheChrootStartsAtRoot(@TempDir Path dir) throws Exception {
        Path root = Files.createDirectory(dir.resolve("jail"));
        Result r = sftp(dir, "pwd\n", SftpJail.command(root, NOBODY, NOBODY, "nobody", "/home/nobody", List.of()));
        assertEquals(0, r.rc, r.all());
        assertTrue(r.out.contains("Remote working directory: /\n"), r.all());
    }

    @Test
    void aChrootThatCannotBeEnteredServesNothing(@TempDir Path dir) throws Exception {
        Result r = sftp(dir, "ls /\n", SftpJail.command(dir.resolve("missing"), NOBODY, NOBODY, "nobody", "/",
                List.of()));
        assertNotEquals(0, r.rc, r.all());
        assertTrue(r.err.contains("internal-sftp: chdir(\"" + dir.resolve("missing") + "\"): No such file or"
                + " directory"), r.all());
    }

    @Test
    void malformedCommandLinesAreRefusedInOneLine() {
        ByteArrayInputStream in = new ByteArrayInputStream(new byte[0]);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SftpJail.JailException e = assertThrows(SftpJail.JailException.class,
                () -> SftpJail.run(List.of("/", "x", "0", "root", "/", "--"), in, out));
        assertEquals("bad uid or gid: [x, 0]", e.getMessage());
        e = assertThrows(SftpJail.JailException.class,
                () -> SftpJail.run(List.of("relative", "-", "0", "root", "/", "--"), in, out));
        assertEquals("chroot path does not begin at root", e.getMessage());
        assertThrows(SftpJail.JailException.class, () -> SftpJail.run(List.of("/", "0", "0", "--"), in, out));
        assertEquals(0, out.size(), "nothing may be served before the jail is entered");
    }

    /** The lines sftp printed for batch command {@code command}. */
    private static List<String> listing(String out, String command) {
        List<String> lines = out.lines().toList();
        int at = lines.indexOf("sftp> " + command);
        List<String> found = new ArrayList<>();
        for (int i = at + 1; at >= 0 && i < lines.size() && !lines.get(i).startsWith("sftp> "); i++) {
            found.add(lines.get(i));
        }
        return found;
    }

    private record Result(int rc, String out, String err) {
        String all() {
            return "rc=" + rc + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private static Result sftp(Path dir, String batch, List<String> server) throws Exception {
        Path b = Files.writeString(dir.resolve("batch"), batch);
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/sftp", "-b", b.toString(), "-D",
                String.join(" ", server)));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(dir.resolve("out").toFile())
                .redirectError(dir.resolve("err").toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("sftp did not end in 120 s: " + Files.readString(dir.resolve("err")));
        }
        return new Result(p.exitValue(), Files.readString(dir.resolve("out")), Files.readString(dir.resolve("err")));
    }

    private static String run(List<String> cmd, Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }
}
