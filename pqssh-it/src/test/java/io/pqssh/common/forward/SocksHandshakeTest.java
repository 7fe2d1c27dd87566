package io.pqssh.common.forward;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The SOCKS server half of remote dynamic forwarding: every request form, fed whole and byte by byte, and refusals. */
class SocksHandshakeTest {
    private static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    private static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    /** Feeds one byte at a time; collects the replies; returns the last step. */
    private static SocksHandshake.Step byteByByte(SocksHandshake h, byte[] in, ByteArrayOutputStream replies) {
        SocksHandshake.Step last = null;
        for (int i = 0; i < in.length; i++) {
            last = h.feed(in, i, 1);
            replies.writeBytes(last.reply());
            if (last.host() != null || last.error() != null) {
                return last;
            }
        }
        return last;
    }

    @Test
    void socks5DomainNameWholeAndByteByByteWithTrailingData() {
        byte[] host = "example.org".getBytes(StandardCharsets.US_ASCII);
        byte[] in = cat(bytes(5, 2, 2, 0), bytes(5, 1, 0, 3, host.length), host, bytes(0x1f, 0x90), bytes(7, 8));
        SocksHandshake whole = new SocksHandshake();
        SocksHandshake.Step s = whole.feed(in, 0, in.length);
        assertEquals("example.org", s.host());
        assertEquals(8080, s.port());
        assertArrayEquals(bytes(5, 0), s.reply());
        assertArrayEquals(bytes(7, 8), s.rest());
        assertArrayEquals(bytes(5, 0, 0, 1, 0, 0, 0, 0, 0, 0), whole.success());
        assertArrayEquals(bytes(5, 2, 0, 1, 0, 0, 0, 0, 0, 0), whole.failure(SocksHandshake.NOT_ALLOWED));

        ByteArrayOutputStream replies = new ByteArrayOutputStream();
        SocksHandshake.Step b = byteByByte(new SocksHandshake(), cat(bytes(5, 1, 0), bytes(5, 1, 0, 3, host.length),
                host, bytes(0, 80)), replies);
        assertEquals("example.org", b.host());
        assertEquals(80, b.port());
        assertArrayEquals(bytes(5, 0), replies.toByteArray());
    }

    @Test
    void socks5Ipv4AndIpv6() {
        SocksHandshake.Step v4 = new SocksHandshake().feed(cat(bytes(5, 1, 0), bytes(5, 1, 0, 1, 127, 0, 0, 1, 0, 22)),
                0, 13);
        assertEquals("127.0.0.1", v4.host());
        assertEquals(22, v4.port());
        byte[] v6 = cat(bytes(5, 1, 0), bytes(5, 1, 0, 4), new byte[15], bytes(1), bytes(1, 0));
        SocksHandshake.Step s6 = new SocksHandshake().feed(v6, 0, v6.length);
        assertEquals("0:0:0:0:0:0:0:1", s6.host());
        assertEquals(256, s6.port());
    }

    @Test
    void socks4AndSocks4a() {
        SocksHandshake h4 = new SocksHandshake();
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        SocksHandshake.Step s4 = byteByByte(h4, bytes(4, 1, 0, 80, 10, 1, 2, 3, 'u', 's', 'r', 0), r);
        assertEquals("10.1.2.3", s4.host());
        assertEquals(80, s4.port());
        assertEquals(0, r.size());
        assertArrayEquals(bytes(0, 0x5a, 0, 0, 0, 0, 0, 0), h4.success());
        assertArrayEquals(bytes(0, 0x5b, 0, 0, 0, 0, 0, 0), h4.failure(SocksHandshake.NOT_ALLOWED));
        byte[] in4a = cat(bytes(4, 1, 1, 0, 0, 0, 0, 9, 0), "localhost".getBytes(StandardCharsets.US_ASCII), bytes(0));
        SocksHandshake.Step s4a = new SocksHandshake().feed(in4a, 0, in4a.length);
        assertEquals("localhost", s4a.host());
        assertEquals(256, s4a.port());
    }

    @Test
    void refusalsSayWhyAndAnswerTheClient() {
        SocksHandshake.Step noAuth = new SocksHandshake().feed(bytes(5, 1, 2), 0, 3);
        assertNotNull(noAuth.error());
        assertArrayEquals(bytes(5, 0xff), noAuth.reply());
        SocksHandshake.Step bind = new SocksHandshake().feed(bytes(5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 1), 0, 13);
        assertNotNull(bind.error());
        assertNull(bind.host());
        assertArrayEquals(bytes(5, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0), bind.reply()); // method choice, then "command"
        SocksHandshake.Step atyp = new SocksHandshake().feed(bytes(5, 1, 0, 5, 1, 0, 9, 0), 0, 8);
        assertNotNull(atyp.error());
        SocksHandshake.Step version = new SocksHandshake().feed(bytes('G', 'E', 'T'), 0, 3);
        assertNotNull(version.error());
        SocksHandshake.Step s4bind = new SocksHandshake().feed(bytes(4, 2, 0, 80, 1, 2, 3, 4, 0), 0, 9);
        assertNotNull(s4bind.error());
        assertArrayEquals(bytes(0, 0x5b, 0, 0, 0, 0, 0, 0), s4bind.reply());
        byte[] endless = new byte[SocksHandshake.MAX_BYTES + 1];
        endless[0] = 4;
        endless[1] = 1;
        endless[4] = 1; // a user id that never ends
        java.util.Arrays.fill(endless, 8, endless.length, (byte) 'x');
        SocksHandshake.Step tooLong = new SocksHandshake().feed(endless, 0, endless.length);
        assertNotNull(tooLong.error());
    }
}
