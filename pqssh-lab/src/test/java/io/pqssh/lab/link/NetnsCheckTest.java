package io.pqssh.lab.link;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The lab's refusals: not root, no ip tool, no TUN. */
class NetnsCheckTest {
    @Test
    void refusesWithoutRootAndOffersLoopback() {
        Netns.LabUnavailableException e = assertThrows(Netns.LabUnavailableException.class,
                () -> Netns.check(false, "/usr/sbin/ip", true));
        assertTrue(e.getMessage().contains("needs root") && e.getMessage().contains("--loopback"), e.getMessage());
    }

    @Test
    void refusesWithoutIpTool() {
        Netns.LabUnavailableException e = assertThrows(Netns.LabUnavailableException.class,
                () -> Netns.check(true, null, true));
        assertTrue(e.getMessage().contains("'ip' tool") && e.getMessage().contains("iproute2"), e.getMessage());
    }

    @Test
    void refusesWithoutTun() {
        Netns.LabUnavailableException e = assertThrows(Netns.LabUnavailableException.class,
                () -> Netns.check(true, "/usr/sbin/ip", false));
        assertTrue(e.getMessage().contains("/dev/net/tun"), e.getMessage());
        assertDoesNotThrow(() -> Netns.check(true, "/usr/sbin/ip", true));
    }

    @Test
    void thisMachineCanRunTheLab() throws Exception {
        // CI runs as root with iproute2: the lab tests must not pass by skipping
        Netns.requireUsable();
    }
}
