package io.pqssh.common.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

/** OpenSSH's argv_split, cases checked against OpenSSH 9.2's {@code ssh -G} (a {@code User} line). */
class ArgvSplitTest {
    @Test
    void blanksSeparateAndQuotesGroup() {
        assertEquals(List.of("/bin/p", "a b", "c'd", "e\"f", "g\\h", "x y"),
                ArgvSplit.split("  /bin/p \"a b\"\t\"c'd\" 'e\"f' \"g\\\\h\" x\\ y  ", false));
        assertEquals(List.of(), ArgvSplit.split(" \t ", false));
        assertEquals(List.of("ab"), ArgvSplit.split("a\"\"b", false));
    }

    @Test
    void backslashEscapesQuotesAndBackslashEvenInsideSingleQuotes() {
        // ssh -G: User 'a\'b c' -> a'b c; User "a\"b c" -> a"b c; User 'a\zb' -> a\zb
        assertEquals(List.of("a'b c"), ArgvSplit.split("'a\\'b c'", false));
        assertEquals(List.of("a\"b c"), ArgvSplit.split("\"a\\\"b c\"", false));
        assertEquals(List.of("a\\zb"), ArgvSplit.split("'a\\zb'", false));
        // a backslash before a space escapes it only outside quotes
        assertEquals(List.of("a\\ b"), ArgvSplit.split("'a\\ b'", false));
        assertEquals(List.of("a\\"), ArgvSplit.split("a\\", false));
    }

    @Test
    void commentEndsTheLineOnlyWhereAnArgumentWouldStart() {
        assertEquals(List.of("a", "b#c"), ArgvSplit.split("a b#c # rest", true));
        assertEquals(List.of("a", "#", "b"), ArgvSplit.split("a # b", false));
    }

    @Test
    void unterminatedQuoteIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> ArgvSplit.split("/bin/p \"open", false));
        assertThrows(IllegalArgumentException.class, () -> ArgvSplit.split("'x\\'", false));
    }
}
