package io.pqssh.server.daemon;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The libc calls a detached server needs that the JDK lacks (FFM): setsid, dup2 onto stdio, and AF_UNIX datagram
 * sockets (the JDK's DatagramChannel has no Unix-domain support; syslog's {@code /dev/log} is a datagram socket).
 */
public final class Libc {
    private static final int AF_UNIX = 1;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int O_RDWR = 2;
    private static final int SOL_SOCKET = 1;
    private static final int SO_RCVTIMEO = 20;
    /** struct sockaddr_un: sa_family_t (2 bytes), then sun_path[108]. */
    private static final int SOCKADDR_UN_SIZE = 110;
    private static final int SUN_PATH_MAX = 107;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private Libc() {
    }

    private static MethodHandle fn(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d);
    }

    /** Leaves the controlling terminal's session: a new session and process group, no controlling terminal. */
    public static long setsid() throws IOException {
        long sid;
        try {
            sid = (int) fn("setsid", FunctionDescriptor.of(INT)).invokeExact();
        } catch (Throwable t) {
            throw new IOException("setsid: " + t, t);
        }
        if (sid < 0) {
            throw new IOException("setsid failed (is this process a process group leader?)");
        }
        return sid;
    }

    /**
     * sshd's start-up step: the process umask keeps its bits and gains at least group and world write (022), so
     * an admin who starts the server under umask 000 does not hand sessions world-writable files. Returns the
     * new umask.
     */
    public static int restrictUmask() throws IOException {
        try {
            MethodHandle umask = fn("umask", FunctionDescriptor.of(INT, INT));
            int old = (int) umask.invokeExact(0077);
            int next = old | 0022;
            int ignored = (int) umask.invokeExact(next);
            return next;
        } catch (Throwable t) {
            throw new IOException("umask: " + t, t);
        }
    }

    /** Points file descriptors 0, 1 and 2 at /dev/null (daemon(3)'s last step). */
    public static void stdioToDevNull() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            int fd = (int) fn("open", FunctionDescriptor.of(INT, ValueLayout.ADDRESS, INT))
                    .invokeExact(a.allocateFrom("/dev/null"), O_RDWR);
            if (fd < 0) {
                throw new IOException("open /dev/null failed");
            }
            MethodHandle dup2 = fn("dup2", FunctionDescriptor.of(INT, INT, INT));
            for (int target = 0; target <= 2; target++) {
                if ((int) dup2.invokeExact(fd, target) < 0) {
                    throw new IOException("dup2 onto " + target + " failed");
                }
            }
            if (fd > 2) {
                close(fd);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("stdio to /dev/null: " + t, t);
        }
    }

    /** A new AF_UNIX datagram socket (close-on-exec, so session processes never inherit it). */
    public static int datagramSocket() throws IOException {
        int fd;
        try {
            fd = (int) fn("socket", FunctionDescriptor.of(INT, INT, INT, INT)).invokeExact(AF_UNIX,
                    SOCK_DGRAM | SOCK_CLOEXEC, 0);
        } catch (Throwable t) {
            throw new IOException("socket: " + t, t);
        }
        if (fd < 0) {
            throw new IOException("socket(AF_UNIX, SOCK_DGRAM) failed");
        }
        return fd;
    }

    /** Sends one datagram to the socket bound at {@code path}; false when nothing listens there. */
    public static boolean sendTo(int fd, byte[] message, Path path) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment addr = sockaddr(a, path);
            MemorySegment buf = a.allocate(Math.max(1, message.length));
            MemorySegment.copy(message, 0, buf, ValueLayout.JAVA_BYTE, 0, message.length);
            long n = (long) fn("sendto", FunctionDescriptor.of(LONG, INT, ValueLayout.ADDRESS, LONG, INT,
                    ValueLayout.ADDRESS, INT)).invokeExact(fd, buf, (long) message.length, 0, addr, SOCKADDR_UN_SIZE);
            return n == message.length;
        } catch (Throwable t) {
            return false;
        }
    }

    /** Binds a datagram socket to {@code path} (a syslog daemon's side: used by the tests). */
    public static void bind(int fd, Path path) throws IOException {
        int rc;
        try (Arena a = Arena.ofConfined()) {
            rc = (int) fn("bind", FunctionDescriptor.of(INT, INT, ValueLayout.ADDRESS, INT))
                    .invokeExact(fd, sockaddr(a, path), SOCKADDR_UN_SIZE);
        } catch (Throwable t) {
            throw new IOException("bind " + path + ": " + t, t);
        }
        if (rc != 0) {
            throw new IOException("bind " + path + " failed");
        }
    }

    /** Receives one datagram, waiting at most {@code timeoutMillis}; null on timeout. */
    public static byte[] receive(int fd, int timeoutMillis) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment tv = a.allocate(16);
            tv.set(LONG, 0, timeoutMillis / 1000);
            tv.set(LONG, 8, (timeoutMillis % 1000) * 1000L);
            int rc = (int) fn("setsockopt", FunctionDescriptor.of(INT, INT, INT, INT, ValueLayout.ADDRESS, INT))
                    .invokeExact(fd, SOL_SOCKET, SO_RCVTIMEO, tv, 16);
            if (rc != 0) {
                throw new IOException("setsockopt SO_RCVTIMEO failed");
            }
            MemorySegment buf = a.allocate(65536);
            long n = (long) fn("recv", FunctionDescriptor.of(LONG, INT, ValueLayout.ADDRESS, LONG, INT))
                    .invokeExact(fd, buf, 65536L, 0);
            return n < 0 ? null : buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("recv: " + t, t);
        }
    }

    public static void close(int fd) {
        try {
            int ignored = (int) fn("close", FunctionDescriptor.of(INT, INT)).invokeExact(fd);
        } catch (Throwable t) {
            // nothing to do about a descriptor that does not close
        }
    }

    private static MemorySegment sockaddr(Arena a, Path path) throws IOException {
        byte[] p = path.toString().getBytes(StandardCharsets.UTF_8);
        if (p.length > SUN_PATH_MAX) {
            throw new IOException("socket path too long (max " + SUN_PATH_MAX + " bytes): " + path);
        }
        MemorySegment s = a.allocate(SOCKADDR_UN_SIZE);
        s.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(p, 0, s, ValueLayout.JAVA_BYTE, 2, p.length);
        return s;
    }
}
