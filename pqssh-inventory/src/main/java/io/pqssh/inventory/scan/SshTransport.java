package io.pqssh.inventory.scan;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The unencrypted start of an SSH connection (RFC 4253 4.2 and 6): identification lines and binary packets before
 * NEWKEYS, read with strict bounds so that garbage and hostile peers end as {@link NotSshException}.
 */
public final class SshTransport {
    /** RFC 4253 4.2: the identification line is at most 255 bytes including CR LF. */
    public static final int MAX_LINE = 255;
    /** Lines a server may send before its identification (RFC 4253 4.2 allows some); OpenSSH's client allows 1024. */
    public static final int MAX_PRE_BANNER_LINES = 64;
    /** RFC 4253 6.1: implementations must handle packets up to 35000 bytes; the KEXINIT is far smaller. */
    public static final int MAX_PACKET = 35000;
    /** Packets (IGNORE, DEBUG) tolerated before the KEXINIT. */
    public static final int MAX_PACKETS_BEFORE_KEXINIT = 8;

    private static final SecureRandom RANDOM = new SecureRandom();

    private SshTransport() {
    }

    /** The input did not look like SSH. */
    public static class NotSshException extends IOException {
        private static final long serialVersionUID = 1L;

        public NotSshException(String message) {
            super(message);
        }
    }

    /**
     * OpenSSH's sshd (9.8+, {@code PerSourcePenalties}) answers a penalised source with the line
     * {@code Not allowed at this time} and closes: an SSH server that refuses us for now, not something else.
     */
    public static final class PenaltyRefusal extends NotSshException {
        private static final long serialVersionUID = 1L;

        public PenaltyRefusal() {
            super("Not allowed at this time");
        }
    }

    /** Server identification with the lines that came before it. */
    public record Banner(String line, String protoVersion, String software, String comments) {
        /** Parses {@code SSH-protoversion-softwareversion [comments]}. */
        public static Banner parse(String line) throws NotSshException {
            if (!line.startsWith("SSH-")) {
                throw new NotSshException("no SSH identification line");
            }
            int dash = line.indexOf('-', 4);
            if (dash < 0) {
                throw new NotSshException("malformed identification line '" + printable(line) + "'");
            }
            String proto = line.substring(4, dash);
            String rest = line.substring(dash + 1);
            int sp = rest.indexOf(' ');
            String sw = sp < 0 ? rest : rest.substring(0, sp);
            String comments = sp < 0 ? "" : rest.substring(sp + 1);
            if (!proto.equals("2.0") && !proto.equals("1.99")) {
                throw new NotSshException("SSH protocol version " + printable(proto) + " (only 2.0 is scanned)");
            }
            if (sw.isEmpty()) {
                throw new NotSshException("identification line without software version");
            }
            return new Banner(line, proto, sw, comments);
        }
    }

    /** Reads lines until {@code SSH-}; a non-SSH peer is reported from its first bytes. */
    public static Banner readBanner(InputStream in) throws IOException {
        for (int n = 0; n < MAX_PRE_BANNER_LINES; n++) {
            String line = readLine(in);
            if (line.startsWith("SSH-")) {
                return Banner.parse(line);
            }
            if (line.startsWith("Not allowed at this time")) {
                throw new PenaltyRefusal();
            }
            if (n == 0 && line.length() > 0 && !isPrintable(line)) {
                throw new NotSshException("binary data instead of an SSH identification line");
            }
        }
        throw new NotSshException("no SSH identification within " + MAX_PRE_BANNER_LINES + " lines");
    }

    private static String readLine(InputStream in) throws IOException {
        byte[] buf = new byte[MAX_LINE];
        int n = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new NotSshException(n == 0 ? "connection closed before an identification line"
                        : "connection closed in the middle of a line");
            }
            if (b == '\n') {
                int len = n > 0 && buf[n - 1] == '\r' ? n - 1 : n;
                return new String(buf, 0, len, StandardCharsets.ISO_8859_1);
            }
            if (b == 0) {
                throw new NotSshException("NUL byte before the identification line");
            }
            if (n == MAX_LINE) {
                throw new NotSshException("line longer than " + MAX_LINE + " bytes before the identification");
            }
            buf[n++] = (byte) b;
        }
    }

    /** Reads one unencrypted binary packet and returns its payload. */
    public static byte[] readPacket(InputStream in) throws IOException {
        byte[] head = readFully(in, 5, "packet header");
        long len = ((head[0] & 0xffL) << 24) | ((head[1] & 0xff) << 16) | ((head[2] & 0xff) << 8) | (head[3] & 0xff);
        int pad = head[4] & 0xff;
        if (len > MAX_PACKET) {
            throw new NotSshException("packet length " + len + " exceeds " + MAX_PACKET);
        }
        if (len < 12 || (len + 4) % 8 != 0) {
            throw new NotSshException("packet length " + len + " is not a valid unencrypted SSH packet length");
        }
        if (pad < 4 || pad > len - 2) {
            throw new NotSshException("padding length " + pad + " invalid for packet length " + len);
        }
        byte[] body = readFully(in, (int) len - 1, "packet body");
        return Arrays.copyOf(body, (int) len - 1 - pad);
    }

    /** Reads packets until the KEXINIT, skipping IGNORE (2) and DEBUG (4). */
    public static KexInit readKexInit(InputStream in) throws IOException {
        for (int i = 0; i < MAX_PACKETS_BEFORE_KEXINIT; i++) {
            byte[] payload = readPacket(in);
            if (payload.length == 0) {
                throw new NotSshException("empty packet payload");
            }
            int type = payload[0] & 0xff;
            if (type == 2 || type == 4) {
                continue;
            }
            if (type == 1) {
                throw new NotSshException("server disconnected before KEXINIT");
            }
            try {
                return KexInit.parse(payload);
            } catch (io.pqssh.core.wire.MalformedMessageException e) {
                throw new NotSshException("malformed KEXINIT: " + e.getMessage());
            }
        }
        throw new NotSshException("no KEXINIT within " + MAX_PACKETS_BEFORE_KEXINIT + " packets");
    }

    public static void writeBanner(OutputStream out, String softwareVersion) throws IOException {
        out.write(("SSH-2.0-" + softwareVersion + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Writes an unencrypted packet with random padding (block size 8). */
    public static void writePacket(OutputStream out, byte[] payload) throws IOException {
        int pad = 8 - ((payload.length + 5) % 8);
        if (pad < 4) {
            pad += 8;
        }
        int len = 1 + payload.length + pad;
        byte[] p = new byte[4 + len];
        p[0] = (byte) (len >>> 24);
        p[1] = (byte) (len >>> 16);
        p[2] = (byte) (len >>> 8);
        p[3] = (byte) len;
        p[4] = (byte) pad;
        System.arraycopy(payload, 0, p, 5, payload.length);
        byte[] padding = new byte[pad];
        RANDOM.nextBytes(padding);
        System.arraycopy(padding, 0, p, 5 + payload.length, pad);
        out.write(p);
        out.flush();
    }

    public static byte[] randomCookie() {
        byte[] c = new byte[16];
        RANDOM.nextBytes(c);
        return c;
    }

    private static byte[] readFully(InputStream in, int n, String what) throws IOException {
        byte[] b = new byte[n];
        int off = 0;
        while (off < n) {
            int r = in.read(b, off, n - off);
            if (r < 0) {
                throw new NotSshException("connection closed in the " + what + " (" + off + " of " + n + " bytes)");
            }
            off += r;
        }
        return b;
    }

    static boolean isPrintable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < 0x20 && c != '\t') || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }

    public static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 80; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.toString();
    }
}
