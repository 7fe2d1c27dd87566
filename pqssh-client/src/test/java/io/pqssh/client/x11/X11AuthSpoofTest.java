package io.pqssh.client.x11;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import io.pqssh.common.forward.LocalTarget;

/**
 * The X connection setup check (ssh's x11_open_helper): the fake cookie, in either byte order and in pieces, is
 * replaced by the real one; another cookie, protocol or byte order is refused with ssh's message. DISPLAY parsing
 * as ssh's x11_connect_display.
 */
class X11AuthSpoofTest {
    private static final byte[] PROTO = "MIT-MAGIC-COOKIE-1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FAKE = filled(16, 0x11);
    private static final byte[] REAL = filled(16, 0x22);

    private static byte[] filled(int n, int v) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) v);
        return b;
    }

    /** An X11 connection setup request: byte order, version 11.0, protocol name and data, each padded to 4. */
    static byte[] setup(boolean msbFirst, byte[] proto, byte[] data, byte[] more) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(msbFirst ? 'B' : 'l');
        b.write(0);
        u16(b, 11, msbFirst);
        u16(b, 0, msbFirst);
        u16(b, proto.length, msbFirst);
        u16(b, data.length, msbFirst);
        b.write(0);
        b.write(0);
        b.writeBytes(proto);
        b.writeBytes(new byte[(4 - proto.length % 4) % 4]);
        b.writeBytes(data);
        b.writeBytes(new byte[(4 - data.length % 4) % 4]);
        b.writeBytes(more);
        return b.toByteArray();
    }

    private static void u16(ByteArrayOutputStream b, int v, boolean msbFirst) {
        if (msbFirst) {
            b.write(v >> 8);
            b.write(v & 0xff);
        } else {
            b.write(v & 0xff);
            b.write(v >> 8);
        }
    }

    @Test
    void fakeCookieIsReplacedInEitherByteOrderAndInPieces() throws IOException {
        for (boolean msb : new boolean[] {true, false}) {
            byte[] in = setup(msb, PROTO, FAKE, new byte[] {7, 7});
            X11AuthSpoof s = new X11AuthSpoof(PROTO, FAKE, REAL);
            assertNull(s.feed(in, 0, 5));
            assertNull(s.feed(in, 5, 30));
            byte[] out = s.feed(in, 35, in.length - 35);
            assertArrayEquals(setup(msb, PROTO, REAL, new byte[] {7, 7}), out);
        }
    }

    @Test
    void anythingElseIsRefusedWithSshsMessage() {
        String wrong = "X11 connection rejected because of wrong authentication.";
        byte[] otherCookie = setup(true, PROTO, REAL, new byte[0]);
        assertEquals(wrong, assertThrows(IOException.class,
                () -> new X11AuthSpoof(PROTO, FAKE, REAL).feed(otherCookie, 0, otherCookie.length)).getMessage());
        byte[] shortCookie = setup(false, PROTO, Arrays.copyOf(FAKE, 15), new byte[0]);
        assertEquals(wrong, assertThrows(IOException.class,
                () -> new X11AuthSpoof(PROTO, FAKE, REAL).feed(shortCookie, 0, shortCookie.length)).getMessage());
        byte[] otherProto = setup(true, "XDM-AUTHORIZATION-1".getBytes(StandardCharsets.US_ASCII), FAKE, new byte[0]);
        assertEquals(wrong, assertThrows(IOException.class,
                () -> new X11AuthSpoof(PROTO, FAKE, REAL).feed(otherProto, 0, otherProto.length)).getMessage());
        byte[] badOrder = setup(true, PROTO, FAKE, new byte[0]);
        badOrder[0] = 'x';
        assertEquals("Initial X11 packet contains bad byte order byte: 0x78", assertThrows(IOException.class,
                () -> new X11AuthSpoof(PROTO, FAKE, REAL).feed(badOrder, 0, badOrder.length)).getMessage());
    }

    @Test
    void displayNamesAsSsh() {
        X11DisplayName local = X11DisplayName.parse(":0");
        assertEquals(0, local.screen());
        assertEquals(LocalTarget.unix(java.nio.file.Path.of("/tmp/.X11-unix/X0")).toString(),
                local.target().toString());
        assertEquals(":0", local.xauthName());
        X11DisplayName unix = X11DisplayName.parse("unix:12.1");
        assertEquals("/tmp/.X11-unix/X12", unix.target().toString());
        assertEquals(1, unix.screen());
        X11DisplayName forwarded = X11DisplayName.parse("localhost:10.0");
        assertEquals("localhost:6010", forwarded.target().toString());
        assertEquals("unix:10.0", forwarded.xauthName());
        assertEquals("DISPLAY \"a b:0\" invalid; disabling X11 forwarding",
                assertThrows(IllegalArgumentException.class, () -> X11DisplayName.parse("a b:0")).getMessage());
        assertEquals("Could not find ':' in DISPLAY: nocolon",
                assertThrows(IllegalArgumentException.class, () -> X11DisplayName.parse("nocolon")).getMessage());
        assertEquals("Could not parse display number from DISPLAY: host:x",
                assertThrows(IllegalArgumentException.class, () -> X11DisplayName.parse("host:x")).getMessage());
    }
}
