package io.pqssh.common.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class PercentExpandTest {
    @Test
    void tokensAndPercent() {
        assertEquals("/home/a/a%x", PercentExpand.expand("%h/%u%%x", Map.of('h', "/home/a", 'u', "a")));
        assertEquals("plain", PercentExpand.expand("plain", Map.of()));
    }

    @Test
    void unknownOrTrailingPercentIsAnError() {
        assertEquals("unknown key %z", assertThrows(IllegalArgumentException.class,
                () -> PercentExpand.expand("a%z", Map.of('u', "x"))).getMessage());
        assertEquals("unknown key %", assertThrows(IllegalArgumentException.class,
                () -> PercentExpand.expand("a%", Map.of())).getMessage());
    }

    @Test
    void valuesAreLookedUpOnlyWhenUsed() {
        List<Character> asked = new ArrayList<>();
        assertEquals("x-1%h", PercentExpand.expand("x-%i%%h", t -> {
            asked.add(t);
            return t == 'i' ? "1" : null;
        }));
        assertEquals(List.of('i'), asked);
    }
}
