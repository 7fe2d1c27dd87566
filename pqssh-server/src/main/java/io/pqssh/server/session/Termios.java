package io.pqssh.server.session;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.apache.sshd.common.channel.PtyMode;

/**
 * The terminal modes and window size of a {@code pty-req} applied to the new pty (sshd's {@code tty_parse_modes}),
 * through its master ({@link SessionNative} makes the calls). Linux's generic termios layout and flag values (x86-64,
 * AArch64, and other little-endian ports with the asm-generic values); elsewhere the modes are left at the kernel's
 * defaults.
 */
final class Termios {
    private static final int IFLAG = 0;
    private static final int OFLAG = 4;
    private static final int CFLAG = 8;
    private static final int LFLAG = 12;
    private static final int CC = 17;
    private static final boolean GENERIC_LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT)
            .contains("linux") && java.util.List.of("amd64", "x86_64", "aarch64", "riscv64")
                    .contains(System.getProperty("os.arch", ""));

    /** c_cc index of each control character mode. */
    private static final Map<String, Integer> CHARS = new HashMap<>();
    /** field offset and bit of each flag mode. */
    private static final Map<String, int[]> FLAGS = new HashMap<>();

    static {
        String[] cc = {"VINTR", "VQUIT", "VERASE", "VKILL", "VEOF", "VTIME", "VMIN", "VSWTCH", "VSTART", "VSTOP",
            "VSUSP", "VEOL", "VREPRINT", "VDISCARD", "VWERASE", "VLNEXT", "VEOL2"};
        for (int i = 0; i < cc.length; i++) {
            CHARS.put(cc[i], i);
        }
        flag(IFLAG, 0004, "IGNPAR");
        flag(IFLAG, 0010, "PARMRK");
        flag(IFLAG, 0020, "INPCK");
        flag(IFLAG, 0040, "ISTRIP");
        flag(IFLAG, 0100, "INLCR");
        flag(IFLAG, 0200, "IGNCR");
        flag(IFLAG, 0400, "ICRNL");
        flag(IFLAG, 01000, "IUCLC");
        flag(IFLAG, 02000, "IXON");
        flag(IFLAG, 04000, "IXANY");
        flag(IFLAG, 010000, "IXOFF");
        flag(IFLAG, 020000, "IMAXBEL");
        flag(IFLAG, 040000, "IUTF8");
        flag(LFLAG, 01, "ISIG");
        flag(LFLAG, 02, "ICANON");
        flag(LFLAG, 04, "XCASE");
        flag(LFLAG, 010, "ECHO");
        flag(LFLAG, 020, "ECHOE");
        flag(LFLAG, 040, "ECHOK");
        flag(LFLAG, 0100, "ECHONL");
        flag(LFLAG, 0200, "NOFLSH");
        flag(LFLAG, 0400, "TOSTOP");
        flag(LFLAG, 01000, "ECHOCTL");
        flag(LFLAG, 02000, "ECHOPRT");
        flag(LFLAG, 04000, "ECHOKE");
        flag(LFLAG, 040000, "PENDIN");
        flag(LFLAG, 0100000, "IEXTEN");
        flag(OFLAG, 01, "OPOST");
        flag(OFLAG, 02, "OLCUC");
        flag(OFLAG, 04, "ONLCR");
        flag(OFLAG, 010, "OCRNL");
        flag(OFLAG, 020, "ONOCR");
        flag(OFLAG, 040, "ONLRET");
        flag(CFLAG, 0400, "PARENB");
        flag(CFLAG, 01000, "PARODD");
    }

    private Termios() {
    }

    private static void flag(int field, int bit, String name) {
        FLAGS.put(name, new int[] {field, bit});
    }

    /** Applies the modes of a pty-req to the terminal behind {@code fd} (the master applies to the slave). */
    static boolean applyModes(SessionFd master, Map<PtyMode, Integer> modes) {
        if (!GENERIC_LINUX || modes.isEmpty()) {
            return false;
        }
        return master.use(fd -> applyModes(fd, modes));
    }

    private static boolean applyModes(int fd, Map<PtyMode, Integer> modes) {
        byte[] raw = new byte[64];
        if (!SessionNative.tcgetattr(fd, raw)) {
            return false;
        }
        ByteBuffer t = ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder());
        for (Map.Entry<PtyMode, Integer> e : modes.entrySet()) {
            String name = e.getKey().name();
            int v = e.getValue();
            Integer cc = CHARS.get(name);
            int[] f = FLAGS.get(name);
            if (cc != null) {
                raw[CC + cc] = (byte) (v == 255 ? 0 : v); // 255 is "disabled" in the protocol, _POSIX_VDISABLE 0
            } else if (f != null) {
                int cur = t.getInt(f[0]);
                t.putInt(f[0], v != 0 ? cur | f[1] : cur & ~f[1]);
            } else if (name.equals("CS7") || name.equals("CS8")) {
                int cur = t.getInt(CFLAG) & ~0060;
                t.putInt(CFLAG, cur | (v != 0 ? (name.equals("CS8") ? 0060 : 0040) : 0060));
            } else if (name.equals("TTY_OP_ISPEED") || name.equals("TTY_OP_OSPEED")) {
                continue; // a pty has no line speed that matters; keep the kernel's
            }
        }
        return SessionNative.tcsetattr(fd, raw);
    }

    /** TIOCSWINSZ: rows and columns (the pixel sizes are not kept by MINA). */
    static boolean windowSize(SessionFd master, int columns, int rows) {
        if (!GENERIC_LINUX) {
            return false;
        }
        byte[] ws = new byte[8];
        ByteBuffer b = ByteBuffer.wrap(ws).order(ByteOrder.nativeOrder());
        b.putShort(0, (short) rows);
        b.putShort(2, (short) columns);
        return master.use(fd -> SessionNative.setWindowSize(fd, ws));
    }

}
