package io.pqssh.client.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;

import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ChannelShell;
import org.apache.sshd.client.channel.ChannelSubsystem;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.channel.PtyCapableChannelSession;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.channel.PtyMode;
import org.jline.terminal.Size;

/**
 * Runs the session channel as ssh does: a command (exec), a shell, or a subsystem; stdin copied to the channel with
 * EOF passed on (or nothing with {@code -n}); a pty when asked for ({@code RequestTTY}), with the local terminal
 * raw while it runs, window changes, and the escape character. Returns ssh's exit status: the remote one, or 255
 * when the remote side sent none (killed by a signal, or the connection was closed).
 */
public final class SessionRunner {
    /** Set when the channel closed with neither an exit status nor a signal (the connection ended under it). */
    private volatile boolean endedWithoutStatus;

    /** Whether the last {@link #run} ended with neither an exit status nor an exit signal. */
    public boolean endedWithoutStatus() {
        return endedWithoutStatus;
    }

    /** Whether and how to request a pty (ssh's RequestTTY with -t/-T counted). */
    public enum Tty { AUTO, NO, YES, FORCE }

    private final ClientSession session;
    private final ClientLog log;
    private final InputStream stdin;
    private final PrintStream stdout;
    private final PrintStream stderr;
    private final boolean stdinIsTerminal;
    private boolean escapeCommandLine;
    private boolean permitLocalCommand;
    private boolean exitOnForwardFailure;

    /** {@code EnableEscapeCommandline}: whether {@code ~C} opens the command line. */
    public SessionRunner escapeCommandLine(boolean enabled) {
        this.escapeCommandLine = enabled;
        return this;
    }

    /** {@code ExitOnForwardFailure}: a {@code ~C -R} the server refuses ends the connection, as ssh. */
    public SessionRunner exitOnForwardFailure(boolean exit) {
        this.exitOnForwardFailure = exit;
        return this;
    }

    /** {@code PermitLocalCommand}: whether the {@code ~C} command line runs {@code !command}. */
    public SessionRunner permitLocalCommand(boolean permitted) {
        this.permitLocalCommand = permitted;
        return this;
    }

    public SessionRunner(ClientSession session, ClientLog log, InputStream stdin, PrintStream stdout,
            PrintStream stderr, boolean stdinIsTerminal) {
        this.session = session;
        this.log = log;
        this.stdin = stdin;
        this.stdout = stdout;
        this.stderr = stderr;
        this.stdinIsTerminal = stdinIsTerminal;
    }

    /**
     * @param command the remote command, or null for a shell
     * @param subsystem true when {@code command} names a subsystem ({@code -s})
     * @param stdinNull {@code -n}: EOF at once
     * @param escapeChar the escape character, or -1
     * @param env SetEnv variables
     */
    public int run(String command, boolean subsystem, Tty tty, boolean stdinNull, int escapeChar,
            Map<String, String> env) throws IOException {
        boolean wantPty = switch (tty) {
            case NO -> false;
            case FORCE -> true;
            case YES -> stdinIsTerminal;
            case AUTO -> command == null && stdinIsTerminal;
        };
        if (!wantPty && (tty == Tty.YES || (tty == Tty.AUTO && command == null)) && !stdinIsTerminal) {
            log.error("Pseudo-terminal will not be allocated because stdin is not a terminal.");
        }
        boolean localRaw = wantPty && stdinIsTerminal;
        LocalTerminal terminal = localRaw ? LocalTerminal.open() : null;
        try {
            PtyCapableChannelSession ch;
            if (subsystem) {
                ChannelSubsystem s = session.createSubsystemChannel(command);
                log.debug1("Sending subsystem: " + command);
                return finish(s, null, stdinNull, -1, terminal);
            }
            // ssh's line when the server refuses the pty; with -t/-tt (asked for explicitly) the session then ends
            // (255), as ssh's client_status_confirm fails the channel; otherwise it goes on without a pty
            PtyCapableChannelSession[] opened = new PtyCapableChannelSession[1];
            java.util.function.IntConsumer refused = id -> {
                log.error("PTY allocation request failed on channel " + id);
                if (tty == Tty.YES || tty == Tty.FORCE) {
                    opened[0].close(false);
                }
            };
            // ssh's client_expect_confirm(..., "X11 forwarding", CONFIRM_WARN): a line, and the session goes on
            PtyChannels.Refusals refusals = new PtyChannels.Refusals(refused,
                    id -> log.error("X11 forwarding request failed on channel " + id));
            io.pqssh.client.x11.X11Forwarding x11 = io.pqssh.client.x11.X11Forwarding.of(session);
            if (x11 != null) {
                log.debug1("Requesting X11 forwarding with authentication spoofing.");
            }
            if (command == null) {
                ch = PtyChannels.shell(session, refusals, x11);
                log.debug1("Requesting shell.");
            } else {
                ch = PtyChannels.exec(session, command, refusals, x11);
                log.debug1("Sending command: " + command);
            }
            opened[0] = ch;
            ch.setUsePty(wantPty);
            ch.setAgentForwarding(Boolean.TRUE.equals(session.getAttribute(Forwarding.FORWARD_AGENT)));
            if (wantPty) {
                if (terminal != null) {
                    Size sz = terminal.size();
                    ch.setPtyType(terminal.type());
                    ch.setPtyColumns(sz.getColumns() > 0 ? sz.getColumns() : 80);
                    ch.setPtyLines(sz.getRows() > 0 ? sz.getRows() : 24);
                    Map<PtyMode, Integer> modes = terminal.modes();
                    ch.setPtyModes(modes);
                } else {
                    String term = System.getenv("TERM");
                    ch.setPtyType(term == null || term.isEmpty() ? "dumb" : term);
                    ch.setPtyColumns(80);
                    ch.setPtyLines(24);
                }
                log.debug1("Requesting pty " + ch.getPtyType() + " " + ch.getPtyColumns() + "x" + ch.getPtyLines());
            }
            env.forEach(ch::setEnv);
            return finish(ch, terminal, stdinNull, wantPty ? escapeChar : -1, terminal);
        } finally {
            if (terminal != null) {
                terminal.close();
                log.rawTerminal(false);
            }
        }
    }

