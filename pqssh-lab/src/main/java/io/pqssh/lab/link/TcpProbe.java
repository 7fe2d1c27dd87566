package io.pqssh.lab.link;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * A tiny TCP request/response tool for calibrating the link, run inside a namespace:
 * {@code server PORT} answers each connection's 4-byte size with that many bytes at once;
 * {@code client HOST PORT SIZE COUNT} prints, per connection, "connect_ms total_ms" where total is connect()
 * start to the last byte received, and the connection's local port.
 */
public final class TcpProbe {
    private TcpProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 2 && args[0].equals("server")) {
            server(Integer.parseInt(args[1]));
        } else if (args.length >= 5 && args[0].equals("client")) {
            client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        } else {
            System.err.println("usage: TcpProbe server PORT | client HOST PORT SIZE COUNT");
            System.exit(2);
        }
    }

    static void server(int port) throws IOException {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(port));
            ss.setSoTimeout(120_000); // a forgotten server ends by itself
            System.out.println("READY");
            System.out.flush();
            while (true) {
                Socket s;
                try {
                    s = ss.accept();
                } catch (SocketTimeoutException e) {
                    return;
                }
                try (s) {
                    s.setTcpNoDelay(true);
                    s.setSendBufferSize(4 << 20);
                    s.setSoTimeout(30_000);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    int size = in.readInt();
                    if (size < 0 || size > (64 << 20)) {
                        return;
                    }
                    s.getOutputStream().write(new byte[size]);
                    s.getOutputStream().flush();
                    in.read(); // until the client closes
                } catch (IOException e) {
                    // next connection
                }
            }
        }
    }

    static void client(String host, int port, int size, int count) throws IOException {
        byte[] buf = new byte[65536];
        for (int i = 0; i < count; i++) {
            try (Socket s = new Socket()) {
                s.setTcpNoDelay(true);
                s.setReceiveBufferSize(4 << 20);
                s.setSoTimeout(30_000);
                long t0 = System.nanoTime();
                s.connect(new InetSocketAddress(host, port), 30_000);
                long t1 = System.nanoTime();
                new DataOutputStream(s.getOutputStream()).writeInt(size);
                InputStream in = s.getInputStream();
                int got = 0;
                while (got < size) {
                    int n = in.read(buf);
                    if (n < 0) {
                        throw new IOException("server closed after " + got + " of " + size + " bytes");
                    }
                    got += n;
                }
                long t2 = System.nanoTime();
                System.out.printf("%.3f %.3f %d%n", (t1 - t0) / 1e6, (t2 - t0) / 1e6, s.getLocalPort());
                System.out.flush();
            }
        }
    }
}
