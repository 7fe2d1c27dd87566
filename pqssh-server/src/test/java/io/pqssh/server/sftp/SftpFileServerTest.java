package io.pqssh.server.sftp;

import static io.pqssh.server.sftp.SftpFileServer.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SftpFileServer over pipes: malformed input, unknown requests and handles, -R, -d, -u, -p/-P, limits. */
class SftpFileServerTest {

    static RawSftp started(SftpServerOptions o) throws Exception {
        RawSftp c = RawSftp.engine(o, new ArrayList<>());
        byte[] v = c.call(INIT, 3);
        assertEquals(VERSION, v[0]);
        return c;
    }

    static SftpServerOptions in(Path dir) {
        return SftpServerOptions.defaults("u", dir.toString());
    }

    static String text(byte[] reply) {
        return SftpProtocolDifferentialTest.render(reply);
    }

    @Test
    void aMessageLongerThan256KiBEndsTheSessionWithStatus11(@TempDir Path d) throws Exception {
        try (RawSftp c = started(in(d))) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            RawSftp.u32(b, MAX_MESSAGE + 1);
            b.write(OPEN);
            b.writeBytes(new byte[300]);
            c.sendRaw(b.toByteArray());
            assertEquals(11, c.exit.get(20, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(c.atEof(), "no reply to an over-long message");
        }
    }

    @Test
    void aMessageOfExactly256KiBIsServed(@TempDir Path d) throws Exception {
        try (RawSftp c = started(in(d))) {
            byte[] h = RawSftp.handle(c.call(OPEN, 1, "f", FXF_WRITE | FXF_CREAT, 0));
            // type, id, handle string (8), offset (8), data string: 256 KiB in all
            int data = MAX_MESSAGE - 1 - 4 - 8 - 8 - 4;
            byte[] r = c.call(WRITE, 2, h, 0L, new byte[data]);
            assertEquals(OK, RawSftp.status(r));
            assertEquals(data, Files.size(d.resolve("f")));
        }
    }

    @Test
    void aMessageShorterThanItsFieldsEndsTheSessionWithStatus255(@TempDir Path d) throws Exception {
        try (RawSftp c = started(in(d))) {
            c.send(OPEN, 5, "abc"); // no pflags, no attrs
            assertEquals(255, c.exit.get(20, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(c.atEof());
        }
        try (RawSftp c = started(in(d))) {
            c.send(READ, 5, 999999, new byte[] {1, 2}); // a handle string longer than the message
            assertEquals(255, c.exit.get(20, java.util.concurrent.TimeUnit.SECONDS));
        }
        try (RawSftp c = started(in(d))) {
            c.sendRaw(new byte[] {0, 0, 0, 0, 0, 0, 0, 0}); // length 0: no type
            assertEquals(255, c.exit.get(20, java.util.concurrent.TimeUnit.SECONDS));
        }
    }

    @Test
    void aRequestBeforeInitEndsTheSession(@TempDir Path d) throws Exception {
        try (RawSftp c = RawSftp.engine(in(d), null)) {
            c.send(CLOSE, 7, "x");
            assertEquals(255, c.exit.get(20, java.util.concurrent.TimeUnit.SECONDS));
        }
    }

    @Test
    void endOfInputEndsTheSessionWithStatus0EvenInsideAMessage(@TempDir Path d) throws Exception {
        byte[] in = concat(RawSftp.packet(INIT, 3), new byte[] {0, 0, 0, 50, 3, 0});
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, new SftpFileServer(in(d)).serve(new ByteArrayInputStream(in), out));
        assertEquals(VERSION, out.toByteArray()[4]);
    }

    @Test
    void trailingBytesInAMessageAreIgnored(@TempDir Path d) throws Exception {
        try (RawSftp c = started(in(d))) {
            byte[] r = c.call(STAT, 9, ".", "junk");
            assertEquals(ATTRS, r[0]);
            assertEquals(9, RawSftp.u32At(r, 1));
        }
    }

    @Test
    void anUnknownRequestTypeGetsOpUnsupportedWithItsId(@TempDir Path d) throws Exception {
        try (RawSftp c = started(in(d))) {
            byte[] r = c.call(99, 0x12345678, "whatever");
            assertEquals(OP_UNSUPPORTED, RawSftp.status(r));
            assertEquals(0x12345678, RawSftp.u32At(r, 1));
            r = c.call(EXTENDED, 42, "nope@example.com");
            assertEquals(OP_UNSUPPORTED, RawSftp.status(r));
            assertEquals(42, RawSftp.u32At(r, 1));
            assertEquals(0, c.finish(), "the session goes on and ends normally");
        }
    }

    @Test
    void unknownHandlesGetFailureAndCloseGetsNoSuchFile(@TempDir Path d) throws Exception {
        try (RawSftp c = started(in(d))) {
            byte[] bogus = {0, 0, 0, 7};
            assertEquals(FAILURE, RawSftp.status(c.call(READ, 1, bogus, 0L, 10)));
            assertEquals(FAILURE, RawSftp.status(c.call(WRITE, 2, bogus, 0L, new byte[] {1})));
            assertEquals(FAILURE, RawSftp.status(c.call(FSTAT, 3, bogus)));
            assertEquals(FAILURE, RawSftp.status(c.call(READDIR, 4, bogus)));
            assertEquals(FAILURE, RawSftp.status(c.call(READ, 5, new byte[300], 0L, 10)));
            assertEquals(FAILURE, RawSftp.status(c.call(READ, 6, new byte[] {(byte) 0xff, 0, 0, 0}, 0L, 10)));
            assertEquals(NO_SUCH_FILE, RawSftp.status(c.call(CLOSE, 7, bogus)));
        }
    }

    @Test
    void readLengthIsCappedAndEndOfFileIsEof(@TempDir Path d) throws Exception {
        Files.write(d.resolve("big"), new byte[600_000]);
        try (RawSftp c = started(in(d))) {
            byte[] h = RawSftp.handle(c.call(OPEN, 1, "big", FXF_READ, 0));
            byte[] r = c.call(READ, 2, h, 0L, 500_000);
            assertEquals(DATA, r[0]);
            assertEquals(MAX_READ, RawSftp.u32At(r, 5));
            r = c.call(READ, 3, h, 599_990L, 0xffffffff);
            assertEquals(10, RawSftp.u32At(r, 5));
            assertEquals(EOF, RawSftp.status(c.call(READ, 4, h, 600_000L, 10)));
        }
    }

    @Test
    void handlesAreBounded(@TempDir Path d) throws Exception {
        Files.writeString(d.resolve("f"), "x");
        try (RawSftp c = started(in(d))) {
            List<byte[]> hs = new ArrayList<>();
            for (int i = 0; i < MAX_HANDLES; i++) hs.add(RawSftp.handle(c.call(OPEN, i, "f", FXF_READ, 0)));
            assertEquals(FAILURE, RawSftp.status(c.call(OPEN, 5000, "f", FXF_READ, 0)));
            assertEquals(FAILURE, RawSftp.status(c.call(OPENDIR, 5001, ".")));
            assertEquals(OK, RawSftp.status(c.call(CLOSE, 5002, hs.get(17))));
            assertEquals(HANDLE, c.call(OPENDIR, 5003, ".")[0]);
        }
    }

    @Test
    void limitsAreTheServersOwn(@TempDir Path d) throws Exception {
        try (RawSftp c = started(in(d))) {
            byte[] r = c.call(EXTENDED, 3, "limits@openssh.com");
            assertEquals(EXTENDED_REPLY, r[0] & 0xff);
            assertEquals(3, RawSftp.u32At(r, 1));
            assertEquals(256 * 1024, RawSftp.u64At(r, 5), "max-packet-length");
            assertEquals(256 * 1024 - 1024, RawSftp.u64At(r, 13), "max-read-length");
            assertEquals(256 * 1024 - 1024, RawSftp.u64At(r, 21), "max-write-length");
            assertEquals(MAX_HANDLES, RawSftp.u64At(r, 29), "max-open-handles");
            assertEquals(37, r.length);
        }
    }

    @Test
    void readOnlyRefusesEveryWritingRequestAndAdvertisesNoWritingExtension(@TempDir Path d) throws Exception {
        Files.writeString(d.resolve("f"), "data");
        SftpServerOptions o = SftpServerOptions.parse(List.of("-R"), "u", d.toString());
        assertTrue(o.readOnly());
        try (RawSftp c = RawSftp.engine(o, null)) {
            String version = text(c.call(INIT, 3));
            assertFalse(version.contains("posix-rename") || version.contains("hardlink") || version.contains("fsync")
                    || version.contains("lsetstat") || version.contains("copy-data"), version);
            assertTrue(version.contains("statvfs@openssh.com") && version.contains("limits@openssh.com"), version);
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(OPEN, 1, "f", FXF_WRITE, 0)));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(OPEN, 2, "g", FXF_READ | FXF_CREAT, 0)));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(OPEN, 3, "f", FXF_READ | FXF_TRUNC, 0)));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(MKDIR, 4, "dir", 0)));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(REMOVE, 5, "f")));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(RMDIR, 6, ".")));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(RENAME, 7, "f", "g")));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(SYMLINK, 8, "f", "g")));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(SETSTAT, 9, "f", ATTR_PERMISSIONS, 0777)));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(EXTENDED, 10, "posix-rename@openssh.com", "f", "g")));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(EXTENDED, 11, "hardlink@openssh.com", "f", "g")));
            byte[] h = RawSftp.handle(c.call(OPEN, 12, "f", FXF_READ, 0));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(WRITE, 13, h, 0L, new byte[] {1})));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(FSETSTAT, 14, h, ATTR_SIZE, 0L)));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(EXTENDED, 15, "fsync@openssh.com", h)));
            assertEquals(DATA, c.call(READ, 16, h, 0L, 10)[0]);
        }
        assertEquals("data", Files.readString(d.resolve("f")));
        assertEquals(List.of("f"), Files.list(d).map(p -> p.getFileName().toString()).toList());
    }

    @Test
    void deniedAndAllowedRequests(@TempDir Path d) throws Exception {
        SftpServerOptions o = SftpServerOptions.parse(List.of("-P", "open,limits", "-p", "mkdir,open,limits,stat"),
                "u", d.toString());
        try (RawSftp c = RawSftp.engine(o, null)) {
            String version = text(c.call(INIT, 3));
            assertEquals("VERSION 3", version, "no extension is allowed");
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(OPEN, 1, "f", FXF_READ, 0)));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(EXTENDED, 2, "limits@openssh.com")));
            assertEquals(PERMISSION_DENIED, RawSftp.status(c.call(LSTAT, 3, ".")));
            assertEquals(OK, RawSftp.status(c.call(MKDIR, 4, "dir", 0)));
            assertEquals(ATTRS, c.call(STAT, 5, "dir")[0]);
        }
    }

    @Test
    void startDirectoryFromDashDWithPercentExpansion(@TempDir Path d) throws Exception {
        Path up = Files.createDirectories(d.resolve("u/upload"));
        SftpServerOptions o = SftpServerOptions.parse(List.of("-d", "%d/upload"), "u", d.resolve("u").toString());
        assertEquals(up.toString(), o.startDirectory());
        try (RawSftp c = started(o)) {
            String rp = text(c.call(REALPATH, 1, "."));
            assertTrue(rp.contains("[" + up + "]"), rp);
            byte[] h = RawSftp.handle(c.call(OPEN, 2, "new.txt", FXF_WRITE | FXF_CREAT, 0));
            assertEquals(OK, RawSftp.status(c.call(WRITE, 3, h, 0L, "hi".getBytes(StandardCharsets.UTF_8))));
            assertEquals(OK, RawSftp.status(c.call(CLOSE, 4, h)));
            String ex = text(c.call(EXTENDED, 5, "expand-path@openssh.com", "~/x"));
            assertTrue(ex.contains("[" + up + "/x]"), ex);
        }
        assertEquals("hi", Files.readString(up.resolve("new.txt")), "relative paths resolve against -d's directory");
        assertFalse(Files.exists(Path.of(System.getProperty("user.dir"), "new.txt")), "never the process's directory");
        assertEquals("/srv/u/%", SftpServerOptions.parse(List.of("-d/srv/%u/%%"), "u", "/home/u").startDirectory());
        assertEquals("/home/u/in", SftpServerOptions.parse(List.of("-d", "~/in"), "u", "/home/u").startDirectory());
    }

    @Test
    void aMissingStartDirectoryFallsBackToHome(@TempDir Path d) throws Exception {
        SftpServerOptions o = SftpServerOptions.parse(List.of("-d", "/nonexistent/dir"), "u", d.toString());
        try (RawSftp c = started(o)) {
            assertTrue(text(c.call(REALPATH, 1, ".")).contains("[" + d.toRealPath() + "]"));
        }
    }

    @Test
    void umaskAppliesToNewFilesAndDirectories(@TempDir Path d) throws Exception {
        SftpServerOptions o = SftpServerOptions.parse(List.of("-u", "027"), "u", d.toString());
        assertEquals(027, o.umask());
        try (RawSftp c = started(o)) {
            RawSftp.handle(c.call(OPEN, 1, "f", FXF_WRITE | FXF_CREAT, 0));
            RawSftp.handle(c.call(OPEN, 2, "g", FXF_WRITE | FXF_CREAT, ATTR_PERMISSIONS, 0777));
            assertEquals(OK, RawSftp.status(c.call(MKDIR, 3, "dir", 0)));
            assertEquals(0, c.finish());
        }
        assertEquals(0640, mode(d.resolve("f")));
        assertEquals(0750, mode(d.resolve("g")));
        assertEquals(0750, mode(d.resolve("dir")));
        SftpServerOptions o2 = SftpServerOptions.parse(List.of("-u", "0"), "u", d.toString());
        try (RawSftp c = started(o2)) {
            RawSftp.handle(c.call(OPEN, 1, "h", FXF_WRITE | FXF_CREAT, 0));
            assertEquals(0, c.finish());
        }
        assertEquals(0666, mode(d.resolve("h")));
    }

    static int mode(Path p) throws Exception {
        return (Integer) Files.getAttribute(p, "unix:mode") & 07777;
    }

    @Test
    void flagsAsSftpServerParsesThem() {
        SftpServerOptions o = SftpServerOptions.parse(List.of("-Re", "-l", "verbose", "-f", "local5", "-u022"), "u", "/h");
        assertTrue(o.readOnly() && o.logToStderr());
        assertEquals("VERBOSE", o.logLevel());
        assertEquals("LOCAL5", o.facility());
        assertEquals(022, o.umask());
        assertEquals("/h", o.startDirectory());
        assertEquals(SftpServerOptions.USAGE,
                assertThrows(IllegalArgumentException.class, () -> SftpServerOptions.parse(List.of("-x"), "u", "/h")).getMessage());
        assertEquals(SftpServerOptions.USAGE,
                assertThrows(IllegalArgumentException.class, () -> SftpServerOptions.parse(List.of("-d"), "u", "/h")).getMessage());
        assertEquals(SftpServerOptions.USAGE,
                assertThrows(IllegalArgumentException.class, () -> SftpServerOptions.parse(List.of("-h"), "u", "/h")).getMessage());
        assertEquals("Invalid umask \"abc\"",
                assertThrows(IllegalArgumentException.class, () -> SftpServerOptions.parse(List.of("-u", "abc"), "u", "/h")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> SftpServerOptions.parse(List.of("-u", "1000"), "u", "/h"));
        assertThrows(IllegalArgumentException.class, () -> SftpServerOptions.parse(List.of("-l", "loud"), "u", "/h"));
        assertThrows(IllegalArgumentException.class, () -> SftpServerOptions.parse(List.of("-d", "%x"), "u", "/h"));
        assertEquals("requests", SftpServerOptions.parse(List.of("-Q", "requests"), "u", "/h").query());
        assertEquals(String.join("\n", REQUEST_NAMES) + "\n", SftpFileServer.query("requests"));
        // parsing stops at the first word that is not a flag, as getopt does
        assertFalse(SftpServerOptions.parse(List.of("extra", "-R"), "u", "/h").readOnly());
    }

    @Test
    void symlinkTakesOpenSshsArgumentOrderAndStoresTheTargetAsSent(@TempDir Path d) throws Exception {
        try (RawSftp c = started(in(d))) {
            assertEquals(OK, RawSftp.status(c.call(SYMLINK, 1, "../some/target", "lnk")));
        }
        assertEquals(Path.of("../some/target"), Files.readSymbolicLink(d.resolve("lnk")));
    }

    @Test
    void aUsersGroupsReplyLongerThanAMessageIsRefused(@TempDir Path d) throws Exception {
        try (RawSftp c = started(in(d))) {
            byte[] many = new byte[4 * 60000]; // uid 0 (root) 60000 times: a reply of 60000 * 8 bytes
            byte[] r = c.call(EXTENDED, 1, "users-groups-by-id@openssh.com", many, new byte[0]);
            assertEquals(FAILURE, RawSftp.status(r));
            r = c.call(EXTENDED, 2, "users-groups-by-id@openssh.com", new byte[4 * 100], new byte[0]);
            assertEquals(EXTENDED_REPLY, r[0] & 0xff);
        }
    }

    @Test
    void preloadClassesRuns() {
        SftpFileServer.preloadClasses();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void versionAdvertisesOpenSsh92sExtensions(@TempDir Path d) throws Exception {
        try (RawSftp c = RawSftp.engine(in(d), null)) {
            assertEquals("VERSION 3 posix-rename@openssh.com=1 statvfs@openssh.com=2 fstatvfs@openssh.com=2"
                    + " hardlink@openssh.com=1 fsync@openssh.com=1 lsetstat@openssh.com=1 limits@openssh.com=1"
                    + " expand-path@openssh.com=1 copy-data=1 home-directory=1 users-groups-by-id@openssh.com=1",
                    text(c.call(INIT, 3)));
        }
    }
}
