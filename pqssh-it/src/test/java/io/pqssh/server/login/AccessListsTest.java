package io.pqssh.server.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** sshd's DenyUsers, AllowUsers, DenyGroups, AllowGroups: patterns, user@host, order and log wording. */
class AccessListsTest {
    private static Optional<String> why(AccessLists l, String user, String addr, String... groups) {
        return l.refusal(user, addr, () -> List.of(groups));
    }

    @Test
    void userPatternsWildcardsAndHosts() {
        assertTrue(AccessLists.matchUser("alice", "10.0.0.1", "al*"));
        assertTrue(AccessLists.matchUser("alice", "10.0.0.1", "a?ice"));
        assertFalse(AccessLists.matchUser("alice", "10.0.0.1", "a?"));
        assertFalse(AccessLists.matchUser("Alice", "10.0.0.1", "alice"), "user names are case-sensitive");
        assertTrue(AccessLists.matchUser("alice", "10.0.0.1", "alice@10.0.0.*"));
        assertTrue(AccessLists.matchUser("alice", "10.0.0.1", "alice@10.0.0.0/24"));
        assertFalse(AccessLists.matchUser("alice", "10.0.1.1", "alice@10.0.0.0/24"));
        assertTrue(AccessLists.matchUser("alice", "10.0.1.1", "*@192.168.1.1,10.0.0.0/16"));
        assertFalse(AccessLists.matchUser("alice", "10.0.0.9", "alice@10.0.0.0/24,!10.0.0.9"),
                "a negated host decides");
        assertFalse(AccessLists.matchUser("alice", null, "alice@*"), "no address: a host pattern never matches");
        assertTrue(AccessLists.matchUser("alice", "::1", "alice@::1/128"));
        assertFalse(AccessLists.matchUser("bob", "10.0.0.1", "alice@10.0.0.1"));
        assertThrows(IllegalArgumentException.class, () -> AccessLists.NONE.allowUsers("a@10.0.0.0/99"));
        assertThrows(IllegalArgumentException.class, () -> AccessLists.NONE.allowGroups("wheel@host"));
    }

    @Test
    void sshdOrderAndWording() {
        AccessLists none = AccessLists.NONE;
        assertEquals(Optional.empty(), why(none, "alice", "1.2.3.4"));
        AccessLists l = none.denyUsers("mallory eve*").allowUsers("alice bob@10.0.0.0/8").allowUsers("eve");
        assertEquals(Optional.of("listed in DenyUsers"), why(l, "eve", "1.2.3.4"), "DenyUsers comes before AllowUsers");
        assertEquals(Optional.of("not listed in AllowUsers"), why(l, "carol", "1.2.3.4"));
        assertEquals(Optional.of("not listed in AllowUsers"), why(l, "bob", "1.2.3.4"));
        assertEquals(Optional.empty(), why(l, "bob", "10.1.2.3"));
        assertEquals(Optional.empty(), why(l, "alice", "1.2.3.4"));

        AccessLists g = none.denyGroups("games").allowGroups("ssh-* wheel");
        assertEquals(Optional.of("not in any group"), why(g, "alice", "1.2.3.4"));
        assertEquals(Optional.of("a group is listed in DenyGroups"), why(g, "alice", "1.2.3.4", "wheel", "games"));
        assertEquals(Optional.of("none of user's groups are listed in AllowGroups"),
                why(g, "alice", "1.2.3.4", "users"));
        assertEquals(Optional.empty(), why(g, "alice", "1.2.3.4", "users", "ssh-users"));
        AtomicInteger asked = new AtomicInteger();
        none.allowUsers("alice").refusal("alice", "1.2.3.4", () -> {
            asked.incrementAndGet();
            return List.of();
        });
        assertEquals(0, asked.get(), "groups are looked up only when a group list is set");
    }
}
