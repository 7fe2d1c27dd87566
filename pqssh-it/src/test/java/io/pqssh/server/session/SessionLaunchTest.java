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

    /**
     * The trampoline hands the program the SHLVL it imported, as sshd hands on SetEnv SHLVL=1 (bash's exec lowers
     * it by one; Debian's bash reads ~/.bashrc for a command over SSH only while SHLVL is below 2), and none when
     * none came; a value that is no number is never evaluated (bash arithmetic on the client's text could run code).
     */
    @Test
    void theTrampolineHandsOnTheImportedShlvlUnchanged() throws Exception {
        assertEquals("SHLVL=1", trampoline("SHLVL=1\0", "/usr/bin/printenv SHLVL | sed s/^/SHLVL=/"));
        assertEquals("2", trampoline("SHLVL=1\0", "/bin/bash -c 'echo $SHLVL'"),
                "the user's bash under sshd with SetEnv SHLVL=1 prints 2");
        assertEquals("1", trampoline("", "/bin/bash -c 'echo $SHLVL'"), "none imported: 1, as under sshd");
        // bash's exec hands a value that is no number on as 0, so the user's bash starts at 1, as with sshd
        assertEquals("1", trampoline("SHLVL=a[$(echo pwned >&2)]\0", "/bin/bash -c 'echo $SHLVL'"),
                "never evaluated");
    }

    /** The trampoline run with {@code payload} on descriptor 3, executing {@code sh -c script}. */
    private static String trampoline(String payload, String script) throws Exception {
        Process p = new ProcessBuilder(SessionLaunch.BASH, "-c",
                "exec 3< <(printf '%s' \"$1\" | tr '\\n' '\\0'); shift; exec /bin/bash -c \"$@\"", "feed",
                payload.replace('\0', '\n'), SessionLaunch.TRAMPOLINE, "pqssh-session", "/", "/bin/sh", "-c", script)
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the trampoline did not end");
        return out.strip();
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
