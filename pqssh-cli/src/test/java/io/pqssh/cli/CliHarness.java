package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Helpers for the CLI and OpenSSH interoperability tests: in-process {@code pqssh} runs with captured output,
 * bounded subprocesses, OpenSSH binaries that must be present, loopback ports.
 */
final class CliHarness {
    static final Path SSH = Path.of("/usr/bin/ssh");
    static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");
    static final Path SSHD = Path.of("/usr/sbin/sshd");
    static final Duration RUN_TIMEOUT = Duration.ofSeconds(40);

    private CliHarness() {
    }

    /** Output of one run. */
    record Result(int rc, String out, String err) {
        String all() {
            return "exit " + rc + "\n--- stdout\n" + clip(out) + "\n--- stderr\n" + clip(err);
        }

        private static String clip(String s) {
            return s.length() <= 6000 ? s : s.substring(0, 3000) + "\n[... " + (s.length() - 6000) + " chars ...]\n"
                    + s.substring(s.length() - 3000);
        }
    }

    /** Fails (never skips) when an OpenSSH binary is missing, naming the Debian package to install. */
    /** sshd 9.2 refuses to start without its privilege-separation directory; a fresh container may lack it. */
    static void ensureSshdPrivsepDir() throws java.io.IOException {
        Path privsep = Path.of("/run/sshd");
        if (!Files.isDirectory(privsep)) {
            Files.createDirectories(privsep, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x")));
        }
    }

    static void requireBinary(Path binary, String debianPackage) {
        assertTrue(Files.isExecutable(binary), "MISSING " + binary + ": this OpenSSH interoperability test needs the"
                + " Debian package '" + debianPackage + "' (apt-get install -y " + debianPackage + ")");
    }

    /**
     * Runs {@code pqssh ARGS} in this JVM with System.out/System.err captured (restored afterwards), bounded by
     * {@link #RUN_TIMEOUT}. Serialized, since the streams are global.
     */
    static synchronized Result pqssh(String... args) throws Exception {
        return pqsshWithStdin(new byte[0], args);
    }

    /** As {@link #pqssh}, with {@code stdin} as System.in (never the test JVM's own stdin). */
    static synchronized Result pqsshWithStdin(byte[] stdin, String... args) throws Exception {
        java.io.InputStream oldIn = System.in;
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream pOut = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream pErr = new PrintStream(err, true, StandardCharsets.UTF_8);
        ExecutorService ex = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "pqssh-cli-run");
            t.setDaemon(true);
            return t;
        });
        int rc;
        System.setOut(pOut);
        System.setErr(pErr);
        System.setIn(new java.io.ByteArrayInputStream(stdin));
        try {
            Future<Integer> f = ex.submit(() -> Main.run(args));
            try {
                rc = f.get(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                f.cancel(true);
                rc = Integer.MIN_VALUE;
            } catch (ExecutionException e) {
                throw new AssertionError("pqssh " + String.join(" ", args) + " threw", e.getCause());
            }
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
            System.setIn(oldIn);
            ex.shutdownNow();
        }
        pOut.flush();
        pErr.flush();
        Result r = new Result(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        // kept in the surefire -output.txt for whoever reads a failure
        System.out.println("$ pqssh " + String.join(" ", args) + "\n" + r.all() + "\n");
        if (rc == Integer.MIN_VALUE) {
            fail("pqssh " + String.join(" ", args) + " did not finish within " + RUN_TIMEOUT + "\n" + r.all());
        }
        return r;
    }

    /** Runs a subprocess with stdin from /dev/null, output to files, bounded; kills it on timeout. */
    static Result exec(Path workDir, List<String> command) throws Exception {
        Path out = Files.createTempFile(workDir, "out", ".txt");
        Path err = Files.createTempFile(workDir, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        try {
            if (!p.waitFor(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                fail(String.join(" ", command) + " did not finish within " + RUN_TIMEOUT + "\nstderr:\n"
                        + Files.readString(err));
            }
            Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
            System.out.println("$ " + String.join(" ", command) + "\n" + r.all() + "\n");
            return r;
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * The command line that runs {@code pqssh} as its own process from the test class path (what the {@code pqssh}
     * launcher runs), for tests that need a real process: pipes into stdin, a terminal, environment variables.
     */
    static String pqsshCommandLine() {
        return Path.of(System.getProperty("java.home"), "bin", "java") + " --enable-native-access=ALL-UNNAMED"
                + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp " + System.getProperty("java.class.path")
                + " io.pqssh.cli.Main"; // used unquoted as $PQSSH: the class path has no blanks
    }

    /**
     * An SSH_ASKPASS script {@code askpass.sh} in {@code dir} that appends each prompt it is given to {@code log} and
     * answers {@code first} on its first call, {@code later} on every other.
     */
    static Path answeringAskpass(Path dir, Path log, String first, String later) throws IOException {
        Path askpass = dir.resolve("askpass.sh");
        Files.writeString(askpass, "#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + log + "\nif [ $(wc -l < " + log
                + ") -eq 1 ]; then echo '" + first + "'; else echo '" + later + "'; fi\n");
        Files.setPosixFilePermissions(askpass, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        return askpass;
    }

    /** Runs {@code script} with bash, {@code $PQSSH} set to {@link #pqsshCommandLine()}, bounded. */
    static Result shell(Path workDir, java.util.Map<String, String> env, String script) throws Exception {
        Path out = Files.createTempFile(workDir, "out", ".txt");
        Path err = Files.createTempFile(workDir, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).directory(workDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("PQSSH", pqsshCommandLine());
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            if (!p.waitFor(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                fail("bash -c " + script + " did not finish within " + RUN_TIMEOUT + "\nstderr:\n"
                        + Files.readString(err));
            }
            Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
            System.out.println("$ " + script + "\n" + r.all() + "\n");
            return r;
        } finally {
            if (p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /** {@code ssh-keygen -t TYPE -N '' -q -f FILE}; returns FILE (FILE.pub holds the public key). */
    static Path sshKeygen(Path file, String type) throws Exception {
        requireBinary(SSH_KEYGEN, "openssh-client");
        List<String> cmd = new ArrayList<>(List.of(SSH_KEYGEN.toString(), "-t", type, "-N", "", "-q", "-C",
                "pqssh-test-" + file.getFileName(), "-f", file.toString()));
        Result r = exec(file.getParent(), cmd);
        assertEquals(0, r.rc(), "ssh-keygen failed: " + r.all());
        assertTrue(Files.isRegularFile(file) && Files.isRegularFile(pub(file)), "ssh-keygen wrote no key: " + file);
        return file;
    }

    /** {@code ssh-keygen -q -s CA OPTIONS... KEY.pub}: writes KEY-cert.pub, or fails the test. */
    static void sshKeygenSign(Path ca, Path key, String... options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(SSH_KEYGEN.toString(), "-q", "-s", ca.toString()));
        cmd.addAll(List.of(options));
        cmd.add(pub(key).toString());
        Result r = exec(key.getParent(), cmd);
        assertEquals(0, r.rc(), r.all());
    }

    static Path pub(Path privateKey) {
        return privateKey.resolveSibling(privateKey.getFileName() + ".pub");
    }

    /** A loopback port that was free a moment ago. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    static boolean portOpen(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first line a server sends on {@code s} (an SSH server's identification string), 30 s at most. */
    static String firstLine(Socket s) throws IOException {
        s.setSoTimeout(30_000);
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = s.getInputStream().read()) >= 0 && c != '\n') {
            b.append((char) c);
        }
        return b.toString();
    }

    /** The first line the server listening on 127.0.0.1:port sends. */
    static String firstLine(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return firstLine(s);
        }
    }

    /** Polls until the condition holds; fails with the message after the timeout. */
    static void waitUntil(Duration timeout, BooleanSupplier condition, java.util.function.Supplier<String> message)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + timeout + ": " + message.get());
            }
            Thread.sleep(50);
        }
    }

    static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (IOException e) {
            return "<" + e + ">";
        }
    }

    static String user() {
        return System.getProperty("user.name");
    }
}
