package io.pqssh.client.mux;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A Unix-domain stream socket driven through libc (FFM). The JDK's Unix-domain channels cannot pass file
 * descriptors (SCM_RIGHTS) and do not expose their own descriptor, and connection sharing needs both: a mux client
 * hands its stdin/stdout/stderr to the master. Blocking I/O throughout; {@link #readFully} never reads past what it
 * was asked for, because the bytes that carry descriptors follow a request directly in the stream and a read that
 * took them would drop the descriptors.
 */
public final class UnixSocket implements AutoCloseable {
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EEXIST = 17;
    static final int EINVAL = 22;
    static final int EPIPE = 32;
    static final int EADDRINUSE = 98;
    static final int ECONNREFUSED = 111;

    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_PEERCRED = 17;
    private static final int SCM_RIGHTS = 1;
    private static final int SHUT_RDWR = 2;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int MSG_CMSG_CLOEXEC = 0x40000000;
    static final short POLLIN = 0x1;
    static final short POLLERR = 0x8;
    static final short POLLHUP = 0x10;
    /** struct sockaddr_un: sa_family_t, then sun_path[108] (NUL-terminated here). */
    private static final int SOCKADDR_UN_SIZE = 110;
    /** ssh's limit: the path and its NUL must fit sun_path. */
    public static final int SUN_PATH_MAX = 108;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final java.lang.foreign.AddressLayout ADDR = ValueLayout.ADDRESS;
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle SOCKET = fn("socket", FunctionDescriptor.of(INT, INT, INT, INT));
    private static final MethodHandle BIND = fn("bind", FunctionDescriptor.of(INT, INT, ADDR, INT));
    private static final MethodHandle LISTEN = fn("listen", FunctionDescriptor.of(INT, INT, INT));
    private static final MethodHandle ACCEPT4 = fn("accept4", FunctionDescriptor.of(INT, INT, ADDR, ADDR, INT));
    private static final MethodHandle SOCKETPAIR = fn("socketpair", FunctionDescriptor.of(INT, INT, INT, INT, ADDR));
    private static final MethodHandle CONNECT = fn("connect", FunctionDescriptor.of(INT, INT, ADDR, INT));
    private static final MethodHandle READ = fn("read", FunctionDescriptor.of(LONG, INT, ADDR, LONG));
    private static final MethodHandle SEND = fn("send", FunctionDescriptor.of(LONG, INT, ADDR, LONG, INT));
    private static final MethodHandle WRITE = fn("write", FunctionDescriptor.of(LONG, INT, ADDR, LONG));
    private static final MethodHandle SENDMSG = fn("sendmsg", FunctionDescriptor.of(LONG, INT, ADDR, INT));
    private static final MethodHandle RECVMSG = fn("recvmsg", FunctionDescriptor.of(LONG, INT, ADDR, INT));
    private static final MethodHandle GETSOCKOPT = fn("getsockopt",
            FunctionDescriptor.of(INT, INT, INT, INT, ADDR, ADDR));
    private static final MethodHandle POLL = fn("poll", FunctionDescriptor.of(INT, ADDR, LONG, INT));
    private static final MethodHandle CLOSE = fn("close", FunctionDescriptor.of(INT, INT));
    private static final MethodHandle SHUTDOWN = fn("shutdown", FunctionDescriptor.of(INT, INT, INT));
    private static final MethodHandle OPEN = fn("open", FunctionDescriptor.of(INT, ADDR, INT));
    private static final MethodHandle DUP2 = fn("dup2", FunctionDescriptor.of(INT, INT, INT));
    private static final MethodHandle KILL = plain("kill", FunctionDescriptor.of(INT, INT, INT));
    private static final MethodHandle LINK = fn("link", FunctionDescriptor.of(INT, ADDR, ADDR));
    private static final MethodHandle UMASK = plain("umask", FunctionDescriptor.of(INT, INT));
    private static final MethodHandle GETUID = plain("getuid", FunctionDescriptor.of(INT));
    private static final MethodHandle STRERROR = plain("strerror", FunctionDescriptor.of(ADDR, INT));
    private static final MethodHandle IOCTL = LINKER.downcallHandle(LINKER.defaultLookup().find("ioctl").orElseThrow(),
            FunctionDescriptor.of(INT, INT, LONG, ADDR), Linker.Option.firstVariadicArg(2));
    private static final long TIOCGWINSZ = 0x5413;

    /** {@link #receiveFd}'s words when the peer closed without sending one. */
    public static final String CLOSED_BEFORE_FD = "recvmsg: connection closed before a file descriptor arrived";

    private final int fd;
    private volatile boolean closed;
    private volatile boolean stopping;

    private UnixSocket(int fd) {
        this.fd = fd;
    }

    private static MethodHandle fn(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d,
                Linker.Option.captureCallState("errno"));
    }

    private static MethodHandle plain(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d);
    }

    /** A failed system call: its errno and the C library's words for it (as ssh prints them). */
    public static final class SysError extends IOException {
        private static final long serialVersionUID = 1L;
        private final int errno;

        public SysError(String call, int errno) {
            super(call + ": " + strerror(errno));
            this.errno = errno;
        }

        public int errno() {
            return errno;
        }

        /** strerror's text alone, e.g. "No such file or directory". */
        public String reason() {
            return strerror(errno);
        }
    }

    static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    private static MemorySegment address(Arena a, Path path) throws IOException {
        byte[] p = path.toString().getBytes(StandardCharsets.UTF_8);
        if (p.length >= SUN_PATH_MAX) {
            throw new IOException("ControlPath too long ('" + path + "' >= " + SUN_PATH_MAX + " bytes)");
        }
        MemorySegment sa = a.allocate(SOCKADDR_UN_SIZE);
        sa.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(p, 0, sa, ValueLayout.JAVA_BYTE, 2, p.length);
        return sa;
    }

    private static int newSocket(Arena a, MemorySegment st) throws Throwable {
        int s = (int) SOCKET.invokeExact(st, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0) {
            throw new SysError("socket", errno(st));
        }
        return s;
    }

    /** A connected pair of Unix stream sockets (close-on-exec), as socketpair(2). */
    public static UnixSocket[] pair() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment fds = a.allocate(INT, 2);
            int rc = (int) SOCKETPAIR.invokeExact(st, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
            if (rc < 0) {
                throw new SysError("socketpair", errno(st));
            }
            return new UnixSocket[] {new UnixSocket(fds.getAtIndex(INT, 0)), new UnixSocket(fds.getAtIndex(INT, 1))};
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("socketpair: " + t, t);
        }
    }

    /** Connects to the socket at {@code path}; a {@link SysError} says why not (ENOENT, ECONNREFUSED ...). */
    public static UnixSocket connect(Path path) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment sa = address(a, path);
            int s = newSocket(a, st);
            int rc;
            do {
                rc = (int) CONNECT.invokeExact(st, s, sa, SOCKADDR_UN_SIZE);
            } while (rc < 0 && errno(st) == EINTR);
            if (rc < 0) {
                int e = errno(st);
                int ignored = (int) CLOSE.invokeExact(st, s);
                throw new SysError("connect", e);
            }
            return new UnixSocket(s);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("connect: " + t, t);
        }
    }

    /**
     * A listening socket at {@code path}, mode 0600 from its creation (umask 0177 around bind, as ssh), bound first
     * to a temporary name beside it and then hard-linked into place: a client never finds a socket that is not yet
     * listening, and an existing file at {@code path} is never replaced ({@code EEXIST}).
     */
    public static UnixSocket listen(Path path, String tempSuffix) throws IOException {
        Path temp = Path.of(path + "." + tempSuffix);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment sa = address(a, temp);
            MemorySegment target = a.allocateFrom(path.toString());
            MemorySegment tempName = a.allocateFrom(temp.toString());
            int s = newSocket(a, st);
            UnixSocket sock = new UnixSocket(s);
            try {
                int old = (int) UMASK.invokeExact(0177);
                int rc = (int) BIND.invokeExact(st, s, sa, SOCKADDR_UN_SIZE);
                int bindErrno = errno(st);
                int ignored = (int) UMASK.invokeExact(old);
                if (rc < 0) {
                    throw new SysError("bind", bindErrno);
                }
                try {
                    if ((int) LISTEN.invokeExact(st, s, 64) < 0) {
                        throw new SysError("listen", errno(st));
                    }
                    if ((int) LINK.invokeExact(st, tempName, target) < 0) {
                        throw new SysError("link", errno(st));
                    }
                } finally {
                    java.nio.file.Files.deleteIfExists(temp);
                }
                return sock;
            } catch (IOException | RuntimeException e) {
                sock.close();
                throw e;
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("listen: " + t, t);
        }
    }

    /** Waits up to {@code timeoutMillis} (-1: no limit) for input or hang-up; true when there is something. */
    public boolean poll(int timeoutMillis) throws IOException {
        return poll(fd, timeoutMillis);
    }

    static boolean poll(int fd, int timeoutMillis) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment p = a.allocate(8);
            p.set(INT, 0, fd);
            p.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
            int rc = (int) POLL.invokeExact(st, p, 1L, timeoutMillis);
            if (rc < 0) {
                if (errno(st) == EINTR) {
                    return false;
                }
                throw new SysError("poll", errno(st));
            }
            return rc > 0;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("poll: " + t, t);
        }
    }

    /**
     * Makes {@link #accept} return null within a quarter second; the accepting thread then closes the socket (closing
     * it here could hand its number to another open before that thread's next poll).
     */
    public void stopAccepting() {
        stopping = true;
    }

    /** The next connection; null once {@link #stopAccepting} was called. */
    public UnixSocket accept() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            while (!closed && !stopping) {
                if (!poll(fd, 250)) {
                    continue;
                }
                int c = (int) ACCEPT4.invokeExact(st, fd, MemorySegment.NULL, MemorySegment.NULL, SOCK_CLOEXEC);
                if (c >= 0) {
                    return new UnixSocket(c);
                }
                int e = errno(st);
                if (e != EINTR && e != EAGAIN && !closed && !stopping) {
                    throw new SysError("accept", e);
                }
            }
            return null;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("accept: " + t, t);
        }
    }

    /** The peer's uid (SO_PEERCRED): who is on the other end, whatever the socket file's mode said. */
    public int peerUid() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment cred = a.allocate(12); // struct ucred: pid, uid, gid
            MemorySegment len = a.allocate(INT);
            len.set(INT, 0, 12);
            if ((int) GETSOCKOPT.invokeExact(st, fd, SOL_SOCKET, SO_PEERCRED, cred, len) < 0) {
                throw new SysError("getsockopt SO_PEERCRED", errno(st));
            }
            return cred.get(INT, 4);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("getsockopt: " + t, t);
        }
    }

    /** The size of the terminal on {@code fd} as {columns, rows}, or null when it is not a terminal. */
    static int[] windowSize(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ws = a.allocate(8); // struct winsize: ws_row, ws_col, ws_xpixel, ws_ypixel
            int rc = (int) IOCTL.invokeExact(fd, TIOCGWINSZ, ws);
            if (rc != 0) {
                return null;
            }
            return new int[] {Short.toUnsignedInt(ws.get(ValueLayout.JAVA_SHORT, 2)),
                Short.toUnsignedInt(ws.get(ValueLayout.JAVA_SHORT, 0))};
        } catch (Throwable t) {
            return null;
        }
    }

    /** kill(2); false when it failed. */
    static boolean kill(long pid, int signal) {
        try {
            return (int) KILL.invokeExact((int) pid, signal) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /** This process's real uid. */
    public static int uid() {
        try {
            return (int) GETUID.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("getuid: " + t, t);
        }
    }

    /** Reads exactly {@code n} bytes; null at end of stream before the first byte, an error at end in between. */
    public byte[] readFully(int n) throws IOException {
        byte[] out = new byte[n];
        int have = readInto(fd, out, 0, n, true);
        if (have == 0 && n > 0) {
            return null;
        }
        if (have < n) {
            throw new SysError("read", EPIPE);
        }
        return out;
    }

    /** read(2) into {@code b}: the count (0 at end of stream). With {@code fully}, loops until {@code n} or EOF. */
    static int readInto(int fd, byte[] b, int off, int n, boolean fully) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment buf = a.allocate(Math.max(1, n));
            int have = 0;
            while (have < n) {
                long r = (long) READ.invokeExact(st, fd, buf.asSlice(have), (long) (n - have));
                if (r < 0) {
                    int e = errno(st);
                    if (e == EINTR) {
                        continue;
                    }
                    if (e == EAGAIN) {
                        poll(fd, 1000);
                        continue;
                    }
                    throw new SysError("read", e);
                }
                if (r == 0) {
                    break;
                }
                have += (int) r;
                if (!fully) {
                    break;
                }
            }
            MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, b, off, have);
            return have;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("read: " + t, t);
        }
    }

    /** Writes all of {@code b} (MSG_NOSIGNAL: a vanished peer is EPIPE here, not a signal). */
    public synchronized void write(byte[] b) throws IOException {
        if (closed) {
            throw new SysError("write", EPIPE); // never onto a number closed and perhaps reused
        }
        writeAll(fd, b, 0, b.length, true);
    }

    static void writeAll(int fd, byte[] b, int off, int len, boolean socket) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment buf = a.allocate(Math.max(1, len));
            MemorySegment.copy(b, off, buf, ValueLayout.JAVA_BYTE, 0, len);
            long done = 0;
            while (done < len) {
                long r = socket ? (long) SEND.invokeExact(st, fd, buf.asSlice(done), len - done, MSG_NOSIGNAL)
                        : (long) WRITE.invokeExact(st, fd, buf.asSlice(done), len - done);
                if (r < 0) {
                    int e = errno(st);
                    if (e == EINTR) {
                        continue;
                    }
                    if (e == EAGAIN) {
                        Thread.sleep(5); // a descriptor passed to us may be non-blocking
                        continue;
                    }
                    throw new SysError("write", e);
                }
                done += r;
            }
        } catch (IOException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("write interrupted", e);
        } catch (Throwable t) {
            throw new IOException("write: " + t, t);
        }
    }

    /** Passes {@code passed} to the peer: one byte of data carrying it as SCM_RIGHTS, as ssh's mm_send_fd. */
    public void sendFd(int passed) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment data = a.allocate(1);
            MemorySegment iov = iovec(a, data, 1);
            MemorySegment control = a.allocate(24, 8); // CMSG_SPACE(sizeof(int))
            control.set(LONG, 0, 20); // cmsg_len = CMSG_LEN(sizeof(int))
            control.set(INT, 8, SOL_SOCKET);
            control.set(INT, 12, SCM_RIGHTS);
            control.set(INT, 16, passed);
            MemorySegment msg = msghdr(a, iov, control);
            long r;
            do {
                r = (long) SENDMSG.invokeExact(st, fd, msg, MSG_NOSIGNAL);
            } while (r < 0 && (errno(st) == EINTR || errno(st) == EAGAIN));
            if (r != 1) {
                throw new SysError("sendmsg", r < 0 ? errno(st) : EPIPE);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("sendmsg: " + t, t);
        }
    }

    /** Receives one descriptor sent as {@link #sendFd} does; an error when the message carries none. */
    public int receiveFd() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            MemorySegment data = a.allocate(1);
            MemorySegment iov = iovec(a, data, 1);
            MemorySegment control = a.allocate(24, 8);
            MemorySegment msg = msghdr(a, iov, control);
            long r;
            do {
                r = (long) RECVMSG.invokeExact(st, fd, msg, MSG_CMSG_CLOEXEC);
            } while (r < 0 && (errno(st) == EINTR || errno(st) == EAGAIN));
            if (r < 0) {
                throw new SysError("recvmsg", errno(st));
            }
            if (r == 0) {
                throw new IOException(CLOSED_BEFORE_FD);
            }
            long controlLen = msg.get(LONG, 40);
            if (controlLen < 20 || control.get(INT, 8) != SOL_SOCKET || control.get(INT, 12) != SCM_RIGHTS
                    || control.get(LONG, 0) != 20) {
                throw new IOException("recvmsg: expected one file descriptor (SCM_RIGHTS), got none");
            }
            return control.get(INT, 16);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("recvmsg: " + t, t);
        }
    }

    private static MemorySegment iovec(Arena a, MemorySegment data, long len) {
        MemorySegment iov = a.allocate(16, 8);
        iov.set(ADDR, 0, data);
        iov.set(LONG, 8, len);
        return iov;
    }

    /** struct msghdr (x86-64/aarch64 Linux): name, namelen, iov, iovlen, control, controllen, flags; 56 bytes. */
    private static MemorySegment msghdr(Arena a, MemorySegment iov, MemorySegment control) {
        MemorySegment m = a.allocate(56, 8);
        m.set(ADDR, 16, iov);
        m.set(LONG, 24, 1L);
        m.set(ADDR, 32, control);
        m.set(LONG, 40, control.byteSize());
        return m;
    }

    /** Ends both directions now: a thread blocked reading this socket sees end of stream. */
    public synchronized void shutdown() {
        if (closed) {
            return; // the number may belong to another descriptor by now
        }
        shutdownFd(fd);
    }

    /**
     * shutdown(2) both directions of a socket this process owns: a thread polling it sees hang-up, one reading it end
     * of stream, one writing it EPIPE. Unlike close(2), the number stays this socket's, so no such thread can touch a
     * descriptor opened later under the same number.
     */
    public static void shutdownFd(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            int ignored = (int) SHUTDOWN.invokeExact(st, fd, SHUT_RDWR);
        } catch (Throwable t) {
            // closing follows anyway
        }
    }

    public int fd() {
        return fd;
    }

    /** A new descriptor open on /dev/null for reading and writing (close-on-exec). */
    static int openDevNull() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            int fd = (int) OPEN.invokeExact(st, a.allocateFrom("/dev/null"), 02 | 02000000); // O_RDWR|O_CLOEXEC
            if (fd < 0) {
                throw new SysError("open /dev/null", errno(st));
            }
            return fd;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("open: " + t, t);
        }
    }

    /**
     * Points stdin and stdout (and stderr unless {@code keepStderr}) at /dev/null, as ssh's background master does:
     * whoever started it and reads its output to the end is not held open by it. Best effort.
     */
    public static void stdioToDevNull(boolean keepStderr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            int fd = openDevNull();
            for (int target = 0; target <= (keepStderr ? 1 : 2); target++) {
                int ignored = (int) DUP2.invokeExact(st, fd, target);
            }
            closeFd(fd);
        } catch (Throwable t) {
            // still running; output then goes where it went
        }
    }

    /** Closes a descriptor received from a peer. */
    public static void closeFd(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            int ignored = (int) CLOSE.invokeExact(st, fd);
        } catch (Throwable t) {
            // nothing more to do
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            closeFd(fd);
        }
    }
}
