package io.pqssh.core.wire;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Reads RFC 4251 encodings from a byte array with strict bounds: every length is checked against what remains,
 * so a hostile length can neither read past the end nor make us allocate more than the input holds.
 */
public final class SshReader {
    private final byte[] data;
    private final int end;
    private int pos;

    public SshReader(byte[] data) {
        this(data, 0, data.length);
    }

    public SshReader(byte[] data, int offset, int length) {
        if (offset < 0 || length < 0 || offset > data.length - length) { // no int overflow
            throw new IllegalArgumentException("bad slice");
        }
        this.data = data;
        this.pos = offset;
        this.end = offset + length;
    }

    public int remaining() {
        return end - pos;
    }

    public int position() {
        return pos;
    }

    public int getByte() throws MalformedMessageException {
        need(1, "byte");
        return data[pos++] & 0xFF;
    }

    public boolean getBoolean() throws MalformedMessageException {
        return getByte() != 0;
    }

    public long getUint32() throws MalformedMessageException {
        need(4, "uint32");
        long v = ((long) (data[pos] & 0xFF) << 24) | ((data[pos + 1] & 0xFF) << 16)
                | ((data[pos + 2] & 0xFF) << 8) | (data[pos + 3] & 0xFF);
        pos += 4;
        return v;
    }

    public byte[] getString() throws MalformedMessageException {
        long len = getUint32();
        if (len > remaining()) {
            throw new MalformedMessageException("string length " + len + " exceeds the " + remaining() + " bytes left");
        }
        byte[] v = Arrays.copyOfRange(data, pos, pos + (int) len);
        pos += (int) len;
        return v;
    }

    /** A string that must decode as UTF-8 (names, user names); invalid sequences are an error, not replaced. */
    public String getUtf8() throws MalformedMessageException {
        byte[] raw = getString();
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            throw new MalformedMessageException("string is not valid UTF-8");
        }
    }

    public byte[] getRaw(int n) throws MalformedMessageException {
        need(n, "raw bytes");
        byte[] v = Arrays.copyOfRange(data, pos, pos + n);
        pos += n;
        return v;
    }

    /** Fails when bytes remain: every message and blob we parse has a fixed field list. */
    public void expectEnd(String what) throws MalformedMessageException {
        if (remaining() != 0) {
            throw new MalformedMessageException(what + ": " + remaining() + " unexpected trailing bytes");
        }
    }

    private void need(int n, String what) throws MalformedMessageException {
        if (n < 0 || remaining() < n) {
            throw new MalformedMessageException("truncated: " + what + " needs " + n + " bytes, " + remaining() + " left");
        }
    }
}
