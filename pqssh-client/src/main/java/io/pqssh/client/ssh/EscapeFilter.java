package io.pqssh.client.ssh;

import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.util.buffer.Buffer;

import io.pqssh.client.forward.PortForwards;

/**
 * ssh's escape sequences on a pty session (clientloop.c's {@code process_escapes}), recognised only right after a
 * newline: {@code ~.} disconnects, {@code ~B} sends a BREAK (RFC 4335), {@code ~C} opens the command line (with
 * {@code EnableEscapeCommandline yes}, as OpenSSH 9.2), {@code ~R} asks for a rekey, {@code ~V}/{@code ~v} lower or
 * raise the LogLevel, {@code ~^Z} suspends pqssh, {@code ~#} lists the open channels, {@code ~?} lists the escapes,
 * {@code ~~} sends one {@code ~}; any other character is sent with the escape character. {@code ~&} is refused:
 * ssh forks into the background, which a JVM cannot do. For a session a mux master runs for a client, {@code ~.} ends
 * that session only and the escapes ssh keeps from mux clients get its "not available" line.
 */
public final class EscapeFilter {
    private final int escape;
    private final ClientSession session;
    private final Channel channel;
    private final PrintStream err;
    private final ClientLog log;
    private final LocalTerminal terminal;
    private final boolean commandLine;
    private final boolean muxClient;
    private boolean permitLocalCommand;
    private boolean exitOnForwardFailure;
    private boolean afterNewline = true;
    private boolean pending;

    /**
     * @param channel the session channel ({@code ~B} goes to it; {@code ~.} closes it for a mux client)
     * @param err where escape messages go (the user's terminal: stderr, or a mux client's stderr)
     * @param terminal the raw local terminal, or null (a mux client's session)
     * @param commandLine {@code EnableEscapeCommandline}
     * @param muxClient the session is a mux client's, run by this master
     */
    EscapeFilter(int escape, ClientSession session, Channel channel, PrintStream err, ClientLog log,
            LocalTerminal terminal, boolean commandLine, boolean muxClient) {
        this.escape = escape;
        this.session = session;
        this.channel = channel;
        this.err = err;
        this.log = log;
        this.terminal = terminal;
        this.commandLine = commandLine;
        this.muxClient = muxClient;
    }

    /** {@code PermitLocalCommand}: {@code ~C} runs {@code !command} (never for a mux client: ~C is not offered). */
    EscapeFilter permitLocalCommand(boolean permitted) {
        this.permitLocalCommand = permitted;
        return this;
    }

    /** {@code ExitOnForwardFailure}: a refused {@code ~C -R} ends the connection (ssh's fatal, exit 255). */
    EscapeFilter exitOnForwardFailure(boolean exit) {
        this.exitOnForwardFailure = exit;
        return this;
    }

    /** The filter a mux master runs on a client's pty session; messages go to the client's stderr. */
    public static EscapeFilter forMuxClient(int escape, ClientSession session, Channel channel, PrintStream err,
            ClientLog log) {
        return new EscapeFilter(escape, session, channel, err, log, null, false, true);
    }

