package io.pqssh.mina.kex;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A peer's identification line and first (unencrypted) KEXINIT as sent on the wire, read by a raw socket: what
 * pqssh offers, independent of MINA's view of it.
 */
record KexInitCapture(String identification, List<List<String>> lists, boolean firstKexPacketFollows) {
    static final int KEX = 0;
    static final int HOST_KEY = 1;
    static final int CIPHER_C2S = 2;
    static final int CIPHER_S2C = 3;
    static final int MAC_C2S = 4;
    static final int MAC_S2C = 5;
    static final int COMPRESSION_C2S = 6;
    static final int COMPRESSION_S2C = 7;

    List<String> list(int index) {
        return lists.get(index);
    }

    /** Listens on loopback, answers the first connection with {@code SSH-2.0-capture} and reads its KEXINIT. */
    static final class Listener implements AutoCloseable {
        private final ServerSocket server;

        Listener() throws IOException {
            server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            server.setSoTimeout(20_000);
        }

        int port() {
            return server.getLocalPort();
        }

        KexInitCapture accept() throws IOException {
            try (Socket s = server.accept()) {
                s.setSoTimeout(20_000);
                s.getOutputStream().write("SSH-2.0-capture\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                return read(s.getInputStream());
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    /** Connects to a server, sends an identification line and reads the server's identification and KEXINIT. */
    static KexInitCapture fromServer(int port) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write("SSH-2.0-capture\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            return read(s.getInputStream());
        }
    }

    static KexInitCapture read(InputStream raw) throws IOException {
        DataInputStream in = new DataInputStream(raw);
        String ident;
        do {
            ident = line(in);
        } while (!ident.startsWith("SSH-"));
        int length = in.readInt();
        if (length < 16 || length > 64 * 1024) {
            throw new IOException("implausible packet length " + length);
        }
        byte[] packet = new byte[length];
        in.readFully(packet);
        int padding = packet[0] & 0xFF;
        ByteBuffer p = ByteBuffer.wrap(packet, 1, length - 1 - padding);
        if (p.get() != 20) {
            throw new IOException("first packet is not KEXINIT");
        }
        p.position(p.position() + 16);
        List<List<String>> lists = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            byte[] b = new byte[p.getInt()];
            p.get(b);
            String s = new String(b, StandardCharsets.US_ASCII);
            lists.add(s.isEmpty() ? List.of() : Arrays.asList(s.split(",")));
        }
        boolean follows = p.get() != 0;
        return new KexInitCapture(ident, List.copyOf(lists), follows);
    }

    private static String line(DataInputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c; (c = in.read()) != '\n';) {
            if (c < 0 || b.size() > 255) {
                throw new IOException("no identification line");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }
}
