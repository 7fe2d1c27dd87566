package io.pqssh.client.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The stderr status line: drawn only on a terminal and only for a slow step, erased when the step ends. */
class ProgressTest {
    @Test
    void aSlowStepOnATerminalShowsASpinnerAndErasesIt() throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        Progress p = Progress.start("pqssh: connecting", true, out, 100);
        Thread.sleep(700);
        p.close();
        String s = buf.toString(StandardCharsets.UTF_8);
        assertTrue(p.shown());
        assertTrue(s.startsWith("\r\033[Kpqssh: connecting "), s);
        assertTrue(s.chars().filter(c -> c == '\r').count() >= 3, "the spinner did not turn: " + s);
        assertTrue(s.endsWith("\r\033[K"), "the line was not erased: " + s);
        int before = buf.size();
        Thread.sleep(400);
        assertEquals(before, buf.size(), "the spinner went on after close");
    }

    @Test
    void aFastStepShowsNothingAndNoTerminalMeansNoThread() throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        Progress p = Progress.start("quick", true, out, 1000);
        Thread.sleep(50);
        p.close();
        Thread.sleep(100);
        assertFalse(p.shown());
        assertEquals(0, buf.size());
        assertNull(Progress.start("no terminal", false, out, 0));
        Progress.close(null); // absent progress is fine
    }

    @Test
    void aPromptStopsTheActiveStatus() throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        Progress p = Progress.start("waiting", true, out, 50);
        Thread.sleep(300);
        Progress.stopActive(); // what Prompter does before asking
        String s = buf.toString(StandardCharsets.UTF_8);
        assertTrue(p.shown() && s.endsWith("\r\033[K"), s);
        int before = buf.size();
        Thread.sleep(300);
        assertEquals(before, buf.size(), "the status drew over the prompt");
    }
}
