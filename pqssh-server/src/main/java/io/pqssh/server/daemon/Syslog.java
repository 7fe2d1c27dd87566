package io.pqssh.server.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The detached server's log, as sshd's without {@code -E}: one RFC 3164 datagram per line to the local syslog socket
 * ({@code /dev/log}), facility AUTH, tag {@code pqssh-server[PID]}, the format glibc's syslog(3) sends; the line's
 * level is the severity and sshd's own lines read exactly as sshd's do ({@link LogLines}). Lines that do not reach
 * a socket are lost, as syslog(3)'s are.
 */
public final class Syslog extends LogLines {
    public static final Path DEFAULT_SOCKET = Path.of("/dev/log");
    static final int FACILITY_AUTH = 4;
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("MMM ppd HH:mm:ss", Locale.ROOT);

    private final Path socket;
    private final String tag;
    private int fd = -1;

    public Syslog(Path socket, String ident, long pid) {
        this.socket = socket;
        this.tag = ident + "[" + pid + "]";
    }

    @Override
    protected void line(String level, String message) {
        send(format(level, message, ZonedDateTime.now()));
    }

    /** {@code <PRI>Mmm dd HH:mm:ss TAG: MESSAGE}. */
    String format(String level, String message, ZonedDateTime when) {
        int severity = switch (level) {
            case "ERROR" -> 3;
            case "WARN" -> 4;
            case "INFO" -> 6;
            default -> 7;
        };
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
