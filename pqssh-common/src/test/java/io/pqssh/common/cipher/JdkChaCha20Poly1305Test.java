package io.pqssh.common.cipher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Random;

import javax.crypto.AEADBadTagException;

import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.cipher.Cipher.Mode;
import org.junit.jupiter.api.Test;

/**
 * {@link JdkChaCha20Poly1305} against MINA's own chacha20-poly1305 (itself checked against OpenSSH by MINA):
 * packets sealed by one open with the other, byte for byte the same ciphertext and tag, over a run of sequence
 * numbers and lengths; a flipped bit in the length, payload or tag is refused.
 */
class JdkChaCha20Poly1305Test {
    private static final int TAG = 16;
    private final Random random = new Random(25);

    /** As MINA passes it: the sequence number in the first 8 bytes of a key-derived IV of the hash's length. */
    private static byte[] iv(long seq) {
        byte[] iv = new byte[32];
        new Random(seq).nextBytes(iv);
        for (int i = 0; i < 8; i++) {
            iv[i] = (byte) (seq >>> (56 - 8 * i));
        }
        return iv;
    }

    /** One SSH packet as MINA seals it: 4-byte length (AAD), then payload, then a 16-byte tag. */
    private static byte[] seal(Cipher c, byte[] plain) throws Exception {
        byte[] p = Arrays.copyOf(plain, plain.length + TAG);
        c.updateWithAAD(p, 0, 4, plain.length - 4);
        return p;
    }

    private static byte[] open(Cipher c, byte[] sealed) throws Exception {
        byte[] p = sealed.clone();
        c.updateAAD(p, 0, 4);
        c.update(p, 4, p.length - 4 - TAG);
        return Arrays.copyOf(p, p.length - TAG);
    }

    private byte[] packet(int payload) {
        byte[] p = new byte[4 + payload];
        random.nextBytes(p);
        p[0] = 0;
        p[1] = (byte) (payload >>> 16);
        p[2] = (byte) (payload >>> 8);
        p[3] = (byte) payload;
        return p;
    }

    @Test
    void sealsAndOpensExactlyAsMinasImplementation() throws Exception {
        byte[] key = new byte[64];
        random.nextBytes(key);
        long firstSeq = 0xFFFF_FFF0L; // the sequence number wraps within the run
        Cipher oursOut = new JdkChaCha20Poly1305();
        Cipher minaIn = BuiltinCiphers.cc20p1305_openssh.create();
        Cipher minaOut = BuiltinCiphers.cc20p1305_openssh.create();
        Cipher oursIn = new JdkChaCha20Poly1305();
        oursOut.init(Mode.Encrypt, key, iv(firstSeq));
        minaOut.init(Mode.Encrypt, key, iv(firstSeq));
        minaIn.init(Mode.Decrypt, key, iv(firstSeq));
        oursIn.init(Mode.Decrypt, key, iv(firstSeq));
        int[] sizes = {8, 16, 60, 64, 68, 1000, 32_768, 32_772, 35_000};
        for (int i = 0; i < 40; i++) {
            byte[] plain = packet(sizes[i % sizes.length]);
            byte[] ours = seal(oursOut, plain);
            byte[] mina = seal(minaOut, plain);
            assertArrayEquals(mina, ours, "packet " + i + " differs from MINA's");
            assertArrayEquals(plain, open(minaIn, ours), "MINA cannot open packet " + i);
            assertArrayEquals(plain, open(oursIn, mina), "packet " + i + " from MINA does not open");
        }
    }

    @Test
    void refusesATamperedLengthPayloadOrTag() throws Exception {
        byte[] key = new byte[64];
        random.nextBytes(key);
        for (int flip : new int[] {1, 10, 4 + 100 + 3}) {
            Cipher out = new JdkChaCha20Poly1305();
            Cipher in = new JdkChaCha20Poly1305();
            out.init(Mode.Encrypt, key, iv(7));
            in.init(Mode.Decrypt, key, iv(7));
            byte[] sealed = seal(out, packet(100));
            sealed[flip] ^= 0x01;
            assertThrows(AEADBadTagException.class, () -> open(in, sealed), "flipped byte " + flip);
        }
    }

    @Test
    void refusesAnIvThatIsNotASequenceNumber() {
        Cipher c = assertDoesNotThrowNew();
        byte[] iv = iv(1);
        iv[0] = 1;
        assertThrows(IllegalArgumentException.class, () -> c.init(Mode.Encrypt, new byte[64], iv));
        assertThrows(IllegalArgumentException.class, () -> c.init(Mode.Encrypt, new byte[32], iv(1)));
    }

    @Test
    void factoryServesOpenSshsNameWithThisImplementation() {
        assertEquals("chacha20-poly1305@openssh.com", TransportCiphers.CHACHA20_POLY1305.getName());
        assertEquals(JdkChaCha20Poly1305.class, TransportCiphers.CHACHA20_POLY1305.create().getClass());
        assertEquals(TransportCiphers.CHACHA20_POLY1305, TransportCiphers.defaults().get(0));
        assertEquals(BuiltinCiphers.aes128gcm, TransportCiphers.byName("aes128-gcm@openssh.com"));
    }

    private static Cipher assertDoesNotThrowNew() {
        try {
            return new JdkChaCha20Poly1305();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
