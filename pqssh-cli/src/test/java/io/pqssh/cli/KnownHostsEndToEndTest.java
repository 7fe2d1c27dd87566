package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh} host key checking against Debian's sshd, side by side with OpenSSH's ssh on the same
 * known_hosts files: host patterns and negation, {@code @revoked} (also from a global file), GlobalKnownHostsFile and
 * UserKnownHostsFile lists, {@code @cert-authority} lines, and the changed-key block. Messages must be ssh's.
 */
class KnownHostsEndToEndTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private Path key;
    private int port;
    private String hostKey;
    private String otherKey;

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path a = dir.resolve("authorized_keys");
        Files.writeString(a, Files.readString(pub(key)));
        port = h.startSshd(a);
        hostKey = keyText(dir.resolve("sshd_host_key"));
        otherKey = keyText(CliHarness.sshKeygen(dir.resolve("other_host_key"), "ed25519"));
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private static String keyText(Path privateKey) throws Exception {
        String[] f = Files.readString(pub(privateKey)).split(" ");
        return f[0] + " " + f[1];
    }

    private String name() {
        return "[127.0.0.1]:" + port;
    }

    /** {@code global} null: the default global files (absent on the test machine). */
    private List<String> options(String strict, String user, String global) {
        List<String> o = new ArrayList<>(List.of("-p", String.valueOf(port), "-i", key.toString(), "-o",
                "BatchMode=yes", "-o", "StrictHostKeyChecking=" + strict, "-o", "UserKnownHostsFile=" + user));
        if (global != null) {
            o.addAll(List.of("-o", "GlobalKnownHostsFile=" + global));
        }
        return o;
    }

    /** pqssh ssh and OpenSSH's ssh with the same options, running {@code echo ran}. */
    private CliHarness.Result[] both(String strict, String user, String global) throws Exception {
        List<String> p = new ArrayList<>(List.of("ssh"));
        p.addAll(options(strict, user, global));
        p.addAll(List.of(CliHarness.user() + "@127.0.0.1", "echo ran"));
        CliHarness.Result pq = withoutLibraryLog(CliHarness.pqssh(p.toArray(String[]::new)));
        List<String> o = new ArrayList<>(List.of(CliHarness.SSH.toString(), "-F", "none"));
        o.addAll(options(strict, user, global));
        o.addAll(List.of(CliHarness.user() + "@127.0.0.1", "echo ran"));
        CliHarness.Result ssh = CliHarness.exec(dir, o);
        // ssh ends its log lines with CR LF on stderr; the words are what is compared
        ssh = new CliHarness.Result(ssh.rc(), ssh.out(), ssh.err().replace("\r\n", "\n"));
        return new CliHarness.Result[] {pq, ssh};
    }

    /**
     * The test class path has a logger MINA reports its exceptions to (the shipped pqssh ssh logs nothing below
     * -vvv); its lines are not pqssh's messages.
     */
    private static CliHarness.Result withoutLibraryLog(CliHarness.Result r) {
        StringBuilder b = new StringBuilder();
        r.err().lines().filter(l -> !l.matches("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\w+ org\\.apache\\.sshd\\..*"))
                .forEach(l -> b.append(l).append('\n'));
        return new CliHarness.Result(r.rc(), r.out(), b.toString());
    }

    private Path file(String name, String... lines) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, String.join("\n", lines) + "\n");
        return f;
    }

    @Test
    void aWildcardRevocationInTheGlobalFileRefusesAKeyTheUserFileKnows() throws Exception {
        Path one = file("one", "@revoked * " + hostKey, name() + " " + hostKey);
        CliHarness.Result[] same = both("yes", one.toString(), null);
        assertEquals(255, same[1].rc(), same[1].all());
        assertEquals(255, same[0].rc(), same[0].all());
        assertEquals(same[1].err(), same[0].err());

        Path user = file("user", name() + " " + hostKey);
        Path global = file("global", "@revoked * " + hostKey);
        CliHarness.Result[] r = both("yes", user.toString(), global.toString());
        assertEquals(255, r[1].rc(), r[1].all());
        assertEquals(255, r[0].rc(), r[0].all());
        assertEquals(r[1].err(), r[0].err(), "pqssh's lines are ssh's");
        assertTrue(r[0].err().contains("ED25519 host key for " + name() + " was revoked and you have requested strict"
                + " checking.\nHost key verification failed.\n"), r[0].all());
        assertFalse(r[0].out().contains("ran"), r[0].all());

        // "no": the connection goes on as in ssh, with the man-in-the-middle precautions
        CliHarness.Result[] no = both("no", user.toString(), global.toString());
        assertEquals(0, no[1].rc(), no[1].all());
        assertEquals(0, no[0].rc(), no[0].all());
        assertEquals(no[1].err(), no[0].err(), "the same block and the same precautions named");
        assertTrue(no[0].err().contains("Password authentication is disabled to avoid man-in-the-middle attacks."));
        assertFalse(no[0].err().contains("Agent forwarding"), "agent forwarding was not on, so ssh does not name it");
    }

    @Test
    void globalFilesAndPatternsMakeAKeyKnown() throws Exception {
        Path global = file("global2", "# fleet", "other.example,[127.0.0.?]:* " + hostKey);
        String globals = dir.resolve("no-such-global") + " " + global;
        Path user = dir.resolve("user-untouched");
        CliHarness.Result[] r = both("yes", user.toString(), globals);
        assertEquals(0, r[1].rc(), r[1].all());
        assertEquals(0, r[0].rc(), r[0].all());
        assertEquals("ran\n", r[0].out());
        assertFalse(Files.exists(user), "a key known from the global file is not written to the user's");

        // a second UserKnownHostsFile is read too
        Path second = file("second", name() + " " + hostKey);
        CliHarness.Result[] users = both("yes", dir.resolve("first-missing") + " " + second, "none");
        assertEquals(0, users[1].rc(), users[1].all());
        assertEquals(0, users[0].rc(), users[0].all());
    }

    @Test
    void aKeyRecordedForTheBareNameIsGoodOnAnyPortAsSshChecksWithoutThePort() throws Exception {
        Path user = file("u7", "127.0.0.1 " + hostKey);
        CliHarness.Result[] r = both("yes", user.toString(), "none");
        assertEquals(0, r[1].rc(), r[1].all());
        assertEquals(0, r[0].rc(), r[0].all());
        assertEquals("127.0.0.1 " + hostKey + "\n", Files.readString(user), "nothing is added for the port");
    }

    @Test
    void aNegatedPatternVetoesTheLine() throws Exception {
        Path global = file("global3", "[127.0.0.1]:*,!" + name() + " " + hostKey);
        CliHarness.Result[] r = both("yes", dir.resolve("u3").toString(), global.toString());
        assertEquals(255, r[1].rc(), r[1].all());
        assertEquals(255, r[0].rc(), r[0].all());
        assertTrue(r[0].err().contains("No ED25519 host key is known for " + name()
                + " and you have requested strict checking.\nHost key verification failed.\n"), r[0].all());
        assertEquals(r[1].err(), r[0].err());
    }

    @Test
    void certAuthorityLinesAreReadWithoutVouchingForAPlainKey() throws Exception {
        Path user = file("u4", "@cert-authority * " + otherKey, name() + " " + hostKey);
        CliHarness.Result[] ok = both("yes", user.toString(), "none");
        assertEquals(0, ok[1].rc(), ok[1].all());
        assertEquals(0, ok[0].rc(), ok[0].all());
        Path caOnly = file("u5", "@cert-authority * " + hostKey);
        CliHarness.Result[] r = both("yes", caOnly.toString(), "none");
        assertEquals(255, r[1].rc(), r[1].all());
        assertEquals(255, r[0].rc(), r[0].all());
        assertEquals(r[1].err(), r[0].err());
    }

    @Test
    void aChangedKeyPrintsSshsBlockWithTheOffendingLineAndTheRemoveHint() throws Exception {
        Path user = file("u6", "# first line", name() + " " + otherKey);
        CliHarness.Result[] r = both("yes", user.toString(), "none");
        assertEquals(255, r[1].rc(), r[1].all());
        assertEquals(255, r[0].rc(), r[0].all());
        assertTrue(r[0].err().contains("Offending ED25519 key in " + user + ":2\n  remove with:\n  ssh-keygen -f \""
                + user + "\" -R \"" + name() + "\"\n"), r[0].all());
        assertFalse(r[0].err().contains("did not validate"), r[0].all());
        assertEquals(r[1].err(), r[0].err());
    }
}
