package io.pqssh.server.forward;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

/** sshd's bind_permitted rule as pqssh applies it for a remote forwarding's listen port. */
class BindPermittedTest {
    @Test
    void privilegedPortsOnlyForUidZero() {
        assertFalse(PolicyForwardingFilter.bindPermitted(80, OptionalLong.of(1000), 0));
        assertFalse(PolicyForwardingFilter.bindPermitted(1023, OptionalLong.of(1000), 0));
        assertTrue(PolicyForwardingFilter.bindPermitted(1024, OptionalLong.of(1000), 0));
        assertTrue(PolicyForwardingFilter.bindPermitted(0, OptionalLong.of(1000), 0), "port 0: the kernel picks");
        assertTrue(PolicyForwardingFilter.bindPermitted(80, OptionalLong.of(0), 0), "root logged in as root");
    }

    @Test
    void withoutAnAccountARootJvmRefusesAndAnotherLeavesItToTheKernel() {
        assertFalse(PolicyForwardingFilter.bindPermitted(80, OptionalLong.empty(), 0));
        assertTrue(PolicyForwardingFilter.bindPermitted(80, OptionalLong.empty(), 1000));
    }
}
