package io.pqssh.server.session;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.pqssh.server.login.Account;

/**
 * Runs a short helper as an account and captures its output, as sshd's {@code subprocess()}: through
 * {@code setpriv --reuid --regid --init-groups} when the server is another uid (root), stdin {@code /dev/null},
 * stderr discarded or handed line by line (bounded) to the caller, working directory {@code /}, only the environment the caller fixes (never anything a client
 * sent). The output is bounded and the process is killed after the timeout, so a helper that hangs or floods
 * cannot hold an authentication thread.
 */
public final class UserCommand {
    /** The helper's exit status (128 + N: killed by signal N) and its standard output. */
    public record Result(int status, byte[] out) {
        public Result {
            out = out.clone();
        }

        @Override
        public byte[] out() {
            return out.clone();
        }
    }

    /** The helper wrote more than the limit; it has been killed. */
    public static final class OutputTooLong extends IOException {
        private static final long serialVersionUID = 1L;

        OutputTooLong(String command, int limit) {
            super(command + " wrote more than " + limit + " bytes");
        }
    }

    /** How much of a helper's stderr reaches the caller (a chatty helper must not flood the log). */
    static final int STDERR_LINES = 20;
    static final int STDERR_BYTES = 8192;

    private UserCommand() {
    }

    /**
     * Runs {@code argv} as {@code account} ({@code switchUid}: the server runs as root and must change uid first).
     *
     * @throws OutputTooLong when stdout exceeds {@code maxBytes}
     * @throws IOException   when it cannot start or does not finish within {@code timeout}
     */
    public static Result run(List<String> argv, Account account, boolean switchUid, Map<String, String> env,
            int maxBytes, Duration timeout) throws IOException {
        return run(argv, account, switchUid, env, maxBytes, timeout, null);
    }

    /** As {@link #run(List, Account, boolean, Map, int, Duration)}; {@code stderr} (null: discard) gets its lines. */
    public static Result run(List<String> argv, Account account, boolean switchUid, Map<String, String> env,
            int maxBytes, Duration timeout, Consumer<String> stderr) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (switchUid) {
            cmd.addAll(List.of(SessionLaunch.SETPRIV, "--reuid=" + account.uid(), "--regid=" + account.gid(),
                    "--init-groups", "--"));
        }
        cmd.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(stderr == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.PIPE)
                .directory(new File("/"));
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        Thread errors = stderr == null ? null : Thread.ofVirtual().start(() -> drain(p.getErrorStream(), stderr));
        String what = argv.get(0);
        // a helper that never closes its stdout (or a FIFO it reads) must not hold the caller
        java.util.concurrent.atomic.AtomicBoolean late = new java.util.concurrent.atomic.AtomicBoolean();
        CompletableFuture.delayedExecutor(timeout.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            if (p.isAlive()) {
                late.set(true);
                kill(p);
            }
        });
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = bounded(in, maxBytes, what);
        } catch (IOException e) {
            kill(p);
            throw e;
        }
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || late.get()) {
                kill(p);
                throw new IOException(what + " did not finish within " + timeout.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill(p);
            throw new IOException("interrupted waiting for " + what);
        }
        if (errors != null) {
            try {
                // a grandchild may hold stderr open after the helper exited: its lines are not worth a wait
                errors.join(Duration.ofSeconds(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return new Result(p.exitValue(), out);
    }

    /**
     * The first {@value #STDERR_LINES} lines (of the first {@value #STDERR_BYTES} bytes) of a helper's stderr to
     * {@code sink}, once it is closed; the rest is read and dropped.
     */
    private static void drain(InputStream err, Consumer<String> sink) {
        try (err) {
            byte[] head = err.readNBytes(STDERR_BYTES);
            err.transferTo(OutputStream.nullOutputStream());
            new String(head, java.nio.charset.StandardCharsets.UTF_8).lines().limit(STDERR_LINES).forEach(sink);
        } catch (IOException e) {
            // the helper was killed and its stderr closed: nothing more to log
        }
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    private static byte[] bounded(InputStream in, int max, String what) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) >= 0;) {
            b.write(buf, 0, n);
            if (b.size() > max) {
                throw new OutputTooLong(what, max);
            }
        }
        return b.toByteArray();
    }
}
