package io.pqssh.client.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;

import org.apache.sshd.common.channel.PtyMode;
import org.jline.terminal.Attributes;
import org.jline.terminal.Attributes.ControlChar;
import org.jline.terminal.Attributes.InputFlag;
import org.jline.terminal.Attributes.LocalFlag;
import org.jline.terminal.Attributes.OutputFlag;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * The local terminal while a remote pty session runs (JLine 3 with its FFM provider): its type, size and modes
 * for the pty request, raw mode as OpenSSH's {@code enter_raw_mode} sets it (no ISIG, so Ctrl-C is byte 0x03 for
 * the remote side; set through termios by FFM), restored on every exit path (close, and a shutdown hook for
 * signals), and SIGWINCH.
 */
final class LocalTerminal implements AutoCloseable {
    private final Terminal terminal;
    private final Attributes saved;
    /** The settings found at start, byte for byte (JLine's Attributes drop the line speed). */
    private final byte[] savedTermios;
    private final Thread restoreHook;
    private volatile boolean raw;

    private LocalTerminal(Terminal terminal) {
        this.terminal = terminal;
        this.saved = terminal.getAttributes();
        this.savedTermios = Posix.tcgetattr(0);
        this.restoreHook = new Thread(this::restore, "pqssh-terminal-restore");
        Runtime.getRuntime().addShutdownHook(restoreHook);
    }

    /** The terminal on stdin/stdout; the caller checked that stdin is a terminal. */
    static LocalTerminal open() throws IOException {
        Terminal t = TerminalBuilder.builder().system(true).provider("ffm").nativeSignals(true)
                .signalHandler(Terminal.SignalHandler.SIG_IGN).build();
        return new LocalTerminal(t);
    }

    String type() {
        String t = System.getenv("TERM");
        return t == null || t.isEmpty() ? "dumb" : t;
    }

    Size size() {
        return terminal.getSize();
    }

    /** The modes to send in the pty request (RFC 4254 section 8), from the terminal's saved settings. */
    Map<PtyMode, Integer> modes() {
        Map<PtyMode, Integer> m = new EnumMap<>(PtyMode.class);
        for (ControlChar c : ControlChar.values()) {
            PtyMode p = mode(c.name());
            if (p != null) {
                int v = saved.getControlChar(c);
                if (v >= 0) { // JLine gives -1 for characters this system does not have (VDSUSP, VSTATUS)
                    m.put(p, v == 0 ? 255 : v); // 0 is Linux's _POSIX_VDISABLE; the protocol says 255
                }
            }
        }
        flags(m, saved.getInputFlags(), InputFlag.values());
        flags(m, saved.getOutputFlags(), OutputFlag.values());
        flags(m, saved.getLocalFlags(), LocalFlag.values());
        flags(m, saved.getControlFlags(), Attributes.ControlFlag.values());
        return m;
    }

    private static <E extends Enum<E>> void flags(Map<PtyMode, Integer> m, EnumSet<E> set, E[] all) {
        for (E e : all) {
            PtyMode p = mode(e.name());
            if (p != null) {
                m.put(p, set.contains(e) ? 1 : 0);
            }
        }
    }

    private static PtyMode mode(String name) {
        try {
            return PtyMode.valueOf(name);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** OpenSSH's enter_raw_mode (termios through FFM, so the line speed and all else stay as they were). */
    synchronized void enterRaw() {
        if (savedTermios == null || !Posix.tcsetattr(0, Posix.rawMode(savedTermios))) {
            throw new IllegalStateException("cannot put the terminal in raw mode");
        }
        raw = true;
    }

    /** Back to the settings found at start; safe to call more than once and from the shutdown hook. */
    synchronized void restore() {
        if (raw) {
            Posix.tcsetattr(0, savedTermios);
            raw = false;
        }
    }

    InputStream input() {
        return terminal.input();
    }

    void onResize(Runnable r) {
        terminal.handle(Terminal.Signal.WINCH, s -> r.run());
    }

    @Override
    public void close() throws IOException {
        try {
            terminal.close();
        } finally {
            // after JLine's own close, which writes back its Attributes (without the line speed)
            raw = true;
            restore();
            try {
                Runtime.getRuntime().removeShutdownHook(restoreHook);
            } catch (IllegalStateException e) {
                // already shutting down: the hook runs restore() itself
            }
        }
    }
}
