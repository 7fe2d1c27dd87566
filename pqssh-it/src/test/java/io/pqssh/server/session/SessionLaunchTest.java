package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.pqssh.server.login.Account;

/** What the root server executes for a session, and what of the client's input reaches it (issue 20 §1). */
class SessionLaunchTest {
    private static final Account ALICE = new Account("alice", 1234, 1235, Path.of("/nonexistent/alice"),
            "/bin/bash");

    private static SessionLaunch launch(Map<String, String> clientEnv, String command) {
        return SessionLaunch.of(ALICE, true, command, new InetSocketAddress("127.0.0.1", 40000),
                new InetSocketAddress("127.0.0.1", 22), clientEnv, Map.of("TERM", "xterm"));
    }

    @Test
    void nothingFromTheClientPrecedesTheUidChangeAndTheEnvironmentIsNotInArgv() throws Exception {
        SessionLaunch l = launch(Map.of("LD_PRELOAD", "/tmp/evil.so", "SECRET_TOKEN", "s3cr3t"), "id; echo x");
        List<String> argv = l.spawnArgv();
        assertEquals(List.of(SessionLaunch.SETPRIV, "--reuid=1234", "--regid=1235", "--init-groups", "--",
                SessionLaunch.BASH, "-c", SessionLaunch.TRAMPOLINE, "pqssh-session", "/"), argv.subList(0, 10),
                "setpriv's options are fixed; the working directory is / when the home is missing");
        assertEquals(List.of("/bin/bash", "-c", "id; echo x"), argv.subList(10, argv.size()));
        assertTrue(argv.stream().noneMatch(a -> a.contains("evil") || a.contains("s3cr3t")),
                "the environment is readable by everyone in /proc/PID/cmdline if it is in argv: " + argv);
        assertEquals(List.of("PATH=/usr/bin:/bin"), SessionLaunch.SPAWN_ENV);
    }

    @Test
    void theEnvironmentGoesNulSeparatedWithSshdsVariablesWinning() {
        Map<String, String> client = new LinkedHashMap<>();
        client.put("LANG", "xx_YY.UTF-8");
        client.put("USER", "root"); // sshd's own value wins
        client.put("MULTI", "a\nb c");
        String payload = new String(launch(client, null).environmentPayload(), StandardCharsets.UTF_8);
        assertTrue(payload.endsWith("\0"), payload);
        List<String> entries = List.of(payload.substring(0, payload.length() - 1).split("\0", -1));
        assertTrue(entries.contains("LANG=xx_YY.UTF-8"), entries.toString());
        assertTrue(entries.contains("MULTI=a\nb c"), entries.toString());
        assertTrue(entries.contains("USER=alice") && !entries.contains("USER=root"), entries.toString());
        assertTrue(entries.contains("TERM=xterm"), entries.toString());
    }

    @Test
    void entriesThatCouldSmuggleAnotherOneInAreLeftOut() {
        Map<String, String> client = new LinkedHashMap<>();
        client.put("A", "x\0PATH=/tmp/evil");
        client.put("B\0PATH", "/tmp/evil");
        client.put("C=PATH", "/tmp/evil");
        client.put("", "PATH=/tmp/evil");
        client.put("OK", "fine");
        String payload = new String(launch(client, "true").environmentPayload(), StandardCharsets.UTF_8);
        assertFalse(payload.contains("evil"), payload);
        assertTrue(payload.contains("\0OK=fine\0") || payload.startsWith("OK=fine\0"), payload);
    }

    @Test
    void aShellThatIsNoAbsolutePathIsRefused() {
        Account odd = new Account("bob", 1300, 1300, Path.of("/"), "sh");
        SessionLaunch l = SessionLaunch.of(odd, true, "true", null, null, Map.of(), Map.of());
        IOException e = assertThrows(IOException.class, l::spawnArgv);
        assertTrue(e.getMessage().contains("absolute path"), e.getMessage());
    }
}
