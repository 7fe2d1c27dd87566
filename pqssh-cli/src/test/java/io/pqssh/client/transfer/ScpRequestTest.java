package io.pqssh.client.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The names a legacy-SCP download accepts, as OpenSSH's scp: brace expansion, then fnmatch on the last component. */
class ScpRequestTest {
    @Test
    void bracesExpandToOnePatternPerAlternativeLastComponentOnly() {
        assertEquals(List.of("report.pdf"), ScpRequest.of("/home/u/report.pdf").patterns());
        assertEquals(List.of("b.txt", "a.txt"), ScpRequest.of("d/{a,b}.txt").patterns());
        assertEquals(List.of("y", "x2", "x1"), ScpRequest.of("{x{1,2},y}").patterns());
        assertEquals(List.of("f{}"), ScpRequest.of("f{}").patterns(), "{} stays literal as in find(1)");
        assertEquals(List.of("c", "b"), ScpRequest.of("{a/b,a/c}").patterns());
        assertThrows(IllegalArgumentException.class, () -> ScpRequest.of("a{b"));
        assertThrows(IllegalArgumentException.class, () -> ScpRequest.of("a}b"));
    }

    @Test
    void namesMatchAsFnmatchWithoutFlags() {
        ScpRequest r = ScpRequest.of("dir/*.txt");
        assertTrue(r.allows("a.txt"));
        assertTrue(r.allows(".hidden.txt"), "fnmatch without FNM_PERIOD: * matches a leading dot");
        assertFalse(r.allows(".bashrc"));
        assertFalse(r.allows("a.txt.sh"));
        assertTrue(ScpRequest.of("f?.[a-c]").allows("f1.b"));
        assertFalse(ScpRequest.of("f?.[a-c]").allows("f1.d"));
        assertTrue(ScpRequest.of("f[!a-c]").allows("fd"));
        assertFalse(ScpRequest.of("f[!a-c]").allows("fb"));
        assertTrue(ScpRequest.of("f[]]").allows("f]"));
        assertTrue(ScpRequest.of("f[[:digit:]]").allows("f7"));
        assertTrue(ScpRequest.of("a\\*").allows("a*"));
        assertFalse(ScpRequest.of("a\\*").allows("ab"));
        assertTrue(ScpRequest.fnmatch("x[", 0, "x[", 0), "an unclosed bracket is literal to fnmatch");
        assertThrows(IllegalArgumentException.class, () -> ScpRequest.of("x["), "but scp's brace expansion refuses it");
        assertTrue(ScpRequest.of("~").allows("~"));
        assertFalse(ScpRequest.of("report.pdf").allows(".bashrc"));
    }

    @Test
    void pathsAndDotNamesAreNeverSafe() {
        for (String bad : List.of("", ".", "..", "../x", "a/b", "/etc/passwd")) {
            assertTrue(ScpRequest.unsafeName(bad), bad);
        }
        assertFalse(ScpRequest.unsafeName("..x"));
        assertFalse(ScpRequest.unsafeName(".bashrc"));
    }
}
