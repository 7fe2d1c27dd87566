package io.pqssh.server.sftp;

import static io.pqssh.server.sftp.SftpFileServer.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw SFTP requests, one at a time, to OpenSSH 9.2's sftp-server and to SftpFileServer on the same files: the replies
 * (decoded: status codes and messages, handles, names and {@code ls -l} long names, attributes, extension replies) must
 * be equal, except limits@openssh.com's open-handle count and statvfs's free counts.
 */
class SftpProtocolDifferentialTest {

    interface Script {
        void run(RawSftp c, List<String> t) throws IOException;
    }

    static List<String> transcript(RawSftp c, Script s) throws IOException {
        List<String> t = new ArrayList<>();
        s.run(c, t);
        return t;
    }

    static void req(RawSftp c, List<String> t, String what, int type, Object... fields) throws IOException {
        t.add(what + " -> " + render(c.call(type, fields)));
    }

    /** A reply as text. */
    static String render(byte[] r) {
        Dec d = new Dec(r);
        int type = d.u8();
        StringBuilder b = new StringBuilder();
        switch (type) {
            case VERSION -> {
                b.append("VERSION ").append(d.u32());
                while (d.left() > 0) b.append(' ').append(d.str()).append('=').append(d.str());
            }
            case STATUS -> b.append("STATUS ").append(d.u32()).append(' ').append(d.u32()).append(" \"").append(d.str())
                    .append("\" lang \"").append(d.str()).append('"');
            case HANDLE -> b.append("HANDLE ").append(d.u32()).append(' ').append(RawSftp.hex(d.bytes()));
            case DATA -> {
                b.append("DATA ").append(d.u32());
                byte[] x = d.bytes();
                b.append(" len ").append(x.length).append(" crc ").append(crc(x));
            }
            case NAME -> {
                b.append("NAME ").append(d.u32());
                int n = d.u32();
                b.append(" count ").append(n);
                List<String> entries = new ArrayList<>();
                for (int i = 0; i < n; i++) entries.add("\n    [" + d.str() + "] [" + d.str() + "] " + attrs(d));
                b.append(String.join("", entries));
            }
            case ATTRS -> b.append("ATTRS ").append(d.u32()).append(' ').append(attrs(d));
            case EXTENDED_REPLY -> b.append("EXTENDED_REPLY ").append(d.u32()).append(' ').append(RawSftp.hex(d.rest()));
            default -> b.append("type ").append(type).append(' ').append(RawSftp.hex(r));
        }
        if (d.left() > 0) b.append(" +trailing ").append(RawSftp.hex(d.rest()));
        return b.toString();
    }

    static String attrs(Dec d) {
        int f = d.u32();
        StringBuilder b = new StringBuilder("flags " + Integer.toHexString(f));
        if ((f & ATTR_SIZE) != 0) b.append(" size ").append(d.u64());
        if ((f & ATTR_UIDGID) != 0) b.append(" uid ").append(d.u32()).append(" gid ").append(d.u32());
        if ((f & ATTR_PERMISSIONS) != 0) b.append(" mode ").append(Integer.toOctalString(d.u32()));
        if ((f & ATTR_ACMODTIME) != 0) b.append(" atime ").append(d.u32()).append(" mtime ").append(d.u32());
        return b.toString();
    }

    static long crc(byte[] x) {
        java.util.zip.CRC32 c = new java.util.zip.CRC32();
        c.update(x);
        return c.getValue();
    }

    static final class Dec {
        final byte[] b;
        int p;

        Dec(byte[] b) { this.b = b; }

        int left() { return b.length - p; }

        int u8() { return b[p++] & 0xff; }

        int u32() { int v = RawSftp.u32At(b, p); p += 4; return v; }

        long u64() { long v = RawSftp.u64At(b, p); p += 8; return v; }

        byte[] bytes() { int n = u32(); byte[] r = java.util.Arrays.copyOfRange(b, p, p + n); p += n; return r; }

        String str() { return new String(bytes(), StandardCharsets.UTF_8); }

