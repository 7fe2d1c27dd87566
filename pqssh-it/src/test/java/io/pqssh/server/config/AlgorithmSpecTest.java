package io.pqssh.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.server.ServerAlgorithms;

/** sshd's kex_assemble_names semantics for the six algorithm lists. */
class AlgorithmSpecTest {
    private static final List<String> DEF = List.of("a1", "b1", "b2", "c1");
    private static final List<String> ALL = List.of("a1", "b1", "b2", "c1", "x1", "x2");
    private static final String BAD = "Bad SSH2 cipher spec '%s'.";

    private static List<String> r(String spec, boolean wildcards) {
        return AlgorithmSpec.resolve(spec, DEF, ALL, wildcards, BAD, List.of("umac"));
    }

    @Test
    void plusMinusCaretAndExact() {
        assertEquals(List.of("a1", "b1", "b2", "c1", "x2"), r("+x2,a1", false), "+ appends, never duplicates");
        assertEquals(List.of("a1", "c1"), r("-b*", false), "- takes patterns");
        assertEquals(List.of("a1", "b1", "b2", "c1"), r("-nothing-here", false), "- names are not checked");
        assertEquals(List.of("c1", "x1", "a1", "b1", "b2"), r("^c1,x1", false), "^ moves to the front");
        assertEquals(List.of("x2", "a1"), r("x2,a1,x2", false), "an exact list in its own order, once each");
        assertEquals(List.of("x1", "x2", "a1"), r("x*,a1", true), "key-type lists expand patterns anywhere");
    }

    @Test
    void refusalsCarrySshdsMessage() {
        assertEquals("Bad SSH2 cipher spec 'a1,zz'.",
                assertThrows(IllegalArgumentException.class, () -> r("a1,zz", false)).getMessage());
        assertEquals("Bad SSH2 cipher spec '+x*'.",
                assertThrows(IllegalArgumentException.class, () -> r("+x*", false)).getMessage(),
                "no patterns outside '-' for ciphers, MACs and KEX (sshd neither)");
        assertThrows(IllegalArgumentException.class, () -> r("^q*", true), "a pattern must match something");
        assertThrows(IllegalArgumentException.class, () -> r("a1,,b1", false));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> r("umac", false)).getMessage()
                .contains("umac is OpenSSH's but not implemented by pqssh server"));
        assertEquals("'-*' leaves no algorithm",
                assertThrows(IllegalArgumentException.class, () -> r("-*", false)).getMessage());
    }

    @Test
    void serverDefaultsAreWhatTheServerOffered() {
        assertEquals(List.of("chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
                "aes128-ctr", "aes192-ctr", "aes256-ctr"), ServerAlgorithms.CIPHERS.defaults());
        for (ServerAlgorithms k : ServerAlgorithms.values()) {
            assertTrue(k.all().containsAll(k.defaults()), k + ": every default is selectable");
            assertEquals(k.defaults(), k.resolve("-no-such-name"), k.keyword());
        }
        assertTrue(!ServerAlgorithms.CIPHERS.all().contains("none")
                && !ServerAlgorithms.CIPHERS.all().contains("arcfour256"), ServerAlgorithms.CIPHERS.all().toString());
        assertTrue(ServerAlgorithms.CA_SIGNATURE.all().stream().noneMatch(n -> n.contains("-cert-")));
    }
}
