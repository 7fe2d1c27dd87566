package io.pqssh.lab.link;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/** The few libc calls the link emulator needs, through the FFM API (no JNI). Every call captures errno. */
final class Libc {
    static final int O_RDWR = 2;
    static final int O_NONBLOCK = 04000;
    static final int O_CLOEXEC = 02000000;
    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;
    static final short POLLIN = 0x001;
    static final int EAGAIN = 11;
    static final int EINTR = 4;
    static final long TUNSETIFF = 0x400454CAL;
    static final short IFF_TUN = 0x0001;
    static final short IFF_NO_PI = 0x1000;
    static final int IFREQ_SIZE = 40;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");

    private static final MethodHandle OPEN = handle("open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle IOCTL = handle("ioctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle READ = handle("read",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle WRITE = handle("write",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = handle("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle EVENTFD = handle("eventfd",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle PPOLL = handle("ppoll",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
                    ValueLayout.ADDRESS));

    private static final MethodHandle SCHED_SETSCHEDULER = handle("sched_setscheduler",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    static final int SCHED_FIFO = 1;

    private Libc() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... extra) {
        Linker.Option[] opts = new Linker.Option[extra.length + 1];
        System.arraycopy(extra, 0, opts, 0, extra.length);
        opts[extra.length] = CAPTURE;
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return LINKER.downcallHandle(sym, fd, opts);
    }

    /** Per-thread scratch: the errno capture segment. */
    static MemorySegment newState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    static IOException error(String what, MemorySegment state) {
        int e = errno(state);
        return new IOException(what + " failed: errno " + e + describe(e));
    }

    private static String describe(int e) {
        return switch (e) {
            case 1 -> " (EPERM: needs root or CAP_NET_ADMIN)";
            case 2 -> " (ENOENT: no /dev/net/tun?)";
            case 13 -> " (EACCES)";
            case 16 -> " (EBUSY: device name in use)";
            case 19 -> " (ENODEV: no TUN support in this kernel)";
            case 22 -> " (EINVAL)";
            default -> "";
        };
    }

    static int open(MemorySegment state, MemorySegment path, int flags) {
        try {
            return (int) OPEN.invokeExact(state, path, flags, 0);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static int ioctl(MemorySegment state, int fd, long request, MemorySegment arg) {
        try {
            return (int) IOCTL.invokeExact(state, fd, request, arg);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static long read(MemorySegment state, int fd, MemorySegment buf, long n) {
        try {
            return (long) READ.invokeExact(state, fd, buf, n);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static long write(MemorySegment state, int fd, MemorySegment buf, long n) {
        try {
            return (long) WRITE.invokeExact(state, fd, buf, n);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static int close(MemorySegment state, int fd) {
        try {
            return (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static int eventfd(MemorySegment state, int init, int flags) {
        try {
            return (int) EVENTFD.invokeExact(state, init, flags);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** sched_setscheduler(0 = calling thread, policy, {priority}); returns 0 or -1. */
    static int setSchedulerForThisThread(MemorySegment state, int policy, int priority) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param = arena.allocate(ValueLayout.JAVA_INT);
            param.set(ValueLayout.JAVA_INT, 0, priority);
            return (int) SCHED_SETSCHEDULER.invokeExact(state, 0, policy, param);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** ppoll(fds, n, timeout or NULL for infinite, NULL sigmask). */
    static int ppoll(MemorySegment state, MemorySegment fds, long n, MemorySegment timespec) {
        try {
            return (int) PPOLL.invokeExact(state, fds, n, timespec, MemorySegment.NULL);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
