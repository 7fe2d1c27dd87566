package io.pqssh.client.ssh;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A status line with a spinner on stderr for a step that takes more than a second, only when stderr's process has
 * a terminal (never in pipes, logs or tests' captured output). {@link #close()} stops it and erases the line, so a
 * fast step shows nothing at all.
 */
public final class Progress implements AutoCloseable {
    static final long DELAY_MS = 1000;
    private static final String FRAMES = "|/-\\";

    private static volatile Progress active;

    private final Thread thread;
    private final AtomicBoolean shown = new AtomicBoolean();
    private final PrintStream out;
    private volatile boolean done;

    private Progress(String message, PrintStream out, long delayMs) {
        this.out = out;
        this.thread = Thread.ofPlatform().daemon().name("pqssh-progress").unstarted(() -> spin(message, delayMs));
        thread.start();
    }

    /** Starts a status for {@code message} that appears after one second on a terminal. */
    public static Progress start(String message) {
        java.io.Console c = System.console();
        return start(message, c != null && c.isTerminal(), System.err, DELAY_MS);
    }

    static Progress start(String message, boolean terminal, PrintStream out, long delayMs) {
        if (!terminal) {
            return null;
        }
        Progress p = new Progress(message, out, delayMs);
        active = p;
        return p;
    }

    /** Ends the status being shown, if any: called before a prompt, which must not be drawn over. */
    public static void stopActive() {
        Progress p = active;
        if (p != null) {
            p.close();
        }
    }

    private void spin(String message, long delayMs) {
        try {
            Thread.sleep(delayMs);
            for (int i = 0; !done; i++) {
                synchronized (this) {
                    if (done) {
                        return;
                    }
                    shown.set(true);
                    out.print("\r\033[K" + message + " " + FRAMES.charAt(i % FRAMES.length()));
                    out.flush();
                }
                Thread.sleep(150);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the line was ever drawn. */
    boolean shown() {
        return shown.get();
    }

    @Override
    public void close() {
        synchronized (this) {
            done = true;
            if (shown.get()) {
                out.print("\r\033[K");
                out.flush();
            }
        }
        thread.interrupt();
        if (active == this) {
            active = null;
        }
    }

    /** Closes a possibly absent progress (no terminal). */
    public static void close(Progress p) {
        if (p != null) {
            p.close();
        }
    }
}
