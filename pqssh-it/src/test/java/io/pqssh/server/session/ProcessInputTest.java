package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import com.sun.jna.Memory;

/**
 * {@link ProcessInput} on a real pipe: the channel's packets reach the process's stdin whole and in order (packet
 * sizes below, at and above its reused 32 KiB arrays, and writes that split a packet), the window grows back only
 * for bytes the pipe has taken (a process that does not read keeps the client's window shut), EOF ends the pump
 * after the last byte, and a process that closed its stdin stops it.
 */
class ProcessInputTest {
    private static final int BUFFER = 64 * 1024;

    @Test
    void packetsArriveInOrderAndTheWindowGrowsBackOnlyForWhatThePipeTook() throws Exception {
        int[] pipe = SessionNative.pipe();
        AtomicLong released = new AtomicLong();
        ProcessInput in = new ProcessInput(released::addAndGet);
        SessionFd stdin = new SessionFd(pipe[1]);
        Thread pump = new Thread(() -> {
            try {
                in.pumpTo(stdin, BUFFER);
            } finally {
                stdin.close();
            }
        });
        pump.start();
        // sizes around the 32 KiB arrays and the 64 KiB writes; 2 MiB in all, far more than the pipe holds
        int[] sizes = {1, 100, 32 * 1024, 32 * 1024 + 1, 40_000, 65_536, 70_000, 32 * 1024 - 1};
        Random r = new Random(25);
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        for (int i = 0; sent.size() < 2 * 1024 * 1024; i++) {
            byte[] packet = new byte[sizes[i % sizes.length]];
            r.nextBytes(packet);
            // in the middle of a larger array, as MINA hands a packet's payload
            byte[] framed = new byte[packet.length + 20];
            System.arraycopy(packet, 0, framed, 13, packet.length);
            assertEquals(0, in.data(null, framed, 13, packet.length), "the window grows back in the pump, not here");
            sent.write(packet);
        }
        // nobody reads yet: what the window got back is what the pipe holds, not what was received
        long inPipe = waitForStable(released);
        assertTrue(inPipe > 0, "the pipe took nothing");
        assertTrue(inPipe < sent.size() / 2, "window released for " + inPipe + " of " + sent.size()
                + " bytes the process has not read");
        in.close();
        byte[] got = readAll(pipe[0]);
        pump.join(10_000);
        assertFalse(pump.isAlive(), "EOF did not end the pump");
        assertArrayEquals(sent.toByteArray(), got);
        assertEquals(sent.size(), released.get());
        SessionNative.close(pipe[0]);
    }

    @Test
    void aProcessThatClosedItsStdinStopsThePumpAndLaterDataIsDropped() throws Exception {
        int[] pipe = SessionNative.pipe();
        SessionNative.close(pipe[0]);
        AtomicLong released = new AtomicLong();
        ProcessInput in = new ProcessInput(released::addAndGet);
        SessionFd stdin = new SessionFd(pipe[1]);
        Thread pump = new Thread(() -> {
            try {
                in.pumpTo(stdin, BUFFER);
            } finally {
                stdin.close();
            }
        });
        pump.start();
        in.data(null, new byte[1000], 0, 1000);
        pump.join(10_000);
        assertFalse(pump.isAlive(), "a broken pipe did not stop the pump");
        assertEquals(0, released.get());
        assertEquals(0, in.data(null, new byte[1000], 0, 1000));
    }

    @Test
    void eofBeforeAnyDataEndsThePumpAtOnce() throws Exception {
        int[] pipe = SessionNative.pipe();
        ProcessInput in = new ProcessInput(n -> {
            throw new AssertionError("nothing to release");
        });
        in.close();
        SessionFd stdin = new SessionFd(pipe[1]);
        in.pumpTo(stdin, BUFFER);
        stdin.close();
        assertEquals(0, readAll(pipe[0]).length);
        SessionNative.close(pipe[0]);
    }

    /** The value once it has not changed for 300 ms. */
    private static long waitForStable(AtomicLong v) throws InterruptedException {
        long last = -1;
        for (int i = 0; i < 100; i++) {
            Thread.sleep(300);
            long now = v.get();
            if (now == last) {
                return now;
            }
            last = now;
        }
        return last;
    }

    private static byte[] readAll(int fd) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Memory buf = new Memory(BUFFER);
        for (int n; (n = SessionNative.read(fd, buf, BUFFER)) > 0;) {
            out.write(buf.getByteArray(0, n));
        }
        return out.toByteArray();
    }
}
