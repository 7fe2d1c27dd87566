package io.pqssh.server.log;

import io.pqssh.mina.internal.log.LogText;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A stderr for a server process whose logger (slf4j-simple) writes each record with one {@code println}: control
 * characters inside a record are written as {@code \xNN}, so whatever a record quotes from the peer (a method name,
 * an algorithm name from a KEXINIT, a version string in one of MINA's own WARN lines) cannot start a forged line.
 * sshd does the same for every message it logs ({@code strnvis} in {@code do_log}). Stack traces keep their line
 * structure: each of their lines is its own {@code println}.
 */
public final class OneLinePrintStream extends PrintStream {
    private OneLinePrintStream(PrintStream target) {
        super(target, true, StandardCharsets.UTF_8);
    }

    /** A one-line stream over {@code target}. */
    public static PrintStream wrap(PrintStream target) {
        return target instanceof OneLinePrintStream ? target : new OneLinePrintStream(target);
    }

    /** Replaces {@code System.err} (idempotent). */
    public static synchronized void installOnStderr() {
        if (!(System.err instanceof OneLinePrintStream)) {
            System.setErr(new OneLinePrintStream(System.err));
        }
    }

    @Override
    public void println(String x) {
        super.println(x == null ? null : LogText.escapeControls(x));
    }

    @Override
    public void println(Object x) {
        println(String.valueOf(x));
    }
}
