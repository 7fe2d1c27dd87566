package io.pqssh.mina.server.login;

/** Peer-supplied text made safe for one log line: control characters and non-ASCII as {@code \xNN}. */
public final class LogText {
    private LogText() {
    }

    public static String escape(String s) {
        if (s == null) {
            return "(null)";
        }
        StringBuilder b = new StringBuilder(Math.min(s.length(), 256) + 16);
        for (int i = 0; i < s.length() && i < 256; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '\\') {
                b.append(String.format("\\x%02x", (int) c & 0xffff));
            } else {
                b.append(c);
            }
        }
        if (s.length() > 256) {
            b.append("...");
        }
        return b.toString();
    }
}
