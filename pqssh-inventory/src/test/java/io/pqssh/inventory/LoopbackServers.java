package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.config.keys.KeyUtils;

import io.pqssh.server.PqsshServer;

/** Real SSH servers on loopback for the scan tests: pqssh's own and Debian's sshd with a private config. */
public final class LoopbackServers {
    public static final Path SSHD = Path.of("/usr/sbin/sshd");
    public static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");

    private LoopbackServers() {
    }

    public static PqsshServer pqsshServer(KeyPair... hostKeys) throws IOException {
        return PqsshServer.builder().systemShell().sftp(true).host("127.0.0.1").port(0)
                .hostKeys(io.pqssh.mina.keys.PqKeyPairProvider.of(List.of(hostKeys)))
                .password((u, p, s) -> false).start();
    }

    public static KeyPair ed25519() throws Exception {
        return KeyUtils.generateKeyPair("ssh-ed25519", 256);
    }

    public static void requireOpenSsh() {
        assertTrue(Files.isExecutable(SSHD) && Files.isExecutable(SSH_KEYGEN), "MISSING " + SSHD + " or "
                + SSH_KEYGEN + ": the scan tests need Debian's openssh-server and openssh-client"
                + " (apt-get install -y openssh-server openssh-client)");
    }

    public static Path sshKeygen(Path file, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(SSH_KEYGEN.toString(), "-q", "-N", "", "-C",
                "test", "-f", file.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("ssh-keygen hung");
        }
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.exitValue() == 0, "ssh-keygen " + cmd + " failed: " + out);
        return file;
    }

    /** A Debian sshd on 127.0.0.1 with its own config and host key; stop it with {@link Sshd#close()}. */
    public static final class Sshd implements AutoCloseable {
        public final Process process;
        public final int port;
        public final Path log;

        private Sshd(Process process, int port, Path log) {
            this.process = process;
            this.port = port;
            this.log = log;
        }

        public static Sshd start(Path dir, Path hostKey, String extraConfig) throws Exception {
            requireOpenSsh();
            Path privsep = Path.of("/run/sshd");
            if (!Files.isDirectory(privsep)) {
                Files.createDirectories(privsep, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwxr-xr-x")));
            }
            for (int attempt = 0; attempt < 3; attempt++) {
                int port = freePort();
                Path config = dir.resolve("sshd_config-" + port);
                Files.writeString(config, String.join("\n", "ListenAddress 127.0.0.1", "HostKey " + hostKey,
                        "UsePAM no", "PidFile none", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
                        "AuthorizedKeysFile none", extraConfig, ""));
                Path log = dir.resolve("sshd-" + port + ".log");
                Process p = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", config.toString(), "-p",
                        String.valueOf(port)).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (p.isAlive() && System.nanoTime() < deadline
                        && !read(log).contains("Server listening on 127.0.0.1 port " + port)) {
                    Thread.sleep(30);
                }
                if (p.isAlive() && read(log).contains("Server listening")) {
                    return new Sshd(p, port, log);
                }
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                if (!read(log).contains("Address already in use")) {
                    fail("sshd did not start:\n" + read(log));
                }
            }
            throw new AssertionError("sshd: no free port after 3 attempts");
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A port that nothing listens on (checked). */
    public static int closedPort() throws IOException {
        for (int i = 0; i < 20; i++) {
            int p = freePort();
            try (Socket s = new Socket("127.0.0.1", p)) {
                continue;
            } catch (IOException e) {
                return p;
            }
        }
        throw new IOException("no closed port found");
    }

    static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
