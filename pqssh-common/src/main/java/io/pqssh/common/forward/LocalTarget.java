package io.pqssh.common.forward;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Objects;

/** Where a forwarded channel's bytes go on this machine: a TCP {@code host:port} or a Unix-domain socket path. */
public abstract class LocalTarget {
    private LocalTarget() {
    }

    /** Connects (blocking). */
    public abstract SocketChannel connect() throws IOException;

    public static LocalTarget tcp(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        return new LocalTarget() {
            @Override
            public SocketChannel connect() throws IOException {
                return SocketChannel.open(new InetSocketAddress(host, port));
            }

            @Override
            public String toString() {
                return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
            }
        };
    }

    public static LocalTarget unix(Path socket) {
        Objects.requireNonNull(socket, "socket");
        return new LocalTarget() {
            @Override
            public SocketChannel connect() throws IOException {
                SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
                try {
                    c.connect(UnixDomainSocketAddress.of(socket));
                    return c;
                } catch (IOException | RuntimeException e) {
                    c.close();
                    throw e;
                }
            }

            @Override
            public String toString() {
                return socket.toString();
            }
        };
    }
}
