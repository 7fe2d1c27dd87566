package io.pqssh.client.x11;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.MessageDigest;

import io.pqssh.common.forward.RelayChannel;

/**
 * ssh's {@code x11_open_helper}: the X client's connection setup (byte order, protocol and cookie lengths, protocol
 * name, cookie) must carry the fake cookie this client sent in {@code x11-req}; it is replaced by the real one before
 * the local X server sees it. Anything else is refused with ssh's message. One per x11 channel.
 */
final class X11AuthSpoof implements RelayChannel.Preamble {
    private static final int HEADER = 12;

    private final byte[] protocol;
    private final byte[] fake;
    private final byte[] real;
    private final ByteArrayOutputStream seen = new ByteArrayOutputStream();

    X11AuthSpoof(byte[] protocol, byte[] fake, byte[] real) {
        this.protocol = protocol;
        this.fake = fake;
        this.real = real;
    }

    @Override
    public byte[] feed(byte[] data, int off, int len) throws IOException {
        seen.write(data, off, len);
        byte[] b = seen.toByteArray();
        if (b.length < HEADER) {
            return null;
        }
        boolean msbFirst;
        if (b[0] == 'B') {
            msbFirst = true;
        } else if (b[0] == 'l') {
            msbFirst = false;
        } else {
            throw new IOException(String.format("Initial X11 packet contains bad byte order byte: 0x%x", b[0] & 0xff));
        }
        int protoLen = u16(b, 6, msbFirst);
        int dataLen = u16(b, 8, msbFirst);
        int dataAt = HEADER + pad4(protoLen);
        if (b.length < dataAt + pad4(dataLen)) {
            return null;
        }
        boolean protoOk = protoLen == protocol.length
                && MessageDigest.isEqual(java.util.Arrays.copyOfRange(b, HEADER, HEADER + protoLen), protocol);
        boolean cookieOk = dataLen == fake.length
                && MessageDigest.isEqual(java.util.Arrays.copyOfRange(b, dataAt, dataAt + dataLen), fake);
        if (!protoOk || !cookieOk) {
            throw new IOException("X11 connection rejected because of wrong authentication.");
        }
        System.arraycopy(real, 0, b, dataAt, real.length);
        return b;
    }

    private static int u16(byte[] b, int at, boolean msbFirst) {
        int hi = b[msbFirst ? at : at + 1] & 0xff;
        int lo = b[msbFirst ? at + 1 : at] & 0xff;
        return (hi << 8) | lo;
    }

    private static int pad4(int n) {
        return (n + 3) & ~3;
    }
}
