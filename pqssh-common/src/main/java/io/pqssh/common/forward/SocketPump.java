package io.pqssh.common.forward;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The socket-to-channel half of a forwarded connection, on a thread of its own: what the local program writes goes
 * to the peer as CHANNEL_DATA (the channel's output stream waits for window), and the socket's end of stream becomes
 * CHANNEL_EOF while the other direction goes on (half-close, as OpenSSH's channels do).
 */
final class SocketPump {
    private SocketPump() {
    }

    /**
     * @param first  bytes already read from the socket (past a SOCKS request), sent before anything read now
     * @param ended  run after CHANNEL_EOF was sent (the channel closes once both directions ended)
     * @param failed run when reading the socket or writing the channel fails
     */
    static void start(SocketChannel from, OutputStream toPeer, byte[] first, String threadName, Runnable ended,
            Runnable failed) {
        Thread pump = new Thread(() -> {
            ByteBuffer buf = ByteBuffer.allocate(32 * 1024);
            try {
                if (first.length > 0) {
                    toPeer.write(first);
                    toPeer.flush();
                }
                while (from.read(buf) >= 0) {
                    buf.flip();
                    toPeer.write(buf.array(), 0, buf.limit());
                    toPeer.flush();
                    buf.clear();
                }
                toPeer.close(); // sends EOF
            } catch (IOException e) {
                failed.run();
                return;
            }
            ended.run();
        }, threadName);
        pump.setDaemon(true);
        pump.start();
    }
}
