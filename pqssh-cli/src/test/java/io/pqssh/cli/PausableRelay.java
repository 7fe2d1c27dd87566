package io.pqssh.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP relay to a server port that the test can pause: while paused, bytes are read but held (the peer
 * looks alive to TCP yet answers nothing, like a hung server or a dead path); resumed, they are delivered in order.
 * {@link #close()} closes the listener and every relayed socket.
 */
final class PausableRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicLong relayed = new AtomicLong();
    private volatile boolean paused;

    PausableRelay(int target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "relay-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    void pause() {
        paused = true;
    }

    void resume() {
        paused = false;
    }

    /** Bytes delivered so far, both ways. */
    long relayed() {
        return relayed.get();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                sockets.add(client);
                sockets.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    while (paused) {
                        Thread.sleep(20);
                    }
                    out.write(buf, 0, n);
                    out.flush();
                    relayed.addAndGet(n);
                }
            } catch (IOException e) {
                // one side closed: the other pump ends too when its socket closes
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "relay-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        paused = false;
        listener.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
