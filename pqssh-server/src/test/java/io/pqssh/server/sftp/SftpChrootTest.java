package io.pqssh.server.sftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SftpFileServer after {@link SftpFileServer#preloadClasses()}, chroot(2) into an EMPTY directory (no jar, no JDK,
 * no /etc, no /dev, no /proc) and a drop to uid/gid 4711: OpenSSH's sftp client runs a batch through it. A class or
 * JDK file the serving path loads lazily fails this test (NoClassDefFoundError on the child's stderr).
 */
class SftpChrootTest {

    @Test
    void servesAnEmptyChrootAfterPreloading(@TempDir Path tmp) throws Exception {
        Path sftp = SftpTools.requireTools();
        SftpTools.requireRoot("chroot(2) and setuid(2)");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path jail = Files.createDirectory(tmp.resolve("jail"));
        Path upload = Files.createDirectory(jail.resolve("upload"));
        Files.setAttribute(upload, "unix:uid", 4711);
        Files.setAttribute(upload, "unix:gid", 4711);
        Path local = Files.createDirectory(tmp.resolve("local"));
        byte[] data = SftpDifferentialTest.bytes(3 * 1024 * 1024 + 5, 9);
        Files.write(local.resolve("up.bin"), data);
        String batch = """
                pwd
                put up.bin
                ls -l
                ls -la /
                mkdir d
                ln -s up.bin link
                rename up.bin moved.bin
                chmod 640 moved.bin
                get moved.bin back.bin
                df
                -get missing
                -mkdir /outside
                ls -ln
                ls -l link
                rm link
                """;
        Path bf = tmp.resolve("batch");
        Files.writeString(bf, batch);

        Path testClasses = Path.of(SftpChrootProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path classes = Path.of(SftpFileServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path script = tmp.resolve("jailed-sftp");
        Files.writeString(script, "#!/bin/sh\nexec '" + Path.of(System.getProperty("java.home"), "bin", "java") + "' "
                + String.join(" ", SftpTools.CHILD_JVM) + " -cp '" + classes + ":" + testClasses
                + "' io.pqssh.server.sftp.SftpChrootProbe '" + jail + "' 4711 4711 -d /upload -e -u 022 \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));

        SftpTools.Result r = SftpTools.sftp(sftp, local, script.toString(), bf);
        String out = r.output();
        System.out.println(out);
        assertFalse(out.contains("Error") || out.contains("Exception") || out.contains("jimage")
                || out.contains("failed"), out);
        assertEquals(0, r.exit(), out);
        assertTrue(out.contains("Remote working directory: /upload\n"), out);
        assertTrue(out.contains("drwxr-xr-x    ? 4711     4711"), "numeric owners without /etc/passwd: " + out);
        assertTrue(out.contains("remote mkdir \"/outside\": Permission denied"), out);
        assertEquals(-1, Files.mismatch(local.resolve("back.bin"), local.resolve("up.bin")));
        assertEquals(-1, Files.mismatch(upload.resolve("moved.bin"), local.resolve("up.bin")));
        assertEquals(4711, Files.getAttribute(upload.resolve("moved.bin"), "unix:uid"));
        assertEquals(0640, (Integer) Files.getAttribute(upload.resolve("moved.bin"), "unix:mode") & 07777);
        assertTrue(Files.isDirectory(upload.resolve("d")));
        try (var s = Files.list(jail)) {
            assertEquals("[upload]", s.map(p -> p.getFileName().toString()).toList().toString(), "nothing else in the jail");
        }
        assertFalse(new String(Files.readAllBytes(bf), StandardCharsets.UTF_8).isEmpty());
    }
}
