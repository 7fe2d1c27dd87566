package io.pqssh.core.keys.authorized;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Lines of a file someone else may have written (a user's {@code authorized_keys} read by a root server), read
 * with bounded memory: at most {@code maxLineBytes} of a line are kept; a longer line is skipped to its end and
 * reported as too long, so a sparse 512 MB file with no newline costs one buffer, not 512 MB. Lines end at
 * {@code \n}; a {@code \r} before it is dropped; bytes are decoded as UTF-8.
 */
public final class BoundedLines implements Closeable {
    /**
     * The cap pqssh applies to authorized_keys-like files: four times OpenSSH's historical per-line limit
     * {@code SSH_MAX_PUBKEY_BYTES} (16 KiB), room for ML-DSA-87 keys with long {@code command=} options.
     */
    public static final int MAX_LINE_BYTES = 64 * 1024;

    /** One line: its 1-based number, its text (null when too long), and whether it was cut. */
    public record Line(long number, String text, boolean tooLong) {
    }

    private final InputStream in;
    private final int maxLineBytes;
    private final byte[] buffer = new byte[8192];
    private int pos;
    private int limit;
    /** Grows up to maxLineBytes as long lines need it, never beyond. */
    private byte[] lineBuf;
    private long number;

    public BoundedLines(InputStream in, int maxLineBytes) {
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("maxLineBytes must be positive: " + maxLineBytes);
        }
        this.in = in;
        this.maxLineBytes = maxLineBytes;
        this.lineBuf = new byte[Math.min(maxLineBytes, 1024)];
    }

    public static BoundedLines open(Path file) throws IOException {
        return new BoundedLines(Files.newInputStream(file), MAX_LINE_BYTES);
    }

    /** The next line, or null at the end of the input. */
    public Line next() throws IOException {
        int length = 0;
        boolean tooLong = false;
        boolean any = false;
        while (true) {
            if (pos == limit) {
                limit = in.read(buffer, 0, buffer.length);
                pos = 0;
                if (limit <= 0) {
                    limit = 0;
                    if (!any) {
                        return null;
                    }
                    break;
                }
            }
            any = true;
            int start = pos;
            int nl = -1;
            for (int i = pos; i < limit; i++) {
                if (buffer[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            int end = nl >= 0 ? nl : limit;
            if (!tooLong) {
                int n = end - start;
                if (length + n > maxLineBytes) {
                    tooLong = true;
                    length = 0;
                } else {
                    ensure(length + n);
                    System.arraycopy(buffer, start, lineBuf, length, n);
                    length += n;
                }
            }
            pos = nl >= 0 ? nl + 1 : limit;
            if (nl >= 0) {
                break;
            }
        }
        number++;
        if (tooLong) {
            return new Line(number, null, true);
        }
        if (length > 0 && lineBuf[length - 1] == '\r') {
            length--;
        }
        return new Line(number, new String(lineBuf, 0, length, StandardCharsets.UTF_8), false);
    }

    private void ensure(int capacity) {
        if (capacity > lineBuf.length) {
            byte[] bigger = new byte[Math.min(maxLineBytes, Math.max(capacity, lineBuf.length * 2))];
            System.arraycopy(lineBuf, 0, bigger, 0, lineBuf.length);
            lineBuf = bigger;
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
