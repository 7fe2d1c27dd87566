package io.pqssh.client.ssh;

import java.io.IOException;
import java.io.PrintStream;

import org.apache.sshd.client.session.ClientSession;

/**
 * ssh's escape sequences on a pty session, recognised only right after a newline: {@code ~.} disconnects,
 * {@code ~?} lists them, {@code ~~} sends one {@code ~}, {@code ~^Z} suspends pqssh, {@code ~R} asks for a rekey.
 * Any other character after the escape character is sent with it.
 */
final class EscapeFilter {
    private final int escape;
    private final ClientSession session;
    private final PrintStream err;
    private final ClientLog log;
    private final LocalTerminal terminal;
    private boolean afterNewline = true;
    private boolean pending;

    EscapeFilter(int escape, ClientSession session, PrintStream err, ClientLog log, LocalTerminal terminal) {
        this.escape = escape;
        this.session = session;
        this.err = err;
        this.log = log;
        this.terminal = terminal;
    }

    /** Filters {@code buf[0..n)}; returns the bytes to send, or null when the session was closed. */
    byte[] filter(byte[] buf, int n) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(n + 1);
        for (int i = 0; i < n; i++) {
            int c = buf[i] & 0xff;
            if (pending) {
                pending = false;
                if (c == '.') {
                    message("\r\n" + (char) escape + ".\r\nConnection to " + host() + " closed.\r\n");
                    session.close(true);
                    return null;
                }
                if (c == '?') {
                    help();
                    afterNewline = false;
                    continue;
                }
                if (c == escape) {
                    out.write(c);
                    afterNewline = false;
                    continue;
                }
                if (c == 0x1a) { // Ctrl-Z
                    suspend();
                    afterNewline = false;
                    continue;
                }
                if (c == 'R') {
                    message("\r\n" + (char) escape + "R\r\n");
                    session.reExchangeKeys();
                    log.debug1("rekey requested");
                    afterNewline = false;
                    continue;
                }
                out.write(escape);
                out.write(c);
                afterNewline = c == '\r' || c == '\n';
                continue;
            }
            if (afterNewline && c == escape) {
                pending = true;
                continue;
            }
            out.write(c);
            afterNewline = c == '\r' || c == '\n';
        }
        return out.toByteArray();
    }

    private String host() {
        java.net.SocketAddress a = session.getConnectAddress();
        if (a instanceof org.apache.sshd.common.util.net.SshdSocketAddress s) {
            return s.getHostName();
        }
        if (a instanceof java.net.InetSocketAddress s) {
            return s.getHostString();
        }
        return String.valueOf(a);
    }

    private void help() {
        char e = (char) escape;
        message("\r\n" + e + "?\r\nSupported escape sequences:\r\n"
                + " " + e + ".   - terminate connection\r\n"
                + " " + e + "R   - request rekey\r\n"
                + " " + e + "^Z  - suspend pqssh\r\n"
                + " " + e + "?   - this message\r\n"
                + " " + e + e + "   - send the escape character by typing it twice\r\n"
                + "(Note that escapes are only recognized immediately after newline.)\r\n");
    }

    private void suspend() {
        message("\r\n" + (char) escape + "^Z [suspend pqssh]\r\n");
        if (terminal != null) {
            terminal.restore();
        }
        // SIGSTOP, not ssh's SIGTSTP: JLine (LocalTerminal) catches and ignores SIGTSTP while the session runs, and
        // SIGSTOP stops the process just the same for the shell's job control ("fg" sends SIGCONT)
        Posix.raise(Posix.SIGSTOP);
        // resumed ("fg")
        if (terminal != null) {
            terminal.enterRaw();
        }
    }

    private void message(String s) {
        err.print(s);
        err.flush();
    }
}
