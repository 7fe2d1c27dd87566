package io.pqssh.mina;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RuntimeVersionsTest {
    @Test
    void readsTheVersionsOnTheClassPath() {
        // the MINA this run is meant to test (pqssh-mina/pom.xml: sshd.version, or sshd.newest.version in the
        // mina-newest execution), so a class path that kept the build's MINA cannot pass for the newer one
        String expected = System.getProperty("pqssh.test.minaVersion");
        assertNotNull(expected, "run through Maven: pqssh-mina's surefire sets pqssh.test.minaVersion");
        assertEquals(expected, RuntimeVersions.minaVersion().orElseThrow());
        assertEquals("1.87", RuntimeVersions.bouncyCastleVersion().orElseThrow());
        assertDoesNotThrow(() -> RuntimeVersions.check());
    }

    @Test
    void namesTheLibraryAndTheVersionsWhenOutsideTheRange() {
        IllegalStateException oldMina = assertThrows(IllegalStateException.class,
                () -> RuntimeVersions.check("2.15.0", "1.87"));
        assertEquals("pqssh: MINA SSHD 2.15.0 is not supported; pqssh needs 2.20.0 or a newer 2.x (sshd-core and "
                + "sshd-common of the same version)", oldMina.getMessage());
        IllegalStateException oldBc = assertThrows(IllegalStateException.class,
                () -> RuntimeVersions.check("2.20.0", "1.78.1"));
        assertTrue(oldBc.getMessage().startsWith("pqssh: Bouncy Castle 1.78.1 is not supported; pqssh needs 1.87"),
                oldBc.getMessage());
        assertThrows(IllegalStateException.class, () -> RuntimeVersions.check("3.0.0-M1", "1.87"));
        assertDoesNotThrow(() -> RuntimeVersions.check("2.21.3", "1.90"));
    }

    @Test
    void comparesNumerically() {
        assertTrue(RuntimeVersions.compare("2.9.0", "2.20.0") < 0);
        assertTrue(RuntimeVersions.compare("1.87", "1.87.0") == 0);
        assertTrue(RuntimeVersions.compare("1.100", "1.87") > 0);
    }
}
