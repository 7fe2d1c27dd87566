package io.pqssh.server.forward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.pqssh.server.login.Account;
import io.pqssh.server.login.AccountSource;
import io.pqssh.server.login.LoginPolicy;

/**
 * When pqssh server serves Unix-domain socket forwarding: only as the logged-in user's own uid (a root server refuses
 * it for other accounts, since it would act with root's rights), and the streamlocal keywords.
 */
class StreamLocalForwardingTest {
    private static final Account ALICE = new Account("alice", 1001, 1001, Path.of("/home/alice"), "/bin/sh");
    private static final Account ROOT = new Account("root", 0, 0, Path.of("/root"), "/bin/sh");
    private static final AccountSource NONE = new AccountSource() {
        @Override
        public Optional<Account> byName(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<String> shadowEntry(String name) {
            return Optional.empty();
        }
    };

    @Test
    void aRootServerRefusesOtherUsersAndServesItsOwn() {
        LoginPolicy switching = LoginPolicy.switchingUsers(NONE);
        String refusal = StreamLocalForwarding.otherUser(switching, Optional.of(ALICE), 0, "connection to /x.sock");
        assertNotNull(refusal);
        assertTrue(refusal.contains("connection to /x.sock for alice") && refusal.contains("uid 0"), refusal);
        assertNull(StreamLocalForwarding.otherUser(switching, Optional.of(ROOT), 0, "x"));
        // a non-root server admits only its own user; an embedded server without accounts acts as itself
        assertNull(StreamLocalForwarding.otherUser(LoginPolicy.serverUserOnly(NONE, "alice"), Optional.of(ALICE),
                1001, "x"));
        assertNull(StreamLocalForwarding.otherUser(null, Optional.empty(), 1001, "x"));
    }

    @Test
    void keywordsAndDefaults() {
        ForwardingPolicy d = ForwardingPolicy.DEFAULT;
        assertTrue(d.localStreamLocalAllowed() && d.remoteStreamLocalAllowed());
        assertEquals(0177, d.streamLocalBindMask());
        assertEquals(false, d.streamLocalBindUnlink());
        ForwardingPolicy local = d.allowStreamLocalForwarding(ForwardingPolicy.TcpForwarding.LOCAL);
        assertTrue(local.localStreamLocalAllowed());
        assertEquals(false, local.remoteStreamLocalAllowed());
        assertEquals(false, d.disableForwarding(true).localStreamLocalAllowed());
        // the TCP keyword does not switch Unix sockets off, as in sshd
        assertTrue(d.allowTcpForwarding(ForwardingPolicy.TcpForwarding.NO).remoteStreamLocalAllowed());
        assertEquals(0117, d.streamLocalBindMask("0117").streamLocalBindMask());
        assertThrows(IllegalArgumentException.class, () -> d.streamLocalBindMask("0999"));
        assertThrows(IllegalArgumentException.class, () -> d.streamLocalBindMask("1777"));
    }
}
