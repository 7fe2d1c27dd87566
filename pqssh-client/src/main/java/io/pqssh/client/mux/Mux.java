package io.pqssh.client.mux;

import java.io.IOException;

/** PROTOCOL.mux's numbers, and reading and writing its framed packets on a {@link UnixSocket}. */
final class Mux {
    static final int VERSION = 4;

    static final int MSG_HELLO = 0x00000001;
    static final int C_NEW_SESSION = 0x10000002;
    static final int C_ALIVE_CHECK = 0x10000004;
    static final int C_TERMINATE = 0x10000005;
    static final int C_OPEN_FWD = 0x10000006;
    static final int C_CLOSE_FWD = 0x10000007;
    static final int C_NEW_STDIO_FWD = 0x10000008;
    static final int C_STOP_LISTENING = 0x10000009;
    static final int C_PROXY = 0x1000000f;
    /** OpenSSH 10.3's "info" extension ({@code ssh -O conninfo|channels}): request and reply. */
    static final int C_EXT_INFO = 0x20000001;
    static final int S_EXT_INFO = 0x90000001;
    static final String EXT_INFO = "info";
    static final int S_OK = 0x80000001;
    static final int S_PERMISSION_DENIED = 0x80000002;
    static final int S_FAILURE = 0x80000003;
    static final int S_EXIT_MESSAGE = 0x80000004;
    static final int S_ALIVE = 0x80000005;
    static final int S_SESSION_OPENED = 0x80000006;
    static final int S_REMOTE_PORT = 0x80000007;
    static final int S_TTY_ALLOC_FAIL = 0x80000008;
    static final int S_PROXY = 0x8000000f;

    /** ssh's "no escape character" in MUX_C_NEW_SESSION. */
    static final int NO_ESCAPE = 0xffffffff;
    /** A packet larger than this is refused (ssh's channel code caps mux packets near 256 KiB too). */
    static final int MAX_PACKET = 256 * 1024;

    private Mux() {
    }

    /** The next packet's body; null at a clean end of stream. */
    static byte[] read(UnixSocket s) throws IOException {
        byte[] len = s.readFully(4);
        if (len == null) {
            return null;
        }
        int n = ((len[0] & 0xff) << 24) | ((len[1] & 0xff) << 16) | ((len[2] & 0xff) << 8) | (len[3] & 0xff);
        if (n < 4 || n > MAX_PACKET) {
            throw new MuxBuffer.MuxException("bad mux packet length " + Integer.toUnsignedString(n));
        }
        byte[] body = s.readFully(n);
        if (body == null) {
            throw new MuxBuffer.MuxException("connection closed inside a mux packet");
        }
        return body;
    }

    static void write(UnixSocket s, MuxBuffer m) throws IOException {
        s.write(m.packet());
    }
}
