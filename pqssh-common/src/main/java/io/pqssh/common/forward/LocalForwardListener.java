package io.pqssh.common.forward;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.ObjIntConsumer;

import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * A local listener (TCP or Unix-domain socket) whose every connection becomes an {@link OutgoingRelayChannel}: what
 * ssh's {@code -L} does where MINA's forwarder cannot (a Unix-socket listener, a
 * {@code direct-streamlocal@openssh.com} target), and ssh's {@code -D} (a SOCKS request first, see
 * {@link SocksConnection}), which MINA's forwarder serves without half-close. Closing it stops accepting and, for a
 * Unix socket, removes the file it created.
 */
public final class LocalForwardListener implements Closeable {
    private final ServerSocketChannel server;
    private final Path socketFile;
    private volatile boolean closed;

    private LocalForwardListener(ServerSocketChannel server, Path socketFile) {
        this.server = server;
        this.socketFile = socketFile;
    }

    /** What a forwarded connection is opened as: the channel type and its type-specific open fields. */
    public static final class Opening {
        private final String type;
        private final Consumer<Buffer> data;

        private Opening(String type, Consumer<Buffer> data) {
            this.type = type;
            this.data = data;
        }

        /** {@code direct-tcpip} to {@code host:port}; the originator is given as ssh gives it for a Unix listener. */
        public static Opening directTcpip(String host, int port) {
            return directTcpip(host, port, "127.0.0.1", 0);
        }

        /** {@code direct-tcpip} to {@code host:port} for a connection from {@code originHost:originPort}. */
        static Opening directTcpip(String host, int port, String originHost, int originPort) {
            return new Opening("direct-tcpip", b -> {
                b.putString(host);
                b.putUInt(port);
                b.putString(originHost);
                b.putUInt(originPort);
            });
        }

        /** {@code forwarded-tcpip} for a connection to the peer-requested listener {@code address:port}. */
        public static Opening forwardedTcpip(String address, int port) {
            return new Opening("forwarded-tcpip", b -> {
                b.putString(address);
                b.putUInt(port);
                b.putString("127.0.0.1"); // originator
                b.putUInt(0);
            });
        }

        String type() {
            return type;
        }

        void write(Buffer b) {
            data.accept(b);
        }

        /** {@code forwarded-streamlocal@openssh.com} for a connection to the server's socket {@code path}. */
        public static Opening forwardedStreamLocal(String path) {
            return new Opening("forwarded-streamlocal@openssh.com", b -> {
                b.putString(path);
                b.putString(""); // reserved
            });
        }

        /** {@code direct-streamlocal@openssh.com} to the peer's socket {@code path} (PROTOCOL section 2.4). */
        public static Opening directStreamLocal(String path) {
            return new Opening("direct-streamlocal@openssh.com", b -> {
                b.putString(path);
                b.putString(""); // reserved
                b.putUInt(0); // reserved
            });
        }
    }

    /** Listens on a TCP address. */
    public static LocalForwardListener tcp(Session session, SocketAddress bind, Opening opening,
            Consumer<String> warn) throws IOException {
        return start(session, bindTcp(bind), null, opening, warn);
    }

    /**
     * ssh's dynamic forwarding ({@code -D}): listens on a TCP address; each connection is a SOCKS4/4a/5 request
     * (see {@link SocksConnection}) answered by a {@code direct-tcpip} channel to where it asks.
     *
     * @param debug gets ssh's {@code -v} lines with their level (1 or 2)
     */
    public static LocalForwardListener socks(Session session, SocketAddress bind, Consumer<String> warn,
            ObjIntConsumer<String> debug) throws IOException {
        ServerSocketChannel s = bindTcp(bind);
        int port = ((InetSocketAddress) s.getLocalAddress()).getPort();
        return start(session, s, null, c -> SocksConnection.start(session, c, port, warn, debug));
    }

    private static ServerSocketChannel bindTcp(SocketAddress bind) throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open();
        try {
            s.bind(bind);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        return s;
    }