        byte[] rest() { byte[] r = java.util.Arrays.copyOfRange(b, p, b.length); p = b.length; return r; }
    }

    static void setUpFiles(Path d) throws IOException {
        Files.writeString(d.resolve("file.txt"), "0123456789abcdef\n".repeat(40000));
        Files.setLastModifiedTime(d.resolve("file.txt"), FileTime.from(Instant.parse("2020-01-02T03:04:05Z")));
        Files.writeString(d.resolve("recent"), "recent\n");
        Files.setLastModifiedTime(d.resolve("recent"), FileTime.from(Instant.now().minus(100, ChronoUnit.DAYS)));
        Files.writeString(d.resolve("future"), "future\n");
        Files.setLastModifiedTime(d.resolve("future"), FileTime.from(Instant.now().plus(400, ChronoUnit.DAYS)));
        Files.writeString(d.resolve("setuid"), "#!/bin/sh\n");
        Files.setAttribute(d.resolve("setuid"), "unix:mode", 04755);
        Files.writeString(d.resolve("none"), "x");
        Files.setAttribute(d.resolve("none"), "unix:mode", 0);
        Files.setAttribute(d.resolve("none"), "unix:uid", 4321);
        Files.setAttribute(d.resolve("none"), "unix:gid", 4322);
        Files.setLastModifiedTime(d.resolve("none"), FileTime.fromMillis(0));
        Files.createDirectory(d.resolve("sticky"));
        Files.setAttribute(d.resolve("sticky"), "unix:mode", 01777);
        Files.createDirectory(d.resolve("sgid"));
        Files.setAttribute(d.resolve("sgid"), "unix:mode", 02750);
        Files.createSymbolicLink(d.resolve("link"), Path.of("file.txt"));
        Files.createSymbolicLink(d.resolve("dangling"), Path.of("nowhere/x"));
        Files.createSymbolicLink(d.resolve("dirlink"), Path.of("sgid"));
        Files.createSymbolicLink(d.resolve("loop"), Path.of("loop"));
        Files.createLink(d.resolve("hard"), d.resolve("recent"));
        Files.writeString(d.resolve("with space ü"), "u\n");
        Path many = Files.createDirectory(d.resolve("many"));
        for (int i = 0; i < 250; i++) Files.writeString(many.resolve("f" + i), "" + i);
        Files.setLastModifiedTime(d.resolve("many"), FileTime.from(Instant.parse("2021-06-07T08:09:10Z")));
    }

