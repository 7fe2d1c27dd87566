package io.pqssh.core.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Builds RFC 4251 encodings: byte, boolean, uint32, string. */
public final class SshWriter {
    private final ByteArrayOutputStream out;

    public SshWriter() {
        this(256);
    }

    public SshWriter(int initialCapacity) {
        this.out = new ByteArrayOutputStream(initialCapacity);
    }

    public SshWriter putByte(int value) {
        out.write(value & 0xFF);
        return this;
    }

    public SshWriter putBoolean(boolean value) {
        return putByte(value ? 1 : 0);
    }

    public SshWriter putUint32(long value) {
        out.write((int) (value >>> 24) & 0xFF);
        out.write((int) (value >>> 16) & 0xFF);
        out.write((int) (value >>> 8) & 0xFF);
        out.write((int) value & 0xFF);
        return this;
    }

    public SshWriter putString(byte[] value) {
        putUint32(value.length);
        out.writeBytes(value);
        return this;
    }

    public SshWriter putString(String value) {
        return putString(value.getBytes(StandardCharsets.UTF_8));
    }

    /** Appends bytes as they are, without a length prefix. */
    public SshWriter putRaw(byte[] value) {
        out.writeBytes(value);
        return this;
    }

    public int size() {
        return out.size();
    }

    public byte[] toByteArray() {
        return out.toByteArray();
    }
}
