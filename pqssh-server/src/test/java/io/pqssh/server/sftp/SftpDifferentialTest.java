package io.pqssh.server.sftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same {@code sftp -b} batch through OpenSSH's sftp client against OpenSSH 9.2's sftp-server and against
 * SftpFileServerMain, each in its own directory: the transcripts (directory replaced, times of day and df's numbers
 * masked) and the resulting trees (names, types, modes, owners, sizes, contents, link targets) must be equal.
 */
class SftpDifferentialTest {

    static final String BATCH = """
            version
            pwd
            lpwd
            cd r
            pwd
            lcd l
            lpwd
            ls
            ls -l
            ls -la
            ls -ln
            put up.bin
            put up.bin up2.bin
            put "with space.txt"
            put ünïcödé.txt
            get existing.txt got.txt
            get "with space.txt" "got space.txt"
            mkdir newdir
            mkdir newdir/sub
            rmdir newdir/sub
            -mkdir newdir
            rename up2.bin renamed.bin
            put up.bin victim.bin
            rename victim.bin renamed.bin
            -rename missing.txt other.txt
            ln -s existing.txt sym
            ln existing.txt hard
            ls -l sym
            chmod 640 existing.txt
            chmod 2750 newdir
            chgrp 1234 existing.txt
            chown 4321 existing.txt
            ls -ln existing.txt
            ls -l
            df
            df -i
            -get missing.txt
            -rm missing.txt
            -ls missing
            -cd missing
            -rmdir existing.txt
            -rm newdir
            -chmod 600 missing.txt
            -ln -s existing.txt sym
            put -r tree
            get -r tree tree-back
            reget big.bin
            reput part.bin
            rm hard
            ls -la
            ls *.txt
            ls -l *.bin
            ls -l tree/sub
            put -f up.bin synced.bin
            put -p up.bin preserved.bin
            get -p existing.txt preserved.txt
            copy up.bin copied.bin
            cp up.bin copied2.bin
            ls -l preserved.bin copied.bin
            -cd ~
            pwd
            cd newdir
            pwd
            cd ..
            rm sym
            ls
            -ls -l ~
            cd /
            pwd
            """;

    @Test
    void batchAgainstOpenSshSftpServerGivesTheSameTranscriptAndTree(@TempDir Path tmp) throws Exception {
        Path sftp = SftpTools.requireTools();
        SftpTools.requireRoot("the batch chowns and chgrps to numeric ids as sftp-server's users do when root");
        Path batch = tmp.resolve("batch");
        Files.writeString(batch, BATCH, StandardCharsets.UTF_8);

        Path real = tmp.resolve("real"), ours = tmp.resolve("ours");
        setUp(real);
        setUp(ours);
        SftpTools.Result a = SftpTools.sftp(sftp, real, SftpTools.SFTP_SERVER.toString(), batch);
        SftpTools.Result b = SftpTools.sftp(sftp, ours, SftpTools.ourServer(tmp, "").toString(), batch);

        String ta = normalise(a.output(), real), tb = normalise(b.output(), ours);
        System.out.println("sftp-server's transcript (normalised):\n" + ta);
        assertEquals(ta, tb, "sftp transcript against sftp-server (expected) and SftpFileServerMain (actual)");
        assertEquals(a.exit(), b.exit(), "sftp's exit status");
        assertEquals(0, a.exit(), "the batch ran through against sftp-server:\n" + ta);
        // the batch did what it says: guards against a transcript equal because both failed early
        assertTrue(ta.contains("Remote working directory: /\n"), ta);
        assertTrue(ta.contains("remote open(\"BASE/r/missing.txt\"): No such file") || ta.contains("missing.txt"), ta);
        assertEquals(tree(real), tree(ours), "trees after the batch (sftp-server's, then ours)");
        assertTrue(Files.exists(ours.resolve("l/tree-back/sub/deeper/c.bin")));
        assertEquals(-1, Files.mismatch(ours.resolve("r/big.bin"), ours.resolve("l/big.bin")), "reget completed");
        assertEquals(-1, Files.mismatch(ours.resolve("r/part.bin"), ours.resolve("l/part.bin")), "reput completed");
    }

    /** Both sides' identical start: r is the remote side (the server's start directory is the base), l the local. */
    static void setUp(Path base) throws IOException {
        Path r = Files.createDirectories(base.resolve("r")), l = Files.createDirectories(base.resolve("l"));
        FileTime old = FileTime.from(Instant.parse("2020-01-02T03:04:05Z"));
        Files.writeString(r.resolve("existing.txt"), "existing\n");
        Files.setLastModifiedTime(r.resolve("existing.txt"), old);
        Files.writeString(r.resolve("old.txt"), "old\n");
        Files.setLastModifiedTime(r.resolve("old.txt"), old);
        byte[] big = bytes(1 << 20, 1);
        Files.write(r.resolve("big.bin"), big);
        Files.write(l.resolve("big.bin"), java.util.Arrays.copyOf(big, 300_000));
        byte[] part = bytes(1 << 20, 2);
        Files.write(l.resolve("part.bin"), part);
        Files.write(r.resolve("part.bin"), java.util.Arrays.copyOf(part, 200_000));
        Files.write(l.resolve("up.bin"), bytes(300 * 1024 + 17, 3));
        Files.writeString(l.resolve("with space.txt"), "space\n");
        Files.writeString(l.resolve("ünïcödé.txt"), "utf-8\n");
        Path t = Files.createDirectories(l.resolve("tree/sub/deeper"));
        Files.writeString(l.resolve("tree/a.txt"), "a\n");
        Files.writeString(l.resolve("tree/sub/b.txt"), "b\n");
        Files.write(t.resolve("c.bin"), bytes(100 * 1024, 4));
        Files.setPosixFilePermissions(l.resolve("tree/sub"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.setPosixFilePermissions(l.resolve("tree/a.txt"), PosixFilePermissions.fromString("rw-------"));
    }

    static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** The base directory replaced, times of day and df's figures masked. */
    static String normalise(String s, Path base) {
        s = s.replace(base.toString(), "BASE");
        s = s.replaceAll("[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}", "MMM DD HH:MM");
        String[] lines = s.split("\n", -1);
        for (int i = 1; i < lines.length; i++) {
            if (lines[i - 1].matches("\\s+(Size|Inodes)\\s.*")) lines[i] = lines[i].replaceAll("[0-9]+(\\.[0-9]+)?[A-Za-z]*%?", "N");
        }
        return String.join("\n", lines);
    }

    /** Every entry under base: path, type, mode, owner, size, contents digest or link target. */
    static List<String> tree(Path base) throws IOException {
        List<String> r = new ArrayList<>();
        try (Stream<Path> s = Files.walk(base)) {
            for (Path p : s.sorted().toList()) {
                Map<String, Object> a = Files.readAttributes(p, "unix:mode,uid,gid,size", LinkOption.NOFOLLOW_LINKS);
                int mode = (Integer) a.get("mode");
                String what;
                if (Files.isSymbolicLink(p)) what = "-> " + Files.readSymbolicLink(p);
                else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) what = a.get("size") + " " + sha(p);
                else what = "dir";
                r.add(base.relativize(p) + " " + Integer.toOctalString(mode) + " " + a.get("uid") + ":" + a.get("gid")
                        + " " + what);
            }
        }
        return r;
    }

    static String sha(Path p) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)))
                    .substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