    static final Script READ_ONLY = (c, t) -> {
        t.add("init -> " + render(c.call(INIT, 3)));
        int id = 100;
        for (String p : new String[] {".", "", "..", "sgid/../many/.", "/tmp/../", "link", "dangling", "dirlink/x",
                "missing/x", "missing", "file.txt/x", "loop", "//", "sticky/"}) {
            req(c, t, "realpath " + p, REALPATH, id++, p);
        }
        for (String p : new String[] {"file.txt", "link", "dangling", "missing", "", "none", "sticky", "sgid", "loop",
                "file.txt/x", "with space ü"}) {
            req(c, t, "stat " + p, STAT, id++, p);
            req(c, t, "lstat " + p, LSTAT, id++, p);
            req(c, t, "readlink " + p, READLINK, id++, p);
        }
        for (String dir : new String[] {".", "many", "file.txt", "missing"}) {
            byte[] r = c.call(OPENDIR, id++, dir);
            t.add("opendir " + dir + " -> " + render(r));
            if (r[0] != HANDLE) continue;
            byte[] h = RawSftp.handle(r);
            // entries come in readdir(3)'s order in both, but sftp-server has "." and ".." where readdir puts them and
            // SftpFileServer first (the JDK's directory stream leaves them out): compare the sorted entries
            List<String> entries = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                byte[] x = c.call(READDIR, id++, h);
                String text = render(x);
                if (x[0] == STATUS) {
                    t.add("readdir " + dir + " end -> " + text);
                    break;
                }
                for (String e : text.split("\n")) if (e.startsWith("    [")) entries.add(e);
            }
            entries.sort(null);
            t.add("readdir " + dir + " entries:\n" + String.join("\n", entries));
            req(c, t, "read dir handle", READ, id++, h, 0L, 10);
            req(c, t, "fstat dir handle", FSTAT, id++, h);
            req(c, t, "closedir", CLOSE, id++, h);
        }
        byte[] h = RawSftp.handle(c.call(OPEN, id++, "file.txt", FXF_READ, 0));
        req(c, t, "read 0 10", READ, id++, h, 0L, 10);
        req(c, t, "read 5 400000 (capped)", READ, id++, h, 5L, 400000);
        req(c, t, "read at end", READ, id++, h, 680000L, 10);
        req(c, t, "read past end", READ, id++, h, 1L << 40, 10);
        req(c, t, "fstat", FSTAT, id++, h);
        req(c, t, "readdir file handle", READDIR, id++, h);
        req(c, t, "write read-only handle", WRITE, id++, h, 0L, new byte[] {1});
        req(c, t, "fsync", EXTENDED, id++, "fsync@openssh.com", h);
        req(c, t, "close", CLOSE, id++, h);
        req(c, t, "close again", CLOSE, id++, h);
        req(c, t, "read unknown handle", READ, id++, new byte[] {0, 0, 0, 9}, 0L, 10);
        req(c, t, "close odd handle", CLOSE, id++, new byte[] {1, 2});
        req(c, t, "open missing", OPEN, id++, "missing", FXF_READ, 0);
        req(c, t, "open dir", OPEN, id++, "sgid", FXF_READ, 0);
        req(c, t, "open no access", OPEN, id++, "sticky/../none/x", FXF_READ, 0);
        for (String p : new String[] {"~", "~/many", "", "many/../link", "~root/x", "~nosuchuser4711"}) {
            req(c, t, "expand-path " + p, EXTENDED, id++, "expand-path@openssh.com", p);
        }
        req(c, t, "home-directory root", EXTENDED, id++, "home-directory", "root");
        req(c, t, "home-directory unknown", EXTENDED, id++, "home-directory", "nosuchuser4711");
        req(c, t, "users-groups-by-id", EXTENDED, id++, "users-groups-by-id@openssh.com",
                new byte[] {0, 0, 0, 0, 0, 0, 0x10, (byte) 0xe1}, new byte[] {0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0x10, (byte) 0xe2});
        req(c, t, "unknown extension", EXTENDED, id++, "nope@example.com", "x");
        byte[] lim = c.call(EXTENDED, id++, "limits@openssh.com");
        t.add("limits (open handles masked) -> " + render(java.util.Arrays.copyOf(lim, lim.length - 8)));
        byte[] sv = c.call(EXTENDED, id++, "statvfs@openssh.com", ".");
        if ((sv[0] & 0xff) == EXTENDED_REPLY) {
            // f_bsize f_frsize f_blocks f_bfree f_bavail f_files f_ffree f_favail f_fsid f_flag f_namemax: mask free counts
            for (int i : new int[] {3, 4, 6, 7}) java.util.Arrays.fill(sv, 5 + 8 * i, 5 + 8 * i + 8, (byte) 0);
        }
        t.add("statvfs (free counts masked) -> " + render(sv));
        req(c, t, "statvfs missing", EXTENDED, id++, "statvfs@openssh.com", "missing");
    };

    /** Equal texts, else a failure listing the differing lines (sftp-server's, then ours). */
    static void assertSame(String expected, String actual) {
        if (expected.equals(actual)) return;
        String[] e = expected.split("\n"), a = actual.split("\n");
        StringBuilder b = new StringBuilder("replies differ from sftp-server's:\n");
        for (int i = 0; i < Math.max(e.length, a.length); i++) {
            String x = i < e.length ? e[i] : "<none>", y = i < a.length ? a[i] : "<none>";
            if (!x.equals(y)) b.append("sftp-server: ").append(x).append("\nours:        ").append(y).append('\n');
        }
        org.junit.jupiter.api.Assertions.fail(b.toString());
    }

    @Test
    void readingRequestsGiveTheRepliesOfOpenSshSftpServer(@TempDir Path tmp) throws Exception {
        SftpTools.requireTools();
        SftpTools.requireRoot("the fixtures chown to numeric ids");
        Path d = Files.createDirectory(tmp.resolve("d"));
        setUpFiles(d);
        List<String> expected, actual;
        try (RawSftp real = RawSftp.openssh(d)) {
            expected = transcript(real, READ_ONLY);
        }
        try (RawSftp ours = RawSftp.engine(SftpServerOptions.defaults("root", "/root").withStart(d.toString()), null)) {
            actual = transcript(ours, READ_ONLY);
            assertEquals(0, ours.finish());
        }
        // the first server's READs update file.txt's atime (relatime) before the second runs
        assertSame(String.join("\n", expected).replaceAll("atime \\d+", "atime A"),
                String.join("\n", actual).replaceAll("atime \\d+", "atime A"));
        String all = String.join("\n", expected);
        assertTrue(all.contains("-rwsr-xr-x    1 root     root           10"), all);
        assertTrue(all.contains("----------    1 4321     4322            1 Jan  1  1970 none"), all);
    }

    static final Script WRITING = (c, t) -> {
        t.add("init -> " + render(c.call(INIT, 3)));
        int id = 1;
        byte[] h = RawSftp.handle(c.call(OPEN, id++, "new", FXF_WRITE | FXF_CREAT | FXF_TRUNC, ATTR_PERMISSIONS, 0640));
        req(c, t, "write", WRITE, id++, h, 0L, "hello world".getBytes());
        req(c, t, "write at 100", WRITE, id++, h, 100L, "x".getBytes());
        req(c, t, "read write-only", READ, id++, h, 0L, 5);
        req(c, t, "fsetstat size 5", FSETSTAT, id++, h, ATTR_SIZE, 5L);
        req(c, t, "fsetstat perm", FSETSTAT, id++, h, ATTR_PERMISSIONS, 0604);
        req(c, t, "fsetstat times", FSETSTAT, id++, h, ATTR_ACMODTIME, 1000000, 2000000);
        req(c, t, "fstat", FSTAT, id++, h);
        req(c, t, "fsync", EXTENDED, id++, "fsync@openssh.com", h);
        req(c, t, "close", CLOSE, id++, h);
        req(c, t, "open excl existing", OPEN, id++, "new", FXF_WRITE | FXF_CREAT | FXF_EXCL, 0);
        byte[] a = RawSftp.handle(c.call(OPEN, id++, "new", FXF_WRITE | FXF_APPEND, 0));
        req(c, t, "append", WRITE, id++, a, 0L, "++".getBytes());
        req(c, t, "close", CLOSE, id++, a);
        req(c, t, "stat new", STAT, id++, "new");
        req(c, t, "setstat size 3000", SETSTAT, id++, "new", ATTR_SIZE, 3000L);
        req(c, t, "setstat perm+times", SETSTAT, id++, "new", ATTR_PERMISSIONS | ATTR_ACMODTIME, 0755, 5, 6);
        req(c, t, "setstat owner", SETSTAT, id++, "new", ATTR_UIDGID, 4321, 4322);
        req(c, t, "stat new", STAT, id++, "new");
        req(c, t, "setstat missing", SETSTAT, id++, "missing", ATTR_PERMISSIONS, 0755);
        req(c, t, "mkdir 0700", MKDIR, id++, "dir", ATTR_PERMISSIONS, 0700);
        req(c, t, "mkdir default", MKDIR, id++, "dir2", 0);
        req(c, t, "mkdir existing", MKDIR, id++, "dir", 0);
        req(c, t, "mkdir in missing", MKDIR, id++, "missing/dir", 0);
        req(c, t, "stat dir", STAT, id++, "dir");
        req(c, t, "stat dir2", STAT, id++, "dir2");
        req(c, t, "write into dir", OPEN, id++, "dir/f", FXF_WRITE | FXF_CREAT, 0);
        req(c, t, "rmdir non-empty", RMDIR, id++, "dir");
        req(c, t, "rmdir file", RMDIR, id++, "new");
        req(c, t, "remove dir", REMOVE, id++, "dir2");
        req(c, t, "rmdir dir2", RMDIR, id++, "dir2");
        req(c, t, "remove missing", REMOVE, id++, "missing");
        req(c, t, "symlink (OpenSSH order: target, link)", SYMLINK, id++, "new", "sym");
        req(c, t, "symlink existing", SYMLINK, id++, "new", "sym");
        req(c, t, "symlink dangling", SYMLINK, id++, "../nowhere/x", "dir/sym2");
        req(c, t, "readlink", READLINK, id++, "dir/sym2");
        req(c, t, "lsetstat times on link", EXTENDED, id++, "lsetstat@openssh.com", "sym", ATTR_ACMODTIME, 7, 8);
        req(c, t, "lstat sym", LSTAT, id++, "sym");
        req(c, t, "hardlink", EXTENDED, id++, "hardlink@openssh.com", "new", "hard");
        req(c, t, "hardlink existing", EXTENDED, id++, "hardlink@openssh.com", "new", "hard");
        req(c, t, "rename onto existing", RENAME, id++, "new", "hard");
        req(c, t, "rename", RENAME, id++, "hard", "renamed");
        req(c, t, "rename dir", RENAME, id++, "dir", "dir3");
        req(c, t, "rename missing", RENAME, id++, "missing", "x");
        req(c, t, "posix-rename onto existing", EXTENDED, id++, "posix-rename@openssh.com", "renamed", "new");
        byte[] src = RawSftp.handle(c.call(OPEN, id++, "new", FXF_READ, 0));
        byte[] dst = RawSftp.handle(c.call(OPEN, id++, "copy", FXF_WRITE | FXF_CREAT, 0));
        req(c, t, "copy-data", EXTENDED, id++, "copy-data", src, 0L, 0L, dst, 10L);
        req(c, t, "copy-data to read handle", EXTENDED, id++, "copy-data", dst, 0L, 0L, src, 0L);
        req(c, t, "close", CLOSE, id++, src);
        req(c, t, "close", CLOSE, id++, dst);
        req(c, t, "stat copy", STAT, id++, "copy");
        req(c, t, "remove", REMOVE, id++, "sym");
        req(c, t, "lstat removed", LSTAT, id++, "sym");
    };

    @Test
    void writingRequestsGiveTheRepliesAndFilesOfOpenSshSftpServer(@TempDir Path tmp) throws Exception {
        SftpTools.requireTools();
        SftpTools.requireRoot("SETSTAT of owners");
        // same-length names: the replies carrying paths compare byte for byte
        Path a = Files.createDirectory(tmp.resolve("a")), b = Files.createDirectory(tmp.resolve("b"));
        List<String> expected, actual;
        try (RawSftp real = RawSftp.openssh(a)) {
            expected = transcript(real, WRITING);
        }
        try (RawSftp ours = RawSftp.engine(SftpServerOptions.defaults("root", "/root").withStart(b.toString()), null)) {
            actual = transcript(ours, WRITING);
            assertEquals(0, ours.finish());
        }
        // times the servers set themselves (creation) differ by the seconds between the runs
        String e = String.join("\n", expected).replace(a.toString(), "DIR").replaceAll("atime \\d{6,} mtime \\d{6,}", "atime T mtime T");
        String x = String.join("\n", actual).replace(b.toString(), "DIR").replaceAll("atime \\d{6,} mtime \\d{6,}", "atime T mtime T");
        assertSame(e, x);
        assertEquals(SftpDifferentialTest.tree(a).toString(), SftpDifferentialTest.tree(b).toString());
        assertTrue(e.matches("(?s).*rename onto existing -> STATUS \\d+ 4 \"Failure\".*"), e);
    }
}
