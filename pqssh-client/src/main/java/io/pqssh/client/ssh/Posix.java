package io.pqssh.client.ssh;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** The few libc calls the client needs (FFM): isatty, setsid, raise, tcgetattr/tcsetattr. */
final class Posix {
    static final int SIGSTOP = 19;

    /** Linux's struct termios: four tcflag_t, c_line, c_cc[32], then c_ispeed/c_ospeed; 60 bytes. */
    static final int TERMIOS_SIZE = 60;
    static final int C_IFLAG = 0;
    static final int C_OFLAG = 4;
    static final int C_LFLAG = 12;
    static final int C_CC = 17;
    static final int VTIME = 5;
    static final int VMIN = 6;
    static final int IGNPAR = 0x4;
    static final int ISTRIP = 0x20;
    static final int INLCR = 0x40;
    static final int IGNCR = 0x80;
    static final int ICRNL = 0x100;
    static final int IUCLC = 0x200;
    static final int IXON = 0x400;
    static final int IXANY = 0x800;
    static final int IXOFF = 0x1000;
    static final int OPOST = 0x1;
    static final int ISIG = 0x1;
    static final int ICANON = 0x2;
    static final int ECHO = 0x8;
    static final int ECHOE = 0x10;
    static final int ECHOK = 0x20;
    static final int ECHONL = 0x40;
    static final int IEXTEN = 0x8000;
    private static final int TCSADRAIN = 1;
    private static final long TIOCGWINSZ = 0x5413;

    private static final Linker LINKER = Linker.nativeLinker();

    private Posix() {
    }

    private static MethodHandle fn(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d);
    }

    static boolean isatty(int fd) {
        try {
            return (int) fn("isatty", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT))
                    .invokeExact(fd) == 1;
        } catch (Throwable t) {
            return false;
        }
    }

    /** Leaves the controlling terminal's session (ssh -f's daemon()); -1 on failure. */
    static int setsid() {
        try {
            return (int) fn("setsid", FunctionDescriptor.of(ValueLayout.JAVA_INT)).invokeExact();
        } catch (Throwable t) {
            return -1;
        }
    }

    /** The terminal settings of {@code fd} as raw bytes, or null when it is not a terminal. */
    static byte[] tcgetattr(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(64);
            int rc = (int) fn("tcgetattr", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS)).invokeExact(fd, t);
            return rc == 0 ? t.asSlice(0, TERMIOS_SIZE).toArray(ValueLayout.JAVA_BYTE) : null;
        } catch (Throwable e) {
            return null;
        }
    }

    /** Sets terminal settings saved by {@link #tcgetattr} (after output drains); false on failure. */
    static boolean tcsetattr(int fd, byte[] termios) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(64);
            MemorySegment.copy(termios, 0, t, ValueLayout.JAVA_BYTE, 0, termios.length);
            return (int) fn("tcsetattr", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS)).invokeExact(fd, TCSADRAIN, t) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /** OpenSSH's enter_raw_mode applied to saved settings (the speeds and everything else kept). */
    static byte[] rawMode(byte[] saved) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(saved.clone()).order(java.nio.ByteOrder.nativeOrder());
        int i = b.getInt(C_IFLAG);
        i |= IGNPAR;
        i &= ~(ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXANY | IXOFF | IUCLC);
        b.putInt(C_IFLAG, i);
        b.putInt(C_LFLAG, b.getInt(C_LFLAG) & ~(ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHONL | IEXTEN));
        b.putInt(C_OFLAG, b.getInt(C_OFLAG) & ~OPOST);
        b.put(C_CC + VMIN, (byte) 1);
        b.put(C_CC + VTIME, (byte) 0);
        return b.array();
    }

    /** The column count of the terminal on {@code fd} (ioctl TIOCGWINSZ), or -1 when it is not a terminal. */
    static int columns(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ws = a.allocate(8); // struct winsize: ws_row, ws_col, ws_xpixel, ws_ypixel (unsigned short)
            int rc = (int) LINKER.downcallHandle(LINKER.defaultLookup().find("ioctl").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.ADDRESS), Linker.Option.firstVariadicArg(2)).invokeExact(fd, TIOCGWINSZ, ws);
            return rc == 0 ? Short.toUnsignedInt(ws.get(ValueLayout.JAVA_SHORT, 2)) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    static void raise(int signal) {
        try {
            int ignored = (int) fn("raise", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT))
                    .invokeExact(signal);
        } catch (Throwable t) {
            // nothing to do: the escape just does not suspend
        }
    }
}
