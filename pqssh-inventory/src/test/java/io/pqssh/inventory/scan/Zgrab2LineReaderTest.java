package io.pqssh.inventory.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;

import org.junit.jupiter.api.Test;

/** The line reader finds a newline eight bytes at a time: the same index as a byte-by-byte search. */
class Zgrab2LineReaderTest {
    @Test
    void newlineIsTheFirstOneInTheRange() {
        Random rnd = new Random(10);
        byte[] b = new byte[300];
        for (int round = 0; round < 20_000; round++) {
            rnd.nextBytes(b);
            // bytes around '\n' (0x0a) and with the high bit set, where a word-wise search could go wrong
            for (int i = 0; i < b.length; i++) {
                int k = rnd.nextInt(8);
                b[i] = k == 0 ? (byte) '\n' : k == 1 ? (byte) 0x0b : k == 2 ? (byte) 0x8a : k == 3 ? 0x09 : b[i];
                if (rnd.nextInt(4) != 0 && b[i] == '\n') {
                    b[i] = 0x0b;
                }
            }
            int from = rnd.nextInt(b.length);
            int to = from + rnd.nextInt(b.length - from + 1);
            int expected = from;
            while (expected < to && b[expected] != '\n') {
                expected++;
            }
            assertEquals(expected, Zgrab2Reader.LineReader.newline(b, from, to), "from " + from + " to " + to);
        }
    }
}