    /**
     * Filters {@code buf[0..n)}; returns the bytes to send, or null when the session was closed.
     *
     * @param in where the rest of the input comes from (the {@code ~C} line is read from it)
     */
    public byte[] filter(byte[] buf, int n, InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(n + 1);
        for (int i = 0; i < n; i++) {
            int c = buf[i] & 0xff;
            if (pending) {
                pending = false;
                afterNewline = false;
                if (c == escape) {
                    out.write(c);
                    continue;
                }
                if (!escape(c, in)) {
                    if (c == '.') {
                        return null;
                    }
                    out.write(escape);
                    out.write(c);
                    afterNewline = c == '\r' || c == '\n';
                }
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

    /** Carries out escape {@code c}; false when it is not one (then it is sent), or for {@code ~.}. */
    private boolean escape(int c, InputStream in) throws IOException {
        char e = (char) escape;
        switch (c) {
            case '.' -> {
                if (muxClient) {
                    channel.close(false); // the client says "Shared connection to HOST closed.", as ssh's
                } else {
                    message("\r\n" + e + ".\r\nConnection to " + host() + " closed.\r\n");
                    session.close(true);
                }
                return false;
            }
            case 'B' -> {
                message(e + "B\r\n");
                Buffer b = session.createBuffer(SshConstants.SSH_MSG_CHANNEL_REQUEST, 32);
                b.putUInt(channel.getRecipient());
                b.putString("break");
                b.putBoolean(false);
                b.putUInt(1000); // ms, as ssh
                channel.writePacket(b);
                log.debug1("sent break request");
            }
            case 'R' -> {
                session.reExchangeKeys(); // silent, as ssh
                log.debug1("rekey requested");
            }
            case '#' -> message(e + "#\r\n" + OpenChannels.message(session));
            case '?' -> help();
            case 'V', 'v', 0x1a, 'C', '&' -> {
                if (muxClient) {
                    message(e + (c == 0x1a ? "^Z" : String.valueOf((char) c))
                            + " escape not available to multiplexed sessions\r\n");
                } else if (c == 0x1a) {
                    suspend();
                } else if (c == 'C') {
                    commandLine(in);
                } else if (c == '&') {
                    // ssh forks: the parent exits 0 and the child serves the open forwardings; a JVM cannot fork
                    message(e + "& escape not available: pqssh cannot fork into the background\r\n");
                } else {
                    message(e + String.valueOf((char) c) + " [LogLevel " + log.changeLevel(c == 'v') + "]\r\n");
                }
            }
            default -> {
                return false;
            }
        }
        return true;
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

    /** ssh's esc_txt, without what pqssh or a mux client's session does not offer. */
    private void help() {
        char e = (char) escape;
        StringBuilder b = new StringBuilder().append(e).append("?\r\nSupported escape sequences:\r\n");
        line(b, ".", muxClient ? "terminate session" : "terminate connection (and any multiplexed sessions)");
        line(b, "B", "send a BREAK to the remote system");
        if (commandLine && !muxClient) {
            line(b, "C", "open a command line");
        }
        line(b, "R", "request rekey");
        if (!muxClient) {
            line(b, "V/v", "decrease/increase verbosity (LogLevel)");
            line(b, "^Z", "suspend pqssh");
        }
        line(b, "#", "list forwarded connections");
        line(b, "?", "this message");
        b.append(' ').append(e).append(e).append("   - send the escape character by typing it twice\r\n")
                .append("(Note that escapes are only recognized immediately after newline.)\r\n");
        message(b.toString());
    }

    private void line(StringBuilder b, String cmd, String text) {
        b.append(' ').append((char) escape).append(String.format("%-3s", cmd)).append(" - ").append(text)
                .append("\r\n");
    }

    /** ssh's {@code ~C}: the terminal cooked, {@code ssh> } on it, one line read with echo, then raw again. */
    private void commandLine(InputStream in) throws IOException {
        if (!commandLine) {
            message("commandline disabled\r\n");
            return;
        }
        if (terminal != null) {
            terminal.restore();
        }
        try {
            try (OutputStream tty = new FileOutputStream("/dev/tty")) {
                tty.write("\r\nssh> ".getBytes(StandardCharsets.UTF_8));
                tty.flush();
            } catch (IOException ex) {
                message("\r\nssh> ");
            }
            String line = readLine(in);
            if (line != null) {
                new EscapeCommandLine(PortForwards.of(session), log::error, permitLocalCommand,
                        exitOnForwardFailure ? () -> session.close(true) : null).run(line);
            }
        } finally {
            if (terminal != null) {
                terminal.enterRaw();
            }
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n' && b != '\r') {
            line.write(b);
        }
        return b < 0 && line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
    }

    private void suspend() {
        message((char) escape + "^Z [suspend pqssh]\r\n");
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
