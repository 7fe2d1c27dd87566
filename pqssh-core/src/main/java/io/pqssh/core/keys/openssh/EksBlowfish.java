package io.pqssh.core.keys.openssh;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * Blowfish with the "expensive key schedule" operations that OpenBSD's bcrypt and bcrypt_pbkdf use
 * ({@code Blowfish_expandstate}, {@code Blowfish_expand0state}). The initial P-array and S-boxes are the fractional
 * hexadecimal digits of pi; rather than carrying a 4 KiB table we compute them once (Machin's formula in fixed
 * point), which takes a few milliseconds.
 */
final class EksBlowfish {
    private static final int P_WORDS = 18;
    private static final int S_WORDS = 1024;
    private static final int[] PI_WORDS = piFractionWords(P_WORDS + S_WORDS);

    private final int[] p = new int[P_WORDS];
    private final int[] s = new int[S_WORDS];

    EksBlowfish() {
        System.arraycopy(PI_WORDS, 0, p, 0, P_WORDS);
        System.arraycopy(PI_WORDS, P_WORDS, s, 0, S_WORDS);
    }

    /** For tests: the initial state words (P then S-boxes). */
    static int[] initialWords() {
        return PI_WORDS.clone();
    }

    private int f(int x) {
        int h = s[x >>> 24] + s[0x100 | ((x >>> 16) & 0xff)];
        return (h ^ s[0x200 | ((x >>> 8) & 0xff)]) + s[0x300 | (x & 0xff)];
    }

    /** Encrypts the block (lr[off], lr[off+1]) in place. */
    void encipher(int[] lr, int off) {
        int l = lr[off];
        int r = lr[off + 1];
        l ^= p[0];
        for (int i = 1; i <= 16; i += 2) {
            r ^= f(l) ^ p[i];
            l ^= f(r) ^ p[i + 1];
        }
        lr[off] = r ^ p[17];
        lr[off + 1] = l;
    }

    /** The next big-endian word of {@code data}, cycling; {@code pos[0]} is the byte position. */
    static int streamToWord(byte[] data, int[] pos) {
        int w = 0;
        int j = pos[0];
        for (int i = 0; i < 4; i++) {
            if (j >= data.length) {
                j = 0;
            }
            w = (w << 8) | (data[j] & 0xff);
            j++;
        }
        pos[0] = j;
        return w;
    }

    /** {@code Blowfish_expandstate(state, data, key)}: key schedule mixed with salt {@code data}. */
    void expandState(byte[] data, byte[] key) {
        int[] kp = {0};
        for (int i = 0; i < P_WORDS; i++) {
            p[i] ^= streamToWord(key, kp);
        }
        int[] dp = {0};
        int[] lr = {0, 0};
        for (int i = 0; i < P_WORDS; i += 2) {
            lr[0] ^= streamToWord(data, dp);
            lr[1] ^= streamToWord(data, dp);
            encipher(lr, 0);
            p[i] = lr[0];
            p[i + 1] = lr[1];
        }
        for (int i = 0; i < S_WORDS; i += 2) {
            lr[0] ^= streamToWord(data, dp);
            lr[1] ^= streamToWord(data, dp);
            encipher(lr, 0);
            s[i] = lr[0];
            s[i + 1] = lr[1];
        }
    }

    /** {@code Blowfish_expand0state(state, key)}: the plain key schedule applied to the current state. */
    void expand0State(byte[] key) {
        int[] kp = {0};
        for (int i = 0; i < P_WORDS; i++) {
            p[i] ^= streamToWord(key, kp);
        }
        int[] lr = {0, 0};
        for (int i = 0; i < P_WORDS; i += 2) {
            encipher(lr, 0);
            p[i] = lr[0];
            p[i + 1] = lr[1];
        }
        for (int i = 0; i < S_WORDS; i += 2) {
            encipher(lr, 0);
            s[i] = lr[0];
            s[i + 1] = lr[1];
        }
    }

    void wipe() {
        Arrays.fill(p, 0);
        Arrays.fill(s, 0);
    }

    /** The first {@code n} 32-bit words of the fractional part of pi in binary. */
    static int[] piFractionWords(int n) {
        int bits = n * 32 + 64; // 64 guard bits absorb the truncation error of the series
        BigInteger one = BigInteger.ONE.shiftLeft(bits);
        // pi = 16 atan(1/5) - 4 atan(1/239)
        BigInteger pi = arctanInverse(5, one).shiftLeft(4).subtract(arctanInverse(239, one).shiftLeft(2));
        BigInteger frac = pi.subtract(BigInteger.valueOf(3).shiftLeft(bits)).shiftRight(64);
        byte[] be = frac.toByteArray();
        int[] words = new int[n];
        int len = n * 4;
        byte[] fixed = new byte[len];
        int copy = Math.min(be.length, len);
        System.arraycopy(be, be.length - copy, fixed, len - copy, copy);
        for (int i = 0; i < n; i++) {
            words[i] = ((fixed[4 * i] & 0xff) << 24) | ((fixed[4 * i + 1] & 0xff) << 16)
                    | ((fixed[4 * i + 2] & 0xff) << 8) | (fixed[4 * i + 3] & 0xff);
        }
        if (words[0] != 0x243F6A88) {
            throw new IllegalStateException("pi digits computed wrongly");
        }
        return words;
    }

    /** atan(1/x) in fixed point with the given unit, by its Taylor series. */
    private static BigInteger arctanInverse(int x, BigInteger unit) {
        BigInteger x2 = BigInteger.valueOf((long) x * x);
        BigInteger term = unit.divide(BigInteger.valueOf(x));
        BigInteger sum = term;
        for (int k = 1; term.signum() != 0; k++) {
            term = term.divide(x2);
            BigInteger t = term.divide(BigInteger.valueOf(2L * k + 1));
            sum = (k & 1) == 1 ? sum.subtract(t) : sum.add(t);
        }
        return sum;
    }
}
