package io.pqssh.cli.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The detached server's log, as sshd's without {@code -E}: one RFC 3164 datagram per line to the local syslog socket
 * ({@code /dev/log}), facility AUTH, tag {@code pqssh-server[PID]}, the format glibc's syslog(3) sends. Bytes written
 * are cut at each newline; a line in slf4j-simple's layout ({@code TIME LEVEL LOGGER - MESSAGE}) gets its level as
 * the severity, and sshd's own lines (logger {@code io.pqssh.sshd}) lose the prefix, so they read exactly as sshd's
 * do. Lines that do not reach a socket are lost, as syslog(3)'s are.
 */
public final class Syslog extends OutputStream {
    public static final Path DEFAULT_SOCKET = Path.of("/dev/log");
    static final int FACILITY_AUTH = 4;
    private static final int MAX_LINE = 8192;
    private static final Pattern SIMPLE_LOGGER =
            Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (TRACE|DEBUG|INFO|WARN|ERROR) (\\S+) - (.*)$", Pattern.DOTALL);
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("MMM ppd HH:mm:ss", Locale.ROOT);

    private final Path socket;
    private final String tag;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private int fd = -1;

    public Syslog(Path socket, String ident, long pid) {
        this.socket = socket;
        this.tag = ident + "[" + pid + "]";
    }

    @Override
    public synchronized void write(int b) {
        if (b == '\n') {
            flushLine();
        } else if (line.size() < MAX_LINE) {
            line.write(b);
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            write(b[i]);
        }
    }

    private void flushLine() {
        String text = line.toString(StandardCharsets.UTF_8);
        line.reset();
        if (text.endsWith("\r")) {
            text = text.substring(0, text.length() - 1);
        }
        if (text.isEmpty()) {
            return;
        }
        send(format(text, ZonedDateTime.now()));
    }

    /** {@code <PRI>Mmm dd HH:mm:ss TAG: MESSAGE}. */
    String format(String text, ZonedDateTime when) {
        int severity = 6; // LOG_INFO
        String message = text;
        Matcher m = SIMPLE_LOGGER.matcher(text);
        if (m.matches()) {
            severity = switch (m.group(1)) {
                case "ERROR" -> 3;
                case "WARN" -> 4;
                case "INFO" -> 6;
                default -> 7;
            };
            message = m.group(2).equals("io.pqssh.sshd") ? m.group(3) : m.group(2) + ": " + m.group(3);
        }
        return "<" + (FACILITY_AUTH * 8 + severity) + ">" + STAMP.format(when) + " " + tag + ": " + message;
    }

    private void send(String datagram) {
        byte[] b = datagram.getBytes(StandardCharsets.UTF_8);
        try {
            if (fd < 0) {
                fd = Libc.datagramSocket();
            }
            if (!Libc.sendTo(fd, b, socket)) {
                // syslogd restarted (a new socket at the same path) or not there: one fresh try, as syslog(3)
                Libc.close(fd);
                fd = Libc.datagramSocket();
                Libc.sendTo(fd, b, socket);
            }
        } catch (IOException e) {
            // no socket: the line is lost, as with syslog(3) and no syslogd
        }
    }

    @Override
    public synchronized void close() {
        if (fd >= 0) {
            Libc.close(fd);
            fd = -1;
        }
    }
}
