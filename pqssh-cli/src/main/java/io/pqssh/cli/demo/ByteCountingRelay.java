package io.pqssh.cli.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP relay that counts the bytes each side sends: the demo's way to report real on-the-wire sizes of a
 * login without packet capture. One connection at a time; each accepted connection resets the counters.
 */
public final class ByteCountingRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final AtomicLong clientToServer = new AtomicLong();
    private final AtomicLong serverToClient = new AtomicLong();
    private final Thread acceptor;
    private volatile boolean closed;

    public ByteCountingRelay(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        this.acceptor = Thread.ofVirtual().name("relay-accept").start(this::acceptLoop);
    }

    public int port() {
        return listener.getLocalPort();
    }

    public long clientToServerBytes() {
        return clientToServer.get();
    }

    public long serverToClientBytes() {
        return serverToClient.get();
    }

    public void reset() {
        clientToServer.set(0);
        serverToClient.set(0);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(target, 5000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                Thread.ofVirtual().start(() -> pump(client, server, clientToServer));
                Thread.ofVirtual().start(() -> pump(server, client, serverToClient));
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("relay: " + e.getMessage());
                }
            }
        }
    }

    private static void pump(Socket from, Socket to, AtomicLong counter) {
        byte[] buf = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
                counter.addAndGet(n);
            }
        } catch (IOException ignored) {
            // the peer closed; closing both ends below ends the other direction too
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        acceptor.interrupt();
    }
}
