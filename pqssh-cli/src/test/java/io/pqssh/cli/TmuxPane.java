package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real terminal for interactive tests: a tmux server on its own socket running one script in a pane; keys are
 * typed with send-keys and the screen read with capture-pane. {@link #close()} kills that tmux server only.
 */
final class TmuxPane implements AutoCloseable {
    static final Path TMUX = Path.of("/usr/bin/tmux");

    private final String socket;

    TmuxPane(Path script, int columns, int rows) throws Exception {
        CliHarness.requireBinary(TMUX, "tmux");
        this.socket = "pqssh-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        tmux("new-session", "-d", "-x", String.valueOf(columns), "-y", String.valueOf(rows), "bash " + script);
    }

    /** The pane's text, with its scrollback. */
    String screen() throws Exception {
        return tmux("capture-pane", "-p", "-J", "-S", "-500");
    }

    /** Types text literally (no Enter). */
    void type(String text) throws Exception {
        tmux("send-keys", "-l", "--", text);
    }

    /** Sends tmux key names: "Enter", "C-c". */
    void key(String name) throws Exception {
        tmux("send-keys", name);
    }

    void line(String text) throws Exception {
        type(text);
        key("Enter");
    }

    void resize(int columns, int rows) throws Exception {
        tmux("resize-window", "-x", String.valueOf(columns), "-y", String.valueOf(rows));
    }

    /** Waits until the screen satisfies {@code condition}; fails with the screen after {@code timeout}. */
    String await(Duration timeout, String what, Predicate<String> condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String s = screen();
        while (!condition.test(s)) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + timeout + " waiting for " + what + "; screen:\n" + s);
            }
            Thread.sleep(100);
            s = screen();
        }
        return s;
    }

    String awaitText(Duration timeout, String text) throws Exception {
        return await(timeout, "'" + text + "'", s -> s.contains(text));
    }

    private String tmux(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(TMUX.toString(), "-L", socket));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tmux did not answer: " + cmd);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError("tmux failed (" + p.exitValue() + "): " + cmd + "\n" + out);
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        try {
            tmux("kill-server");
        } catch (AssertionError e) {
            // already gone
        }
    }

    /** Writes a bash script that runs {@code body}, then keeps the pane open. */
    static Path script(Path dir, String name, String body) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, "#!/bin/bash\nexport PQSSH=\"" + CliHarness.pqsshCommandLine().replace("\"", "\\\"")
                + "\"\n" + body + "\nexec sleep 600\n");
        return f;
    }
}
