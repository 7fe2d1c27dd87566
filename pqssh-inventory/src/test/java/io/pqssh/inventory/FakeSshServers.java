package io.pqssh.inventory;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.SshTransport;

/** Tiny loopback TCP servers that behave like SSH servers, or deliberately do not. */
public final class FakeSshServers implements AutoCloseable {
    /** What a fake server does with each connection. */
    public interface Behaviour {
        void serve(Socket s) throws IOException, InterruptedException;
    }

    private final List<ServerSocket> sockets = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-ssh");
        t.setDaemon(true);
        return t;
    });

    public int start(Behaviour b) throws IOException {
        ServerSocket ss = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        sockets.add(ss);
        pool.execute(() -> {
            while (!ss.isClosed()) {
                try {
                    Socket s = ss.accept();
                    pool.execute(() -> {
                        try (s) {
                            b.serve(s);
                        } catch (IOException | InterruptedException ignored) {
                            // the client went away or the test ended
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
        return ss.getLocalPort();
    }

    /** Banner, then a KEXINIT with the given KEX and host key lists (and sane ciphers). */
    public static Behaviour ssh(String software, List<String> kex, List<String> hostKeys, List<String> ciphers) {
        return s -> {
            OutputStream out = s.getOutputStream();
            SshTransport.writeBanner(out, software);
            List<String> macs = List.of("hmac-sha2-256-etm@openssh.com");
            SshTransport.writePacket(out, new KexInit(kex, hostKeys, ciphers, ciphers, macs, macs, List.of("none"),
                    List.of("none"), List.of(), List.of(), false).encode(new byte[16]));
            s.setSoTimeout(2000);
            s.getInputStream().readNBytes(4096); // until the client hangs up
        };
    }

    public static Behaviour garbage() {
        return s -> {
            s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n<html>\u0001\u0002</html>\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            Thread.sleep(200);
        };
    }

    /** A valid banner, then a packet header announcing 16 MiB. */
    public static Behaviour hugePacket() {
        return s -> {
            OutputStream out = s.getOutputStream();
            SshTransport.writeBanner(out, "Huge_1.0");
            out.write(new byte[] {0x01, 0x00, 0x00, 0x00, 0x08});
            out.write(new byte[1024]);
            out.flush();
            Thread.sleep(200);
        };
    }

    /** Accepts and says nothing, ever (until the client leaves). */
    public static Behaviour silent() {
        return s -> {
            s.setSoTimeout(30_000);
            s.getInputStream().readNBytes(1 << 20);
        };
    }

    /** Slow loris: one byte of a banner every 300 ms, forever. */
    public static Behaviour dribble() {
        return s -> {
            OutputStream out = s.getOutputStream();
            for (int i = 0; i < 200; i++) {
                out.write('S');
                out.flush();
                Thread.sleep(300);
            }
        };
    }

    @Override
    public void close() throws Exception {
        for (ServerSocket s : sockets) {
            s.close();
        }
        pool.shutdownNow();
        pool.awaitTermination(5, TimeUnit.SECONDS);
    }
}
