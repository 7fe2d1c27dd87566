package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh add -} and {@code pqssh add -d -}: a key read from stdin, named {@code (stdin)}, as ssh-add 9.2 does
 * against the same OpenSSH ssh-agent (same stderr lines and status; no certificate is looked for beside stdin).
 */
class AddStdinTest {
    @Test
    void addAndRemoveAKeyReadFromStdinAsSshAdd(@TempDir Path dir) throws Exception {
        try (ForwardingHarness h = new ForwardingHarness(dir); AgentHarness agents = new AgentHarness(dir, h)) {
            Path sock = dir.resolve("agent.sock");
            agents.opensshAgent(sock, Map.of());
            Map<String, String> env = Map.of("SSH_AUTH_SOCK", sock.toString());
            Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
            // a certificate beside the file must not be added: stdin has no "beside"
            CliHarness.sshKeygenSign(CliHarness.sshKeygen(dir.resolve("ca"), "ed25519"), key, "-I", "c", "-n", "u");

            CliHarness.Result theirsAdd = CliHarness.shell(dir, env, "ssh-add - < " + key);
            assertEquals(0, theirsAdd.rc(), theirsAdd.all());
            assertEquals(1, CliHarness.shell(dir, env, "ssh-add -l").out().lines().count());
            CliHarness.Result theirsDel = CliHarness.shell(dir, env, "ssh-add -d - < " + pub(key));
            assertEquals(0, theirsDel.rc(), theirsDel.all());
            assertTrue(theirsDel.err().contains("Identity removed: (stdin) ED25519 ("), theirsDel.all());

            CliHarness.Result add = CliHarness.shell(dir, env, "$PQSSH add - < " + key);
            assertEquals(0, add.rc(), add.all());
            assertEquals(theirsAdd.err(), add.err());
            CliHarness.Result listed = CliHarness.shell(dir, env, "ssh-add -l");
            assertEquals(1, listed.out().lines().count(), listed.all());
            assertTrue(listed.out().contains("(ED25519)"), listed.all());
            CliHarness.Result del = CliHarness.shell(dir, env, "$PQSSH add -d - < " + pub(key));
            assertEquals(0, del.rc(), del.all());
            assertEquals(theirsDel.err(), del.err());
            CliHarness.Result none = CliHarness.shell(dir, env, "ssh-add -l");
            assertEquals(1, none.rc(), none.all());
            assertTrue(none.out().contains("The agent has no identities."), none.all());
            // nothing on stdin is a bad key, as for a file
            CliHarness.Result empty = CliHarness.shell(dir, env, "$PQSSH add -d - < /dev/null");
            assertEquals(1, empty.rc(), empty.all());
            assertTrue(empty.err().startsWith("Bad key file (stdin): "), empty.all());
        }
    }
}
