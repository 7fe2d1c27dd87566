package io.pqssh.mina.internal.log;

import io.pqssh.server.log.OneLinePrintStream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The escaping behind every peer string in sshd's lines, and the one-line stderr of {@code pqssh server}. */
class LogTextTest {
    @Test
    void escapeKeepsPrintableAsciiAndEscapesEverythingElse() {
        assertEquals("alice", LogText.escape("alice"));
        assertEquals("a\\x0ab\\x0d\\x09c\\x00\\x7f\\x1b[31m", LogText.escape("a\nb\r\tc\u0000\u007f\u001b[31m"));
        assertEquals("back\\\\slash", LogText.escape("back\\slash"), "a literal \\x0a stays distinguishable");
        assertEquals("\\xc3\\xa9\\xe2\\x80\\xae", LogText.escape("\u00e9\u202e"), "UTF-8 bytes, bidi override too");
        assertEquals("(null)", LogText.escape(null));
        String longName = "x".repeat(1000);
        assertEquals("x".repeat(LogText.MAX_CHARS) + "...", LogText.escape(longName));
    }

    @Test
    void oneLineStreamKeepsEachRecordOnOneLine() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = OneLinePrintStream.wrap(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        // what MINA's WARN would print for a KEXINIT name-list with a newline in it
        out.println("WARN org.apache.sshd - Unable to negotiate key exchange (client: x\nFORGED line / server: y)");
        out.println((Object) "obj\rline");
        out.println("tab\tstays, caf\u00e9 stays");
        assertEquals("WARN org.apache.sshd - Unable to negotiate key exchange (client: x\\x0aFORGED line / server: y)"
                + System.lineSeparator() + "obj\\x0dline" + System.lineSeparator() + "tab\tstays, caf\u00e9 stays"
                + System.lineSeparator(), bytes.toString(StandardCharsets.UTF_8));
    }
}