    /**
     * Listens on a Unix-domain socket {@code path} with mode {@code 0777 & ~mask} (ssh's StreamLocalBindMask,
     * default 0177: owner only); an existing file there is an error unless {@code unlink} (StreamLocalBindUnlink).
     * Java cannot set the umask that ssh sets around bind(2), so the socket is bound inside a fresh owner-only
     * directory beside {@code path}, given its mode there, and only then linked to {@code path} (link(2), which
     * fails if {@code path} exists): nobody can reach it before its mode is final.
     */
    public static LocalForwardListener unix(Session session, Path path, int mask, boolean unlink, Opening opening,
            Consumer<String> warn) throws IOException {
        if (unlink) {
            Files.deleteIfExists(path);
        }
        Path parent = path.toAbsolutePath().getParent();
        Path dir;
        try {
            dir = Files.createTempDirectory(parent, ".pqssh-bind-", java.nio.file.attribute.PosixFilePermissions
                    .asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new IOException("unix_listener: cannot bind to path " + path + ": " + e.getMessage(), e);
        }
        Path staged = dir.resolve("s");
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            s.bind(UnixDomainSocketAddress.of(staged));
            Files.setPosixFilePermissions(staged, mode(mask));
            try {
                Files.createLink(path, staged);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                throw new IOException("unix_listener: cannot bind to path " + path + ": Address already in use", e);
            }
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        } finally {
            Files.deleteIfExists(staged);
            Files.deleteIfExists(dir);
        }
        return start(session, s, path, opening, warn);
    }

    /**
     * Accepts on a Unix-domain socket the caller has bound (and given its owner and mode); closing the listener
     * removes {@code socketFile}.
     */
    public static LocalForwardListener bound(Session session, ServerSocketChannel s, Path socketFile, Opening opening,
            Consumer<String> warn) {
        return start(session, s, socketFile, opening, warn);
    }

    static Set<PosixFilePermission> mode(int mask) {
        Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_READ};
        int m = 0777 & ~mask;
        for (int i = 0; i < bits.length; i++) {
            if ((m & (1 << i)) != 0) {
                out.add(bits[i]);
            }
        }
        return out;
    }

    /** What the acceptor does with one accepted connection (it owns the connection from then on). */
    private interface Accepted {
        void serve(SocketChannel c) throws IOException;
    }

    private static LocalForwardListener start(Session session, ServerSocketChannel s, Path file, Opening opening,
            Consumer<String> warn) {
        return start(session, s, file, c -> relay(session, c, opening, new byte[0], new byte[0], warn, t -> {
        }));
    }

    private static LocalForwardListener start(Session session, ServerSocketChannel s, Path file, Accepted accepted) {
        LocalForwardListener l = new LocalForwardListener(s, file);
        Thread acceptor = new Thread(() -> {
            while (!l.closed && session.isOpen()) {
                SocketChannel c;
                try {
                    c = s.accept();
                } catch (IOException e) {
                    break; // closed
                }
                try {
                    accepted.serve(c);
                } catch (IOException | RuntimeException e) {
                    closeQuietly(c);
                    if (!session.isOpen()) {
                        break;
                    }
                }
            }
            l.close();
        }, "forward-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        session.addCloseFutureListener(f -> l.close());
        return l;
    }

    /**
     * Opens an {@link OutgoingRelayChannel} for {@code c} (see its constructor for {@code toLocalOnOpen} and
     * {@code toPeerFirst}); a refused open is reported as ssh reports it, handed to {@code refused} (the failure,
     * an {@code SshChannelOpenException} when the peer refused) and then closes {@code c}.
     */
    static OutgoingRelayChannel relay(Session session, SocketChannel c, Opening opening, byte[] toLocalOnOpen,
            byte[] toPeerFirst, Consumer<String> warn, Consumer<Throwable> refused) throws IOException {
        OutgoingRelayChannel ch = new OutgoingRelayChannel(opening.type, opening.data, c, toLocalOnOpen,
                toPeerFirst);
        session.getService(ConnectionService.class).registerChannel(ch);
        ch.open().addListener(f -> {
            if (!f.isOpened()) {
                Throwable t = f.getException();
                String line = OpenFailure.line(t);
                warn.accept(line != null ? line : "channel " + ch.getChannelId() + ": open failed: "
                        + (t == null ? "refused" : t.getMessage()));
                refused.accept(t);
                closeQuietly(c);
            }
        });
        return ch;
    }

    static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // already closed
        }
    }

    /** The bound address (a TCP port chosen by the system when 0 was asked). */
    public SocketAddress boundAddress() throws IOException {
        return server.getLocalAddress();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // already closed
        }
        if (socketFile != null) {
            try {
                Files.deleteIfExists(socketFile);
            } catch (IOException e) {
                // it is gone or not ours to remove any more
            }
        }
    }
}
