package io.pqssh.client.ssh;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Asks the person at the controlling terminal ({@code /dev/tty}, even when stdin is a pipe, as ssh does), or runs
 * {@code SSH_ASKPASS} when there is no terminal and a display (or when {@code SSH_ASKPASS_REQUIRE=force};
 * {@code prefer} puts askpass first, {@code never} turns it off) — OpenSSH's readpass.c rules. In batch mode it
 * never asks.
 */
public final class Prompter {
    private static final File TTY = new File("/dev/tty");

    private final boolean batchMode;
    private final Map<String, String> env;

    public Prompter(boolean batchMode, Map<String, String> env) {
        this.batchMode = batchMode;
        this.env = env;
    }

    public boolean batchMode() {
        return batchMode;
    }

    /** True when a question can be asked at all (terminal or askpass), and batch mode is off. */
    public boolean canAsk() {
        return !batchMode && (hasTerminal() || useAskpass());
    }

    public boolean hasTerminal() {
        try (FileInputStream in = new FileInputStream(TTY)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private boolean display() {
        return env.get("DISPLAY") != null || env.get("WAYLAND_DISPLAY") != null;
    }

    private boolean useAskpass() {
        String require = env.getOrDefault("SSH_ASKPASS_REQUIRE", "");
        String askpass = env.get("SSH_ASKPASS");
        if (require.equals("never") || askpass == null || askpass.isEmpty()) {
            return false;
        }
        if (require.equals("force")) {
            return true;
        }
        if (require.equals("prefer")) {
            return display();
        }
        return !hasTerminal() && display();
    }

    /** A question answered in clear (host key confirmation); null when it cannot be asked. */
    public String ask(String prompt, boolean echo) {
        char[] c = read(prompt, echo);
        if (c == null) {
            return null;
        }
        String s = new String(c);
        Arrays.fill(c, '\0');
        return s;
    }

    /** A secret (passphrase, password), not echoed; null when it cannot be asked. The caller zeroes it. */
    public char[] secret(String prompt) {
        return read(prompt, false);
    }

    private char[] read(String prompt, boolean echo) {
        io.pqssh.client.ssh.Progress.stopActive(); // a status line must not draw over a question
        if (batchMode) {
            return null;
        }
        try {
            if (useAskpass()) {
                return askpass(prompt);
            }
            if (hasTerminal()) {
                return tty(prompt, echo);
            }
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        return null;
    }

    private char[] askpass(String prompt) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(env.get("SSH_ASKPASS"), prompt)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readNBytes(8192);
        }
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            Arrays.fill(out, (byte) 0);
            return null;
        }
        int len = 0;
        while (len < out.length && out[len] != '\n' && out[len] != '\r') {
            len++;
        }
        char[] c = decode(out, len);
        Arrays.fill(out, (byte) 0);
        return c;
    }

    private static char[] decode(byte[] bytes, int len) {
        java.nio.CharBuffer cb = StandardCharsets.UTF_8.decode(java.nio.ByteBuffer.wrap(bytes, 0, len));
        char[] c = new char[cb.remaining()];
        cb.get(c);
        if (cb.hasArray()) {
            Arrays.fill(cb.array(), '\0');
        }
        return c;
    }

    private static char[] tty(String prompt, boolean echo) throws IOException, InterruptedException {
        try (OutputStream out = new FileOutputStream(TTY); InputStream in = new FileInputStream(TTY)) {
            if (!echo) {
                // echo off before the prompt shows (as readpassphrase(3)): keys typed as soon as it appears must not
                // be echoed, and stty takes a moment (PassphrasePromptTest saw a passphrase on the screen)
                stty("-echo");
            }
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            try {
                out.write(prompt.getBytes(StandardCharsets.UTF_8));
                out.flush();
                int b;
                while ((b = in.read()) >= 0 && b != '\n' && b != '\r') {
                    line.write(b);
                }
                if (b < 0 && line.size() == 0) {
                    return null;
                }
            } finally {
                if (!echo) {
                    stty("echo");
                    out.write('\n');
                    out.flush();
                }
            }
            byte[] bytes = line.toByteArray();
            char[] c = decode(bytes, bytes.length);
            Arrays.fill(bytes, (byte) 0);
            return c;
        }
    }

    private static void stty(String mode) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("stty", mode).redirectInput(ProcessBuilder.Redirect.from(TTY))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        p.waitFor(10, TimeUnit.SECONDS);
    }
}
