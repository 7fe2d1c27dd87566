package io.pqssh.inventory.store;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

/**
 * A real PostgreSQL server (Debian's postgresql package) on a loopback port in a temporary directory: initdb and
 * postgres run as the {@code postgres} user (setpriv, which execs, so the process started is the postmaster itself);
 * {@link #close} stops it by its PID (SIGINT, fast shutdown) and removes the directory.
 */
public final class PostgresServer implements AutoCloseable {
    private final Path dir;
    private final Process postmaster;
    private final int port;

    private PostgresServer(Path dir, Process postmaster, int port) {
        this.dir = dir;
        this.postmaster = postmaster;
        this.port = port;
    }

    static Path bin() {
        try (Stream<Path> s = Files.list(Path.of("/usr/lib/postgresql"))) {
            return s.map(p -> p.resolve("bin")).filter(p -> Files.isExecutable(p.resolve("postgres")))
                    .max(Comparator.naturalOrder()).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** Starts a server; as root on Linux a missing package is a failure, elsewhere the test is aborted (said). */
    public static PostgresServer start() throws Exception {
        Path bin = bin();
        boolean root = "root".equals(System.getProperty("user.name"))
                && System.getProperty("os.name").startsWith("Linux");
        if (bin == null || !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            String msg = "PostgreSQL tests need Debian's postgresql package (/usr/lib/postgresql/*/bin/postgres) and"
                    + " setpriv: apt-get install postgresql";
            if (root) {
                fail(msg);
            }
            Assumptions.abort(msg + " (and root, to run it as the postgres user)");
        }
        if (!root) {
            Assumptions.abort("PostgreSQL tests run the server as the postgres user: they need root");
        }
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "pqssh-pg");
        UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
        Files.setOwner(dir, users.lookupPrincipalByName("postgres"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Path data = dir.resolve("data");
        Process init = new ProcessBuilder(List.of("/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres",
                "--init-groups", bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "pqssh", "-A",
                "trust", "-E", "UTF8", "--no-sync", "--locale=C.UTF-8"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("initdb.log").toFile()).start();
        if (!init.waitFor(120, TimeUnit.SECONDS) || init.exitValue() != 0) {
            init.destroyForcibly();
            throw new IllegalStateException("initdb failed: " + Files.readString(dir.resolve("initdb.log")));
        }
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process pm = new ProcessBuilder(List.of("/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres",
                "--init-groups", bin.resolve("postgres").toString(), "-D", data.toString(), "-p",
                Integer.toString(port), "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("postgres.log").toFile()).start();
        PostgresServer s = new PostgresServer(dir, pm, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (var c = DriverManager.getConnection(s.url())) {
                return s;
            } catch (SQLException e) {
                if (!pm.isAlive() || System.nanoTime() > deadline) {
                    String log = Files.readString(dir.resolve("postgres.log"));
                    s.close();
                    throw new IllegalStateException("postgres did not start: " + log, e);
                }
                Thread.sleep(100);
            }
        }
    }

    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=pqssh";
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (postmaster.isAlive()) {
            new ProcessBuilder("kill", "-INT", Long.toString(postmaster.pid())).start().waitFor();
            if (!postmaster.waitFor(30, TimeUnit.SECONDS)) {
                postmaster.destroyForcibly();
                postmaster.waitFor(10, TimeUnit.SECONDS);
            }
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
