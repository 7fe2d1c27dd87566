package io.pqssh.lab.load;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.pqssh.core.kem.KemProviders;

/**
 * A server under test running as a child process on 127.0.0.1: {@code pqssh} ({@link LabServerMain} in a JVM with
 * this JVM's java and class path, or another main class such as {@code io.pqssh.cli.Main server}) or OpenSSH's
 * {@code sshd} with a private config. {@link #close()} stops it and every descendant.
 */
public abstract class ServerProcess implements AutoCloseable {
    public static final Path DEBIAN_SSHD = Path.of("/usr/sbin/sshd");

    protected final Path dir;
    protected Process process;
    protected Path log;
    protected int port;

    protected ServerProcess(Path dir) {
        this.dir = dir;
    }

    /** "pqssh" or "openssh". */
    public abstract String name();

    /** Whether the server can log a user in with this method; false gives an "n/a" row. */
    public abstract boolean supports(LoadMethod method);

    /** Logins the server itself counted since start, when it can tell. */
    public abstract Optional<Long> authenticatedCount();

    /** The KEX name this server is configured with. */
    public abstract String kex();

    public abstract void start() throws IOException;

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public Path log() {
        return log;
    }

    public String logText() {
        try {
            return log == null ? "" : Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    /** Kills the server process (SIGKILL), as a crash would. */
    public void kill() {
        if (process != null) {
            process.destroyForcibly();
        }
    }

    @Override
    public void close() {
        if (process == null) {
            return;
        }
        List<ProcessHandle> kids = new ArrayList<>(process.descendants().toList());
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        for (ProcessHandle k : kids) {
            if (k.isAlive()) {
                k.destroyForcibly();
            }
        }
    }

    static void waitFor(long millis, java.util.function.BooleanSupplier done, java.util.function.Supplier<String> why)
            throws IOException {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new IOException(why.get());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }

    static boolean portOpen(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * System property with extra, space-separated JVM options for every pqssh server child (profiling with
     * {@code -XX:StartFlightRecording=...}, flag trials); they come after the lab's own.
     */
    public static final String EXTRA_JVM_PROPERTY = "pqssh.lab.server-jvm";

    /** pqssh in a child JVM. */
    public static final class Pqssh extends ServerProcess {
        private final LabKeys keys;
        private final String kex;
        private final String mainClass;
        private final List<String> extraConfig;
        private final List<String> jvmArgs;
        private Path stats;

        /**
         * @param mainClass {@code null} for {@link LabServerMain} (counts logins), or e.g. {@code io.pqssh.cli.Main}
         *                  to run {@code pqssh server -f CONFIG --port-file F} itself (no server-side counts)
         */
        public Pqssh(Path dir, LabKeys keys, String kex, String mainClass, List<String> extraConfig,
                List<String> jvmArgs) {
            super(dir);
            this.keys = keys;
            this.kex = kex;
            this.mainClass = mainClass;
            this.extraConfig = List.copyOf(extraConfig);
            this.jvmArgs = List.copyOf(jvmArgs);
        }

        @Override
        public String name() {
            return "pqssh";
        }

        @Override
        public String kex() {
            return kex;
        }

        @Override
        public boolean supports(LoadMethod method) {
            return true;
        }

        /** The server's config file. */
        List<String> configLines() {
            List<String> lines = new ArrayList<>(List.of("Port 0", "ListenAddress 127.0.0.1",
                    "HostKey " + keys.hostKey.toAbsolutePath(),
                    "AuthorizedKeysFile " + keys.authorizedKeysAll.toAbsolutePath(),
                    "AuthorizedKEMKeysFile none", "KexAlgorithms " + kex, "MaxAuthTries 6",
                    // pqssh server applies OpenSSH's MaxStartups 10:30:100 by default; the load lab's N workers
                    // must not be dropped (sshd gets the same value)
                    "MaxStartups 1024"));
            lines.addAll(extraConfig);
            return lines;
        }

        @Override
        public void start() throws IOException {
            Files.createDirectories(dir);
            String id = Long.toString(System.nanoTime());
            Path cfg = dir.resolve("pqssh_config-" + id);
            Files.writeString(cfg, String.join("\n", configLines()) + "\n");
            Path portFile = dir.resolve("port-" + id);
            stats = dir.resolve("stats-" + id);
            log = dir.resolve("pqssh-server-" + id + ".log");
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(jvmArgs);
            String extra = System.getProperty(EXTRA_JVM_PROPERTY, "").strip();
            if (!extra.isEmpty()) {
                cmd.addAll(List.of(extra.split("\\s+")));
            }
            if (jvmArgs.stream().noneMatch(a -> a.startsWith("-D" + KemProviders.PROPERTY + "="))) {
                // the ML-KEM provider this JVM selected (same JDK, same machine), so that each server child only
                // runs the self-check and not seconds of timing
                String mode = System.getProperty(KemProviders.PROPERTY);
                cmd.add("-D" + KemProviders.PROPERTY + "=" + (mode != null ? mode
                        : KemProviders.selected().encapsulator().name().toLowerCase(java.util.Locale.ROOT)));
            }
            String sigProperty = io.pqssh.core.sig.SigProviders.PROPERTY;
            if (jvmArgs.stream().noneMatch(a -> a.startsWith("-D" + sigProperty + "="))) {
                // the same for the ML-DSA verification provider (publickey logins with ssh-mldsa-* keys)
                String mode = System.getProperty(sigProperty);
                cmd.add("-D" + sigProperty + "=" + (mode != null ? mode
                        : io.pqssh.core.sig.SigProviders.selected().verifier().name()
                                .toLowerCase(java.util.Locale.ROOT)));
            }
            String helperProperty = io.pqssh.server.login.PamSessionHelper.PROPERTY;
            String pamHelper = System.getProperty(helperProperty);
            if (pamHelper != null && jvmArgs.stream().noneMatch(a -> a.startsWith("-D" + helperProperty + "="))) {
                // where ./pqssh found the PAM session helper (UsePAM yes as root): this class path may not show it
                cmd.add("-D" + helperProperty + "=" + pamHelper);
            }
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            if (mainClass == null) {
                cmd.addAll(List.of(LabServerMain.class.getName(), cfg.toString(), portFile.toString(),
                        stats.toString()));
            } else {
                cmd.addAll(List.of(mainClass, "server", "-D", "-f", cfg.toString(), "--port-file", portFile.toString()));
                stats = null;
            }
            process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            Process p = process;
            waitFor(30_000, () -> !p.isAlive() || Files.exists(portFile),
                    () -> "pqssh server did not start within 30 s:\n" + logText());
            if (!p.isAlive()) {
                throw new IOException("pqssh server exited with " + p.exitValue() + ":\n" + logText());
            }
            port = Integer.parseInt(Files.readString(portFile).strip());
        }

        /** The stats file's values (authenticated, sessions, pending_kem, heap_used, gc_seq, heap_after_gc). */
        public Map<String, Long> stats() {
            Map<String, Long> m = new HashMap<>();
            if (stats == null) {
                return m;
            }
            try {
                for (String line : Files.readAllLines(stats)) {
                    String[] kv = line.split(" ");
                    if (kv.length == 2) {
                        m.put(kv[0], Long.parseLong(kv[1]));
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not written yet
            }
            return m;
        }

        /** Asks the server for a full GC and returns the heap used after it, in bytes. */
        public long heapAfterGc(long seq) throws IOException {
            if (stats == null) {
                throw new IOException("heap after GC needs the lab server (no --pqssh-main)");
            }
            Files.writeString(Path.of(stats + ".gc"), Long.toString(seq));
            waitFor(20_000, () -> stats().getOrDefault("gc_seq", -1L) == seq,
                    () -> "server did not answer the GC request");
            return stats().get("heap_after_gc");
        }

        @Override
        public Optional<Long> authenticatedCount() {
            Long v = stats().get("authenticated");
            return Optional.ofNullable(v);
        }
    }

    /** OpenSSH's sshd with a private config on a loopback port. */
    public static final class OpenSsh extends ServerProcess {
        private final Path sshd;
        private final LabKeys keys;
        private final String kex;
        private final List<String> extraConfig;

        private final String loginUser;
        private final boolean skipShellRc;

        public OpenSsh(Path dir, Path sshd, LabKeys keys, String kex, List<String> extraConfig) {
            this(dir, sshd, keys, kex, extraConfig, System.getProperty("user.name"), true);
        }

        /**
         * @param loginUser   the only account sshd lets in ({@code AllowUsers})
         * @param skipShellRc {@code SetEnv SHLVL=1}: the user's bash skips {@code ~/.bashrc} (see {@link #start})
         */
        public OpenSsh(Path dir, Path sshd, LabKeys keys, String kex, List<String> extraConfig, String loginUser,
                boolean skipShellRc) {
            super(dir);
            this.sshd = sshd;
            this.keys = keys;
            this.kex = kex;
            this.extraConfig = List.copyOf(extraConfig);
            this.loginUser = loginUser;
            this.skipShellRc = skipShellRc;
        }

        @Override
        public String name() {
            return "openssh";
        }

        @Override
        public String kex() {
            return kex;
        }

        @Override
        public boolean supports(LoadMethod method) {
            // OpenSSH has no publickey-kem; sshd before 10 has no ML-DSA user keys (and Debian's 9.2 none at all)
            return method == LoadMethod.ED25519;
        }

        @Override
        public void start() throws IOException {
            if (!Files.isExecutable(sshd)) {
                throw new IOException(sshd + " not found: install openssh-server (or give --openssh-bin)");
            }
            ensureSshdPrivsepDir();
            Files.createDirectories(dir);
            IOException last = null;
            for (int attempt = 0; attempt < 3; attempt++) {
                port = freePort();
                String id = Long.toString(System.nanoTime());
                Path cfg = dir.resolve("sshd_config-" + id);
                List<String> lines = configLines(port);
                Files.writeString(cfg, String.join("\n", lines) + "\n");
                log = dir.resolve("sshd-" + id + ".log");
                process = new ProcessBuilder(sshd.toString(), "-D", "-e", "-f", cfg.toString())
                        .redirectErrorStream(true).redirectOutput(log.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
                Process p = process;
                int prt = port;
                try {
                    waitFor(10_000, () -> !p.isAlive() || logText().contains("Server listening on 127.0.0.1 port " + prt),
                            () -> "sshd did not start listening:\n" + logText());
                    if (p.isAlive() && portOpen(prt)) {
                        return;
                    }
                    last = new IOException("sshd exited (" + (p.isAlive() ? "port closed" : p.exitValue()) + "):\n"
                            + logText());
                } catch (IOException e) {
                    last = e;
                }
                close();
            }
            throw last;
        }

        /** The config file for a server on {@code port}. */
        List<String> configLines(int port) {
            List<String> lines = new ArrayList<>(List.of("ListenAddress 127.0.0.1", "Port " + port,
                    "HostKey " + keys.hostKey.toAbsolutePath(),
                    "AuthorizedKeysFile " + keys.authorizedKeysOpenSsh.toAbsolutePath(), "StrictModes no",
                    "PidFile none", "PermitRootLogin yes", "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no", "KexAlgorithms " + kex, "MaxStartups 1024",
                    "LogLevel INFO", "UseDNS no", "PrintMotd no", "AllowUsers " + loginUser));
            if (extraConfig.stream().noneMatch(l -> l.regionMatches(true, 0, "UsePAM ", 0, 7))) {
                lines.add("UsePAM no");
            }
            if (skipShellRc) {
                // Debian's bash reads ~/.bashrc for a command sshd starts (it sees SSH_CLIENT and SHLVL < 2):
                // the measured login would include the account's own start-up files (root's pyenv init took
                // 1-4 s per login on the CI machine, and no login fit a 1.5 s window). SHLVL=1 makes the user's
                // bash skip them, as the lab's pqssh server, which runs /bin/sh -c, never reads them. A pqssh
                // server that runs the user's shell (pqssh server) must then get the same line (LoadLab does)
                lines.add("SetEnv SHLVL=1");
            }
            lines.addAll(extraConfig);
            return lines;
        }

        /** "Accepted publickey" lines in sshd's log (sshd -e logs each accepted login at INFO). */
        @Override
        public Optional<Long> authenticatedCount() {
            String t = logText();
            long n = 0;
            int i = 0;
            while ((i = t.indexOf("Accepted publickey for ", i)) >= 0) {
                n++;
                i++;
            }
            return Optional.of(n);
        }

        /** The sntrup761 hybrid under the name this sshd knows (9.2: only the @openssh.com one). */
        public static String sntrupName(Path sshd) {
            try {
                Path ssh = sshd.resolveSibling("../bin/ssh").normalize();
                if (!Files.isExecutable(ssh)) {
                    ssh = Path.of("/usr/bin/ssh");
                }
                Process p = new ProcessBuilder(ssh.toString(), "-Q", "kex").redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes());
                p.waitFor(5, TimeUnit.SECONDS);
                if (out.lines().anyMatch("sntrup761x25519-sha512"::equals)) {
                    return "sntrup761x25519-sha512";
                }
            } catch (IOException | InterruptedException e) {
                // fall through
            }
            return "sntrup761x25519-sha512@openssh.com";
        }
    }

    /** sshd 9.2 refuses to start without its privilege-separation directory; a fresh machine may lack it. */
    public static void ensureSshdPrivsepDir() throws IOException {
        Path privsep = Path.of("/run/sshd");
        if (!Files.isDirectory(privsep)) {
            Files.createDirectories(privsep,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        }
    }
}
