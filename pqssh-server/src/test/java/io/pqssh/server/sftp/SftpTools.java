package io.pqssh.server.sftp;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** OpenSSH's sftp and sftp-server for the differential tests, and a wrapper running SftpFileServerMain. */
final class SftpTools {
    static final Path SFTP_SERVER = Path.of("/usr/lib/openssh/sftp-server");

    private SftpTools() { }

    /** Fails (never skips) when OpenSSH's client or sftp-server is missing. */
    static Path requireTools() {
        Path sftp = null;
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "sftp");
            if (Files.isExecutable(p)) { sftp = p; break; }
        }
        if (sftp == null || !Files.isExecutable(SFTP_SERVER)) {
            fail("SFTP differential tests need OpenSSH's sftp client and /usr/lib/openssh/sftp-server: install "
                    + "Debian's openssh-client and openssh-sftp-server (apt-get install openssh-client "
                    + "openssh-sftp-server); missing: " + (sftp == null ? "sftp " : "")
                    + (Files.isExecutable(SFTP_SERVER) ? "" : SFTP_SERVER));
        }
        return sftp;
    }

    static void requireRoot(String why) {
        if (!"root".equals(System.getProperty("user.name"))) {
            fail("this test must run as root (" + why + "); pqssh's CI and lab run tests as root");
        }
    }

    /** The JVM options of the child: quick start-up, as the jailed child will use. */
    static final List<String> CHILD_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
            "--enable-native-access=ALL-UNNAMED");

    /** A shell script in {@code dir} running SftpFileServerMain with the given flags (sftp -D splits on blanks). */
    static Path ourServer(Path dir, String flags) throws IOException {
        Path classes;
        try {
            classes = Path.of(SftpFileServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path script = dir.resolve("pqssh-sftp-server");
        Files.writeString(script, "#!/bin/sh\nexec '" + java + "' " + String.join(" ", CHILD_JVM) + " -cp '" + classes
                + "' io.pqssh.server.sftp.SftpFileServerMain " + flags + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    record Result(int exit, String output) { }

    /** Runs {@code sftp -D server -b batch} in {@code cwd} (LC_ALL=C.UTF-8), stdout and stderr together. */
    static Result sftp(Path sftp, Path cwd, String server, Path batch) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(sftp.toString(), "-D", server, "-b", batch.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("LC_ALL", "C.UTF-8");
        env.put("TZ", "UTC");
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("sftp did not end within 120 s");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
