package io.pqssh.client.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

/** {@code -D}/{@code DynamicForward} and the bind-address forms of ssh's forwarding arguments. */
class ForwardSpecTest {
    private static ForwardSpec dynamic(String spec) throws ConfigException {
        return ForwardSpec.parseCommandLine(ForwardSpec.Kind.DYNAMIC, spec);
    }

    @Test
    void dynamicBindAddressForms() throws ConfigException {
        assertEquals(new ForwardSpec(ForwardSpec.Kind.DYNAMIC, null, 1080, null, null, null, null), dynamic("1080"));
        assertEquals("127.0.0.1", dynamic("127.0.0.1:1080").bindAddress());
        assertEquals("::1", dynamic("[::1]:1080").bindAddress());
        assertEquals(1080, dynamic("[::1]:1080").bindPort());
        assertEquals("*", dynamic("*:1080").bindAddress());
        assertEquals("localhost", dynamic("localhost:1080").bindAddress());
        // given but empty: every interface, as ssh reads it (not the loopback default of no address at all)
        assertEquals("", dynamic(":1080").bindAddress());
        assertEquals(ForwardSpec.parse(ForwardSpec.Kind.DYNAMIC, List.of("127.0.0.1:1080")),
                dynamic("127.0.0.1:1080"));
    }

    @Test
    void badSpecificationsInSshsWordsPerFlag() {
        for (String bad : List.of("abc", "1:2:3", "0", "65536", "127.0.0.1:", "")) {
            ConfigException e = assertThrows(ConfigException.class, () -> dynamic(bad), bad);
            assertEquals("Bad dynamic forwarding specification '" + bad + "'", e.getMessage());
        }
        assertEquals("Bad local forwarding specification 'abc'", assertThrows(ConfigException.class,
                () -> ForwardSpec.parseCommandLine(ForwardSpec.Kind.LOCAL, "abc")).getMessage());
        assertEquals("Bad remote forwarding specification 'x:y'", assertThrows(ConfigException.class,
                () -> ForwardSpec.parseCommandLine(ForwardSpec.Kind.REMOTE, "x:y")).getMessage());
        // the config form keeps its own words
        assertEquals("Bad forwarding specification 'abc'", assertThrows(ConfigException.class,
                () -> ForwardSpec.parse(ForwardSpec.Kind.DYNAMIC, List.of("abc"))).getMessage());
    }
}
