package io.pqssh.client.mux;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * One mux message body in SSH wire encoding (PROTOCOL.mux): uint32 and string fields; ssh's "bool" fields of
 * MUX_C_NEW_SESSION travel as uint32, as mux.c writes them. Reading past the end is a {@link MuxException}.
 */
final class MuxBuffer {
    private final byte[] data;
    private int pos;
    private final ByteArrayOutputStream out;

    private MuxBuffer(byte[] data) {
        this.data = data;
        this.out = null;
    }

    private MuxBuffer() {
        this.data = null;
        this.out = new ByteArrayOutputStream();
    }

    static MuxBuffer reading(byte[] body) {
        return new MuxBuffer(body);
    }

    static MuxBuffer writing(int type) {
        return new MuxBuffer().u32(type);
    }

    MuxBuffer u32(int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
        return this;
    }

    MuxBuffer string(byte[] s) {
        u32(s.length);
        out.write(s, 0, s.length);
        return this;
    }

    MuxBuffer string(String s) {
        return string(s.getBytes(StandardCharsets.UTF_8));
    }

    byte[] body() {
        return out.toByteArray();
    }

    /** The framed packet: uint32 length, then the body. */
    byte[] packet() {
        byte[] b = body();
        byte[] p = new byte[b.length + 4];
        p[0] = (byte) (b.length >>> 24);
        p[1] = (byte) (b.length >>> 16);
        p[2] = (byte) (b.length >>> 8);
        p[3] = (byte) b.length;
        System.arraycopy(b, 0, p, 4, b.length);
        return p;
    }

    int u32() throws MuxException {
        need(4);
        int v = ((data[pos] & 0xff) << 24) | ((data[pos + 1] & 0xff) << 16) | ((data[pos + 2] & 0xff) << 8)
                | (data[pos + 3] & 0xff);
        pos += 4;
        return v;
    }

    byte[] bytes() throws MuxException {
        int n = u32();
        if (n < 0) {
            throw new MuxException("malformed message: string longer than the message");
        }
        need(n);
        byte[] s = java.util.Arrays.copyOfRange(data, pos, pos + n);
        pos += n;
        return s;
    }

    String string() throws MuxException {
        return new String(bytes(), StandardCharsets.UTF_8);
    }

    boolean hasMore() {
        return pos < data.length;
    }

    private void need(int n) throws MuxException {
        if (data.length - pos < n) {
            throw new MuxException("malformed message");
        }
    }

    /** A mux protocol error: a malformed or unexpected message. */
    static final class MuxException extends IOException {
        private static final long serialVersionUID = 1L;

        MuxException(String message) {
            super(message);
        }
    }
}
