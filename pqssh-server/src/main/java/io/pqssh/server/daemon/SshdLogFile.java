package io.pqssh.server.daemon;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code -E} file as sshd writes it ({@code log.c} with the log on a file descriptor): no time stamp, no program
 * name, the message ended by CR LF, and sshd's level word before the messages of its non-INFO levels:
 * {@code error: } for ERROR and WARN (sshd has no warning level; its {@code error()} is what pqssh logs at WARN, e.g.
 * {@code maximum authentication attempts exceeded}), {@code debug1: } for DEBUG, {@code debug3: } for TRACE.
 */
public final class SshdLogFile extends LogLines {
    private final OutputStream out;

    public SshdLogFile(OutputStream out) {
        this.out = out;
    }

    @Override
    protected void line(String level, String message) {
        String prefix = switch (level) {
            case "ERROR", "WARN" -> "error: ";
            case "DEBUG" -> "debug1: ";
            case "TRACE" -> "debug3: ";
            default -> "";
        };
        try {
            out.write((prefix + message + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            // as sshd's write(2) to its log: a line that cannot be written is dropped
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
