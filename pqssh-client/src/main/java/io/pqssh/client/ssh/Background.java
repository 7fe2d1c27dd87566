package io.pqssh.client.ssh;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code -f} (ForkAfterAuthentication) without fork(2): the process starts a copy of itself, which connects and
 * authenticates (passphrase and password prompts still reach the terminal), then leaves the terminal's session
 * ({@code setsid}) and says so through a marker file; the first process exits 0 at that moment, or with the
 * copy's status if the copy ends first — what the person at the terminal sees of ssh's fork after authentication.
 */
public final class Background {
    static final String READY_ENV = "PQSSH_FORK_READY";

    private Background() {
    }

    public static boolean isChild() {
        return System.getenv(READY_ENV) != null;
    }

    /** Starts the copy and waits for it to authenticate; returns this process's exit status. */
    public static int launch(PrintStream err) {
        return launch(err, java.util.Map.of());
    }

    /** {@link #launch(PrintStream)} with extra environment for the copy (ControlPersist's master). */
    public static int launch(PrintStream err, java.util.Map<String, String> env) {
        java.util.Optional<List<String>> self = io.pqssh.common.process.OwnCommandLine.get();
        if (self.isEmpty()) {
            err.println("pqssh: -f: cannot find this process's command line to start it in the background");
            return 255;
        }
        List<String> cmd = new ArrayList<>(self.get());
        Path ready;
        try {
            ready = Files.createTempFile("pqssh-fork-", ".ready");
            Files.delete(ready);
        } catch (IOException e) {
            err.println("pqssh: -f: " + e.getMessage());
            return 255;
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put(READY_ENV, ready.toString());
        pb.environment().putAll(env);
        try {
            Process p = pb.start();
            while (true) {
                if (Files.exists(ready)) {
                    Files.deleteIfExists(ready);
                    return 0;
                }
                if (p.waitFor(50, TimeUnit.MILLISECONDS)) {
                    Files.deleteIfExists(ready);
                    return p.exitValue();
                }
            }
        } catch (IOException e) {
            err.println("pqssh: -f: " + e.getMessage());
            return 255;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 255;
        }
    }

    /** In the copy, after authentication: leave the terminal's session and release the first process. */
    public static void detach() {
        String ready = System.getenv(READY_ENV);
        if (ready == null) {
            return;
        }
        Posix.setsid();
        try {
            Files.writeString(Path.of(ready), "authenticated\n");
        } catch (IOException e) {
            // the first process then waits for this one to end: still correct, only not backgrounded
        }
    }
}
