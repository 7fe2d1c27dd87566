package io.pqssh.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.pqssh.server.login.Account;
import io.pqssh.server.session.UserCommand;

/** AuthorizedPrincipalsCommand's parsing (argv_split, percent_expand, principal lines) and the bounded runner. */
class PrincipalsCommandTest {
    @Test
    void splitsAsOpenSshArgvSplit() {
        assertEquals(List.of("/bin/p", "a b", "c'd", "e\"f", "g\\h", "x y"),
                AuthorizationCommand.argvSplit("  /bin/p \"a b\"\t\"c'd\" 'e\"f' \"g\\\\h\" x\\ y  "));
        assertEquals(List.of(), AuthorizationCommand.argvSplit("   "));
        assertThrows(IllegalArgumentException.class, () -> AuthorizationCommand.argvSplit("/bin/p \"open"));
    }

    @Test
    void expandsTokensAndRefusesUnknownOnes() {
        Map<Character, String> t = Map.of('u', "alice", 's', "7");
        assertEquals("alice-7-%", AuthorizationCommand.expand("%u-%s-%%", t));
        assertNull(AuthorizationCommand.expand("%x", t));
        assertNull(AuthorizationCommand.expand("trailing%", t));
    }

    @Test
    void readsPrincipalLinesAsSshd() {
        String text = "# comment\n  ops  # trailing\n\n\tdev\r\nfrom=\"10.0.0.1\" admins\n#ops2\n"
                + "bogus-option web\ncommand=\"echo a b\",no-pty\tdb\nno-pty  x  cache\n";
        assertEquals("ops", PrincipalsCommand.match(text, "f", List.of("ops")).orElseThrow().principal());
        assertEquals("f:2", PrincipalsCommand.match(text, "f", List.of("ops")).orElseThrow().location());
        assertEquals("dev", PrincipalsCommand.match(text, "f", List.of("x", "dev")).orElseThrow().principal());
        assertTrue(PrincipalsCommand.match(text, "f", List.of("dev")).orElseThrow().options().isEmpty());
        // options principal: the line's options come with it
        PrincipalsCommand.PrincipalLine admins = PrincipalsCommand.match(text, "f", List.of("admins")).orElseThrow();
        assertEquals("10.0.0.1", admins.options().from().orElseThrow());
        // a line whose options do not parse grants nothing
        assertTrue(PrincipalsCommand.match(text, "f", List.of("web")).isEmpty());
        // the principal follows the last space (a tab only when there is none), as sshd's strrchr: "b\",no-pty\tdb"
        assertTrue(PrincipalsCommand.match(text, "f", List.of("db")).isEmpty());
        // options end at the first blank outside quotes; what lies between them and the principal is not read
        PrincipalsCommand.PrincipalLine cache = PrincipalsCommand.match(text, "f", List.of("cache")).orElseThrow();
        assertTrue(!cache.options().ptyAllowed());
        assertTrue(PrincipalsCommand.match(text, "f", List.of("ops2", "comment")).isEmpty());
    }

    @Test
    void runnerBoundsOutputAndTime() throws Exception {
        Account me = new Account(System.getProperty("user.name"), 0, 0, Path.of("/"), "/bin/sh");
        UserCommand.Result r = UserCommand.run(List.of("/bin/sh", "-c", "echo hi; echo err >&2; exit 4"), me, false,
                Map.of("PATH", "/usr/bin:/bin"), 100, Duration.ofSeconds(30));
        assertEquals(4, r.status());
        assertEquals("hi\n", new String(r.out()));
        // stderr goes to the caller's log when it asks for it, bounded in lines
        List<String> err = new java.util.concurrent.CopyOnWriteArrayList<>();
        UserCommand.Result chatty = UserCommand.run(List.of("/bin/sh", "-c", "echo out; for i in $(seq 1 500); do "
                + "echo err$i >&2; done"), me, false, Map.of("PATH", "/usr/bin:/bin"), 100, Duration.ofSeconds(30),
                err::add);
        assertEquals("out\n", new String(chatty.out()));
        assertEquals(20, err.size(), err.toString());
        assertEquals("err1", err.get(0));
        assertThrows(UserCommand.OutputTooLong.class, () -> UserCommand.run(List.of("/bin/sh", "-c",
                "yes"), me, false, Map.of(), 4096, Duration.ofSeconds(30)));
        long t0 = System.nanoTime();
        IOException late = assertThrows(IOException.class, () -> UserCommand.run(List.of("/bin/sleep", "60"), me,
                false, Map.of(), 100, Duration.ofSeconds(1)));
        assertTrue(late.getMessage().contains("did not finish"), late.getMessage());
        // generous bound: killed long before sleep's 60 s even on a loaded machine
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(45).toNanos());
    }
}
