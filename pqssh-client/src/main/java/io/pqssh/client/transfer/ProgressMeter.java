package io.pqssh.client.transfer;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * OpenSSH's transfer progress line ({@code progressmeter.c}): file name, percent, bytes so far, rate and ETA on one
 * line rewritten after {@code \r}, once when the transfer starts, every second while it runs, and once at the end
 * (then a newline). Its width is the terminal's, as sftp's.
 */
public final class ProgressMeter implements AutoCloseable {
    static final long UPDATE_MS = 1000;
    private static final int STALL_SECONDS = 5;
    private static final String UNITS = " KMGT";

    /** Starts a meter for one file, or none. */
    public interface Factory {
        Factory NONE = (name, size, offset) -> null;

        ProgressMeter start(String name, long size, long offset);
    }

    private final PrintStream out;
    private final IntSupplier columns;
    private final String file;
    private final long startPos;
    private final long endPos;
    private final AtomicLong counter;
    private final long start;
    private final Thread ticker;
    private long lastUpdate;
    private long curPos;
    private double stalled;
    private long bytesPerSecond;

    private ProgressMeter(PrintStream out, IntSupplier columns, String file, long size, long offset) {
        this.out = out;
        this.columns = columns;
        this.file = file;
        this.startPos = offset;
        this.endPos = size;
        this.counter = new AtomicLong(offset);
        this.start = System.nanoTime();
        this.lastUpdate = start;
        refresh();
        this.ticker = Thread.ofPlatform().daemon().name("pqssh-sftp-progress").start(this::tick);
    }

    /** A factory printing to {@code out}, a terminal {@code columns} wide (80 when unknown, as sftp). */
    static Factory on(PrintStream out, IntSupplier columns) {
        return (name, size, offset) -> size == 0 ? null : new ProgressMeter(out, columns, name, size, offset);
    }

    /** The bytes of the file done so far (the resume offset included). */
    AtomicLong counter() {
        return counter;
    }

    private void tick() {
        try {
            while (true) {
                Thread.sleep(UPDATE_MS);
                refresh();
            }
        } catch (InterruptedException e) {
            // closed
        }
    }

    @Override
    public void close() {
        ticker.interrupt();
        try {
            ticker.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            if (curPos != endPos) {
                refresh();
            }
            out.print("\n");
            out.flush();
        }
    }

    private synchronized void refresh() {
        long now = System.nanoTime();
        long transferred = counter.get() - (curPos != 0 ? curPos : startPos);
        curPos = counter.get();
        long bytesLeft = endPos - curPos;
        double elapsed;
        if (bytesLeft > 0) {
            elapsed = (now - lastUpdate) / 1e9;
        } else {
            elapsed = (now - start) / 1e9;
            transferred = endPos - startPos;
            bytesPerSecond = 0;
        }
        long speed = elapsed != 0 ? (long) (transferred / elapsed) : transferred;
        bytesPerSecond = bytesPerSecond != 0 ? (long) (bytesPerSecond * 0.9 + speed * 0.1) : speed;
        if (transferred == 0) {
            stalled += elapsed;
        } else {
            stalled = 0;
        }
        int width = columns.getAsInt() > 0 ? Math.min(columns.getAsInt(), 512) : 80;
        out.print(line(width, file, curPos, endPos, bytesPerSecond, bytesLeft,
                stalled >= STALL_SECONDS, (long) elapsed));
        out.flush();
        lastUpdate = now;
    }

    /** One meter line for a terminal {@code width} columns wide, starting with {@code \r}. */
    static String line(int width, String file, long cur, long end, long bytesPerSecond, long bytesLeft,
            boolean stalled, long elapsedSeconds) {
        StringBuilder b = new StringBuilder();
        int fileLen = width + 1 - 36;
        if (fileLen > 0) {
            b.append('\r');
            String f = file.length() > fileLen ? file.substring(0, fileLen) : file;
            b.append(f).append(" ".repeat(fileLen - f.length()));
        }
        int percent = end == 0 || cur == end ? 100 : (int) ((float) cur / end * 100);
        b.append(String.format(" %3d%% ", percent));
        b.append(size(cur)).append(' ').append(rate(bytesPerSecond)).append("/s ");
        if (stalled) {
            b.append("- stalled -");
        } else if (bytesPerSecond == 0 && bytesLeft != 0) {
            b.append("  --:-- ETA");
        } else {
            long seconds = bytesLeft > 0 ? bytesLeft / bytesPerSecond : elapsedSeconds;
            long hours = seconds / 3600;
            seconds -= hours * 3600;
            long minutes = seconds / 60;
            seconds -= minutes * 60;
            b.append(hours != 0 ? String.format("%d:%02d:%02d", hours, minutes, seconds)
                    : String.format("  %02d:%02d", minutes, seconds));
            b.append(bytesLeft > 0 ? " ETA" : "    ");
        }
        return b.length() > width ? b.substring(0, width) : b.toString();
    }

    /** {@code format_size}: up to four digits and a unit. */
    static String size(long bytes) {
        int i = 0;
        for (; bytes >= 10000 && UNITS.charAt(i) != 'T'; i++) {
            bytes = (bytes + 512) / 1024;
        }
        return String.format("%4d%c%s", bytes, UNITS.charAt(i), i != 0 ? "B" : " ");
    }

    /** {@code format_rate}: one decimal, at least KB. */
    static String rate(long bytes) {
        bytes *= 100;
        int i = 0;
        for (; bytes >= 100 * 1000 && UNITS.charAt(i) != 'T'; i++) {
            bytes = (bytes + 512) / 1024;
        }
        if (i == 0) {
            i++;
            bytes = (bytes + 512) / 1024;
        }
        return String.format("%3d.%1d%c%s", (bytes + 5) / 100, (bytes + 5) / 10 % 10, UNITS.charAt(i),
                i != 0 ? "B" : " ");
    }
}
