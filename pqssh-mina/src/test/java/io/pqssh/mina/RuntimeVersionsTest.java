package io.pqssh.mina;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RuntimeVersionsTest {
    @Test
    void readsTheVersionsOnTheClassPath() {
        // the build's own versions (pom.xml: sshd.version, bc.version)
        assertEquals("2.20.0", RuntimeVersions.minaVersion().orElseThrow());
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
