package io.pqssh.server.daemon;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's log as a stream of lines for a destination that rewrites them as sshd writes its own (syslog, the
 * {@code -E} file): written bytes are cut at each newline (a trailing CR dropped, an empty line skipped, a line cut
 * at 8 KiB), and a line in slf4j-simple's layout ({@code TIME LEVEL LOGGER - MESSAGE}) is taken apart into its
 * level and sshd's message: the message alone for sshd's own lines (logger {@code io.pqssh.sshd}), {@code LOGGER:
 * MESSAGE} for others. Any other line (a stack trace's, the server's own {@code pqssh server: ...}) is a message as
 * it stands, at INFO.
 */
abstract class LogLines extends OutputStream {
    private static final int MAX_LINE = 8192;
    private static final Pattern SIMPLE_LOGGER =
            Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (TRACE|DEBUG|INFO|WARN|ERROR) (\\S+) - (.*)$", Pattern.DOTALL);

    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    /** One log line: {@code level} is slf4j's name ({@code INFO} for a line not in the logger's layout). */
    protected abstract void line(String level, String message);

    @Override
    public synchronized void write(int b) {
        if (b == '\n') {
            String text = line.toString(StandardCharsets.UTF_8);
            line.reset();
            if (text.endsWith("\r")) {
                text = text.substring(0, text.length() - 1);
            }
            if (!text.isEmpty()) {
                Matcher m = SIMPLE_LOGGER.matcher(text);
                if (m.matches()) {
                    line(m.group(1), m.group(2).equals("io.pqssh.sshd") ? m.group(3) : m.group(2) + ": " + m.group(3));
                } else {
                    line("INFO", text);
                }
            }
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
}
