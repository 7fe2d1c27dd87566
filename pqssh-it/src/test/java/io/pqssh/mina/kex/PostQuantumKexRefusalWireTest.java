package io.pqssh.mina.kex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.pqssh.mina.TestKeys;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/**
 * {@code RequirePostQuantumKex yes} at the byte level: a raw peer offers only {@code curve25519-sha256} and reads
 * every packet pqssh sends after the KEXINIT until the connection ends. The DISCONNECT (KEY_EXCHANGE_FAILED) must
 * be the last packet: no KEX reply or NEWKEYS from the server, no KEX init from the client, then EOF.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PostQuantumKexRefusalWireTest {
    private static final int DISCONNECT = 1;
    private static final int KEXINIT = 20;
    private static final int KEX_ECDH_INIT = 30;
    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void serverSendsNothingAfterItsDisconnect() throws Exception {
        try (PqsshServer srv = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(TestKeys.ed25519())).password((u, p, s) -> false)
                .requirePostQuantumKex(true).start();
                Socket s = new Socket(InetAddress.getLoopbackAddress(), srv.port())) {
            s.setSoTimeout(15_000);
            OutputStream out = s.getOutputStream();
            // identification, KEXINIT and the curve25519 init in one flight (not flagged as a guess, which the
            // server would drop as its first KEX differs: the init must be a real one the server could answer)
            out.write("SSH-2.0-classical-only\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(packet(kexInit("curve25519-sha256,ext-info-c,kex-strict-c-v00@openssh.com", "ssh-ed25519",
                    false)));
            byte[] q = new byte[32];
            RANDOM.nextBytes(q);
            out.write(packet(concat(new byte[] {KEX_ECDH_INIT}, string(q))));
            out.flush();
            List<byte[]> after = afterKexInit(s.getInputStream());
            assertDisconnectIsLast(after, "server");
        }
    }

    @Test
    void clientSendsNothingAfterItsDisconnect() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                PqsshClient client = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                        .warningSink(w -> { }).requirePostQuantumKex(true).timeout(Duration.ofSeconds(20))
                        .start()) {
            listener.setSoTimeout(15_000);
            Thread login = new Thread(() -> {
                try {
                    client.login("alice", "127.0.0.1", listener.getLocalPort()).close();
                } catch (Exception expected) {
                    // refused: that is the point
                }
            }, "refusing-client");
            login.setDaemon(true);
            login.start();
            try (Socket s = listener.accept()) {
                s.setSoTimeout(15_000);
                OutputStream out = s.getOutputStream();
                out.write("SSH-2.0-classical-only\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(packet(kexInit("curve25519-sha256,ext-info-s,kex-strict-s-v00@openssh.com", "ssh-ed25519",
                        false)));
                out.flush();
                List<byte[]> after = afterKexInit(s.getInputStream());
                assertDisconnectIsLast(after, "client");
            }
            login.join(20_000);
        }
    }

    private static void assertDisconnectIsLast(List<byte[]> packets, String who) {
        List<Integer> types = new ArrayList<>();
        packets.forEach(p -> types.add(p[0] & 0xFF));
        assertEquals(List.of(DISCONNECT), types, who + " sent after its KEXINIT (message numbers)");
        ByteBuffer d = ByteBuffer.wrap(packets.get(0), 1, packets.get(0).length - 1);
        assertEquals(3, d.getInt(), "SSH2_DISCONNECT_KEY_EXCHANGE_FAILED");
        byte[] text = new byte[d.getInt()];
        d.get(text);
        assertTrue(new String(text, StandardCharsets.UTF_8).contains("curve25519-sha256"),
                new String(text, StandardCharsets.UTF_8));
    }

    /** Reads the peer's identification and KEXINIT, then every packet until EOF (failing if none comes). */
    private static List<byte[]> afterKexInit(InputStream raw) throws IOException {
        DataInputStream in = new DataInputStream(raw);
        String ident = line(in);
        assertTrue(ident.startsWith("SSH-2.0-"), ident);
        byte[] first = readPacket(in);
        assertEquals(KEXINIT, first[0] & 0xFF, "first packet");
        List<byte[]> after = new ArrayList<>();
        try {
            while (true) {
                byte[] p = readPacket(in);
                after.add(p);
                if ((p[0] & 0xFF) == 21) {
                    // NEWKEYS: what follows is encrypted; count it as one more (unreadable) packet
                    if (in.read(new byte[1 << 16]) > 0) {
                        after.add(new byte[] {(byte) 0xFF});
                    }
                    return after;
                }
            }
        } catch (EOFException end) {
            return after;
        } catch (SocketTimeoutException e) {
            fail("no EOF 15 s after " + after.size() + " packets: the connection was not closed");
            return after;
        }
    }

    private static byte[] readPacket(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 5 || length > 64 * 1024) {
            throw new IOException("implausible packet length " + length);
        }
        byte[] p = new byte[length];
        in.readFully(p);
        int padding = p[0] & 0xFF;
        byte[] payload = new byte[length - 1 - padding];
        System.arraycopy(p, 1, payload, 0, payload.length);
        return payload;
    }

    private static String line(DataInputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c; (c = in.read()) != '\n';) {
            if (c < 0) {
                throw new EOFException("no identification line");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    private static byte[] kexInit(String kex, String hostKeys, boolean firstKexPacketFollows) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(KEXINIT);
        byte[] cookie = new byte[16];
        RANDOM.nextBytes(cookie);
        b.writeBytes(cookie);
        String[] lists = {kex, hostKeys, "aes128-ctr", "aes128-ctr", "hmac-sha2-256", "hmac-sha2-256", "none",
            "none", "", ""};
        for (String l : lists) {
            b.writeBytes(string(l.getBytes(StandardCharsets.US_ASCII)));
        }
        b.write(firstKexPacketFollows ? 1 : 0);
        b.writeBytes(new byte[4]);
        return b.toByteArray();
    }

    /** An unencrypted binary packet (RFC 4253 section 6), block size 8, at least 4 bytes of padding. */
    private static byte[] packet(byte[] payload) {
        int padding = 8 - (5 + payload.length) % 8;
        if (padding < 4) {
            padding += 8;
        }
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + payload.length + padding);
        b.putInt(1 + payload.length + padding).put((byte) padding).put(payload).put(new byte[padding]);
        return b.array();
    }

    private static byte[] string(byte[] value) {
        return ByteBuffer.allocate(4 + value.length).putInt(value.length).put(value).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
