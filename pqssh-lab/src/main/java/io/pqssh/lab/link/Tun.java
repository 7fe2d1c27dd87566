package io.pqssh.lab.link;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** A TUN device (IFF_TUN | IFF_NO_PI: raw IP packets, no offloads) held open as a non-blocking fd. */
final class Tun implements AutoCloseable {
    final String name;
    final int fd;
    private volatile boolean closed;

    private Tun(String name, int fd) {
        this.name = name;
        this.fd = fd;
    }

    /** Opens /dev/net/tun and attaches it to a new device with this name (in the caller's namespace). */
    static Tun open(String name) throws IOException {
        if (name.length() > 15) {
            throw new IllegalArgumentException("interface name longer than 15 characters: " + name);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = Libc.newState(arena);
            int fd = Libc.open(st, arena.allocateFrom("/dev/net/tun"), Libc.O_RDWR | Libc.O_NONBLOCK | Libc.O_CLOEXEC);
            if (fd < 0) {
                throw Libc.error("open(/dev/net/tun)", st);
            }
            MemorySegment ifr = arena.allocate(Libc.IFREQ_SIZE);
            byte[] n = name.getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(n, 0, ifr, ValueLayout.JAVA_BYTE, 0, n.length);
            ifr.set(ValueLayout.JAVA_SHORT, 16, (short) (Libc.IFF_TUN | Libc.IFF_NO_PI));
            if (Libc.ioctl(st, fd, Libc.TUNSETIFF, ifr) < 0) {
                IOException e = Libc.error("ioctl(TUNSETIFF, " + name + ")", st);
                Libc.close(st, fd);
                throw e;
            }
            return new Tun(name, fd);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (Arena arena = Arena.ofConfined()) {
            Libc.close(Libc.newState(arena), fd);
        }
    }
}
