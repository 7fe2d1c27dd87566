package io.pqssh.mina.internal.log;

import java.nio.charset.StandardCharsets;

/**
 * Makes a peer-supplied string safe for a one-line log message, as sshd does with {@code strnvis} before it logs:
 * printable ASCII stays, a backslash is doubled, every other byte of the string's UTF-8 form (control characters,
 * DEL, non-ASCII) becomes {@code \xNN}. A newline or carriage return can therefore never start a forged line.
 */
public final class LogText {
    /** Longest escaped text kept; sshd truncates its fields too ({@code %.100s}, {@code %.200s}). */
    public static final int MAX_CHARS = 256;

    private LogText() {
    }

    public static String escape(String s) {
        if (s == null) {
            return "(null)";
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7F || c == '\\') {
                b = new StringBuilder(s.length() + 16).append(s, 0, i);
                appendEscaped(b, s.substring(i));
                break;
            }
        }
        String out = b == null ? s : b.toString();
        return out.length() <= MAX_CHARS ? out : out.substring(0, MAX_CHARS) + "...";
    }

    private static void appendEscaped(StringBuilder b, String rest) {
        for (byte x : rest.getBytes(StandardCharsets.UTF_8)) {
            int v = x & 0xFF;
            if (v == '\\') {
                b.append("\\\\");
            } else if (v >= 0x20 && v < 0x7F) {
                b.append((char) v);
            } else {
                b.append("\\x").append(Character.forDigit(v >> 4, 16)).append(Character.forDigit(v & 15, 16));
            }
        }
    }

    /**
     * Escapes only control characters (tab kept) and DEL as {@code \xNN}: for a whole log record written by code
     * that did not escape its arguments (MINA's own messages), so that one record stays one line.
     */
    public static String escapeControls(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean bad = c < 0x20 && c != '\t' || c == 0x7F;
            if (bad && b == null) {
                b = new StringBuilder(s.length() + 16).append(s, 0, i);
            }
            if (b != null) {
                if (bad) {
                    b.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? s : b.toString();
    }
}
