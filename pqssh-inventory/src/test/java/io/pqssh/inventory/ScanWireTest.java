package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.SshTransport;
import io.pqssh.inventory.scan.Target;
import io.pqssh.inventory.scan.Targets;

/** Pure parsing: identification lines, packets, KEXINIT, classification, target specs. */
class ScanWireTest {
    private static KexInit kexinit(List<String> kex, List<String> hk, List<String> ciphers, List<String> macs) {
        return new KexInit(kex, hk, ciphers, ciphers, macs, macs, List.of("none"), List.of("none"), List.of(),
                List.of(), false);
    }

    private static byte[] packet(byte[] payload) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SshTransport.writePacket(out, payload);
        return out.toByteArray();
    }

    @Test
    void kexInitRoundTripsThroughAPacketAndIsClassified() throws Exception {
        KexInit k = kexinit(List.of("sntrup761x25519-sha512@openssh.com", "curve25519-sha256",
                "diffie-hellman-group1-sha1", "ext-info-s", "kex-strict-s-v00@openssh.com"),
                List.of("ssh-ed25519", "ssh-dss"), List.of("aes128-ctr", "aes256-cbc"), List.of("hmac-md5"));
        byte[] wire = packet(k.encode(new byte[16]));
        assertEquals(0, wire.length % 8);
        KexInit back = SshTransport.readKexInit(new ByteArrayInputStream(wire));
        assertEquals(k, back);
        Classification c = Classification.of(back);
        assertEquals(List.of("sntrup761x25519-sha512@openssh.com"), c.pqKexOffered());
        assertEquals("sntrup761x25519-sha512@openssh.com", c.openssh10Negotiates());
        assertEquals("sntrup761x25519-sha512@openssh.com", c.pqsshNegotiates());
        assertTrue(c.strictKex());
        assertFalse(c.classicalOnly());
        assertTrue(c.pqReady());
        assertEquals(List.of("kex:diffie-hellman-group1-sha1", "hostkey:ssh-dss", "cipher:aes256-cbc", "mac:hmac-md5"),
                c.weak());
        assertEquals(List.of(), c.pqHostKeysOffered());

        Classification classical = Classification.of(kexinit(List.of("curve25519-sha256"),
                List.of("ssh-mldsa44-ed25519@openssh.com", "ssh-ed25519"), List.of("aes128-ctr"),
                List.of("hmac-sha2-256")));
        assertTrue(classical.classicalOnly());
        assertFalse(classical.pqReady());
        assertFalse(classical.strictKex());
        assertEquals("curve25519-sha256", classical.openssh10Negotiates());
        assertEquals(List.of("ssh-mldsa44-ed25519@openssh.com"), classical.pqHostKeysOffered());
    }

    @Test
    void malformedInputIsNotSsh() throws Exception {
        // oversized length, bad padding, truncated body, wrong message, garbage name-lists, trailing bytes
        byte[] huge = {0x7f, 0, 0, 0, 4, 20};
        assertTrue(assertThrows(SshTransport.NotSshException.class,
                () -> SshTransport.readPacket(new ByteArrayInputStream(huge))).getMessage().contains("exceeds 35000"));
        byte[] badPad = {0, 0, 0, 12, 2, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        assertThrows(SshTransport.NotSshException.class, () -> SshTransport.readPacket(new ByteArrayInputStream(badPad)));
        byte[] good = packet(kexinit(List.of("curve25519-sha256"), List.of("ssh-ed25519"), List.of("aes128-ctr"),
                List.of("hmac-sha2-256")).encode(new byte[16]));
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 3);
        assertTrue(assertThrows(SshTransport.NotSshException.class,
                () -> SshTransport.readKexInit(new ByteArrayInputStream(truncated))).getMessage().contains("closed"));
        byte[] notKexinit = packet(new byte[] {21});
        assertThrows(SshTransport.NotSshException.class,
                () -> SshTransport.readKexInit(new ByteArrayInputStream(notKexinit)));
        byte[] payload = kexinit(List.of("curve25519-sha256"), List.of("ssh-ed25519"), List.of("aes128-ctr"),
                List.of("hmac-sha2-256")).encode(new byte[16]);
        byte[] trailing = java.util.Arrays.copyOf(payload, payload.length + 1);
        assertThrows(MalformedMessageException.class, () -> KexInit.parse(trailing));
        byte[] ctl = payload.clone();
        ctl[17 + 4] = 0x01; // first byte of the kex list
        assertThrows(MalformedMessageException.class, () -> KexInit.parse(ctl));
        byte[] longList = payload.clone();
        longList[17] = 0x7f; // kex list length 2^31-ish
        assertThrows(MalformedMessageException.class, () -> KexInit.parse(longList));
    }

    @Test
    void bannersAreBoundedAndParsed() throws Exception {
        SshTransport.Banner b = SshTransport.readBanner(new ByteArrayInputStream(
                "welcome\r\nSSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10\r\n".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("OpenSSH_9.2p1", b.software());
        assertEquals("Debian-2+deb12u10", b.comments());
        assertThrows(SshTransport.NotSshException.class, () -> SshTransport.readBanner(new ByteArrayInputStream(
                ("x".repeat(300) + "\n").getBytes(StandardCharsets.US_ASCII))));
        assertThrows(SshTransport.NotSshException.class, () -> SshTransport.readBanner(new ByteArrayInputStream(
                "SSH-1.5-old\r\n".getBytes(StandardCharsets.US_ASCII))));
        assertThrows(SshTransport.NotSshException.class, () -> SshTransport.readBanner(new ByteArrayInputStream(
                "a\nb\n".repeat(100).getBytes(StandardCharsets.US_ASCII))));
        assertThrows(SshTransport.NotSshException.class, () -> SshTransport.readBanner(new ByteArrayInputStream(
                new byte[] {(byte) 0x16, 3, 1, 0, 0x2e, '\n'})));
    }

    @Test
    void targetSpecsAndCidrExpansion() {
        assertEquals(List.of(new Target("127.0.0.0", 22), new Target("127.0.0.1", 22), new Target("127.0.0.2", 22),
                new Target("127.0.0.3", 22)), Targets.parse(List.of("127.0.0.0/30"), 22, false));
        assertEquals(List.of(new Target("127.0.0.4", 2222), new Target("127.0.0.5", 2222)),
                Targets.parse(List.of("127.0.0.5/31:2222"), 22, false));
        assertEquals(List.of(new Target("::1", 2200), new Target("example.org", 22), new Target("h", 7),
                new Target("fe80::1", 22)), Targets.parse(List.of("[::1]:2200", "example.org", "h:7", "fe80::1",
                        "h:7"), 22, false));
        assertEquals(4, Targets.parse(List.of("::/126"), 22, false).size());
        assertEquals("[::1]:2200", new Target("::1", 2200).toString());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Targets.parse(List.of("10.0.0.0/11"), 22,
                false)).getMessage().contains("--force-large"));
        assertEquals(1 << 16, Targets.parse(List.of("10.1.2.3/16"), 22, false).size());
        for (String bad : List.of("127.0.0.1:0", "127.0.0.1:x", "127.0.0.1/33", "host/8", "[::1", "[::1]x", ":22")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Targets.parse(List.of(bad), 22, false), bad);
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
    }
}