    private int finish(org.apache.sshd.client.channel.ChannelSession ch, LocalTerminal terminal, boolean stdinNull,
            int escapeChar, LocalTerminal raw) throws IOException {
        try (ch) {
            ch.setOut(new FlushingOutput(stdout));
            ch.setErr(new FlushingOutput(stderr));
            ch.open().verify(Duration.ofSeconds(60));
            if (raw != null) {
                raw.enterRaw();
                log.rawTerminal(true);
                PtyCapableChannelSession pty = (PtyCapableChannelSession) ch;
                raw.onResize(() -> {
                    Size s = raw.size();
                    try {
                        pty.sendWindowChange(s.getColumns(), s.getRows());
                        log.debug2("window change " + s.getColumns() + "x" + s.getRows());
                    } catch (IOException e) {
                        log.debug1("window change not sent: " + e.getMessage());
                    }
                });
            }
            OutputStream toRemote = ch.getInvertedIn();
            InputStream from = raw != null ? raw.input() : stdin;
            Thread pump = null;
            if (stdinNull) {
                toRemote.close(); // EOF at once, as ssh -n
            } else {
                EscapeFilter filter = escapeChar < 0 ? null
                        : new EscapeFilter(escapeChar, session, ch, stderr, log, raw, escapeCommandLine, false)
                                .permitLocalCommand(permitLocalCommand)
                                .exitOnForwardFailure(exitOnForwardFailure);
                pump = new Thread(() -> pump(from, toRemote, filter), "pqssh-stdin");
                pump.setDaemon(true);
                pump.start();
            }
            ch.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), 0L);
            Integer status = ch.getExitStatus();
            String signal = ch.getExitSignal();
            if (raw != null) {
                raw.restore();
                log.rawTerminal(false);
            }
            if (status != null) {
                log.debug1("Exit status " + status);
                return status;
            }
            if (signal != null) {
                log.debug1("Remote command killed by signal " + signal);
            } else {
                endedWithoutStatus = true;
            }
            return 255;
        }
    }

    private void pump(InputStream from, OutputStream to, EscapeFilter filter) {
        byte[] buf = new byte[16384];
        try {
            int n;
            while ((n = from.read(buf)) >= 0) {
                if (n == 0) {
                    continue;
                }
                byte[] data = buf;
                if (filter != null) {
                    data = filter.filter(buf, n, from);
                    if (data == null) {
                        return; // ~. : the filter closed the session
                    }
                    n = data.length;
                }
                if (n > 0) {
                    to.write(data, 0, n);
                    to.flush();
                }
            }
            log.debug2("stdin EOF: sending EOF");
            to.close();
        } catch (IOException e) {
            // the channel closed under us: nothing more to send
            log.debug2("stdin copy ended: " + e.getMessage());
        }
    }

    /** Writes through to a stream and flushes each time (output must appear as it arrives), never closes it. */
    static final class FlushingOutput extends OutputStream {
        private final OutputStream out;

        FlushingOutput(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            out.flush();
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }
}
