package io.pqssh.lab.sidechannel;

import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * The eight ciphertext classes of the reference robustness check. The six same-length classes reach decapsulation
 * (ML-KEM's implicit rejection turns every wrong one into a pseudo-random shared secret); the truncated and extended
 * ones are refused by the client's length check before the secret key is touched.
 */
public enum CiphertextClass {
    VALID("valid", true),
    ONE_BIT("one-bit", true),
    ONE_PERCENT_BITS("one-percent-bits", true),
    RANDOM("random", true),
    ALL_ZERO("all-zero", true),
    ALL_FF("all-ff", true),
    TRUNCATED("truncated-1", false),
    EXTENDED("extended-1", false);

    private final String id;
    private final boolean sameLength;

    CiphertextClass(String id, boolean sameLength) {
        this.id = id;
        this.sameLength = sameLength;
    }

    public String id() {
        return id;
    }

    /** True for the classes with the parameter set's ciphertext length (they reach decapsulation). */
    public boolean sameLength() {
        return sameLength;
    }

    public static CiphertextClass parse(String s) {
        for (CiphertextClass c : values()) {
            if (c.id.equals(s) || c.name().equalsIgnoreCase(s)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown ciphertext class '" + s + "'");
    }

    /** Derives this class's ciphertext from a valid one; {@code rnd} makes the derived bytes reproducible. */
    public byte[] derive(byte[] valid, Random rnd) {
        byte[] c = valid.clone();
        switch (this) {
            case VALID -> {
                // unchanged
            }
            case ONE_BIT -> c[rnd.nextInt(c.length)] ^= (byte) (1 << rnd.nextInt(8));
            case ONE_PERCENT_BITS -> {
                int bits = c.length * 8;
                int flips = Math.max(1, Math.round(bits / 100f));
                boolean[] done = new boolean[bits];
                for (int f = 0; f < flips; ) {
                    int b = rnd.nextInt(bits);
                    if (!done[b]) {
                        done[b] = true;
                        c[b >>> 3] ^= (byte) (1 << (b & 7));
                        f++;
                    }
                }
            }
            case RANDOM -> rnd.nextBytes(c);
            case ALL_ZERO -> Arrays.fill(c, (byte) 0);
            case ALL_FF -> Arrays.fill(c, (byte) 0xff);
            case TRUNCATED -> c = Arrays.copyOf(valid, valid.length - 1);
            case EXTENDED -> c = Arrays.copyOf(valid, valid.length + 1);
            default -> throw new AssertionError(this);
        }
        return c;
    }

    @Override
    public String toString() {
        return id.toLowerCase(Locale.ROOT);
    }
}
