package io.pqssh.core.keys.authorized;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** Line splitting with a cap: too-long lines are reported and skipped, the next line is read normally. */
class BoundedLinesTest {
    private static BoundedLines of(String s, int max) {
        return new BoundedLines(new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8)), max);
    }

    @Test
    void splitsLinesDropsCarriageReturnsAndKeepsTheLastLineWithoutNewline() throws Exception {
        BoundedLines l = of("a\r\n\nbé\nlast", 16);
        assertEquals(new BoundedLines.Line(1, "a", false), l.next());
        assertEquals(new BoundedLines.Line(2, "", false), l.next());
        assertEquals(new BoundedLines.Line(3, "bé", false), l.next());
        assertEquals(new BoundedLines.Line(4, "last", false), l.next());
        assertNull(l.next());
    }

    @Test
    void aLineOverTheCapIsSkippedToItsEndAndTheNextLineIsRead() throws Exception {
        String longLine = "x".repeat(100_000);
        BoundedLines l = of("ok\n" + longLine + "\nafter\n" + "y".repeat(9) + "\n" + "z".repeat(8), 8);
        assertEquals("ok", l.next().text());
        BoundedLines.Line cut = l.next();
        assertTrue(cut.tooLong());
        assertNull(cut.text());
        assertEquals(2, cut.number());
        assertEquals(new BoundedLines.Line(3, "after", false), l.next());
        assertTrue(l.next().tooLong(), "9 bytes over a cap of 8");
        assertEquals(new BoundedLines.Line(5, "z".repeat(8), false), l.next(), "exactly the cap");
        assertNull(l.next());
    }

    @Test
    void theCapMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> of("", 0));
    }
}
