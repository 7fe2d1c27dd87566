package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A post-quantum user certificate held only by {@code pqssh agent} logs {@code pqssh ssh} in to {@code pqssh server}
 * through TrustedUserCAKeys: no key file on the client, no authorized_keys line for the plain key.
 */
class AgentPqCertificateLoginTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;
    private AgentHarness agents;

    @AfterEach
    void tearDown() throws Exception {
        if (agents != null) {
            agents.close();
        }
        if (h != null) {
            h.close();
        }
    }

    @Test
    void agentHeldPostQuantumCertificatesLogIn() throws Exception {
        h = new ForwardingHarness(dir);
        agents = new AgentHarness(dir, h);
        Path home = Files.createDirectories(dir.resolve("home"));
        Path sock = dir.resolve("pq-agent.sock");
        Map<String, String> env = AgentHarness.env(sock, home, null);
        agents.pqsshAgent(sock, env);
        Path ca = keygen("user_ca", "ed25519");
        Path authorized = Files.writeString(dir.resolve("authorized_keys_empty"), "");
        int port = h.startServer(authorized, "-o", "TrustedUserCAKeys=" + pub(ca));
        for (String type : List.of("mldsa65", "mldsa44-ed25519")) {
            Path key = keygen("id_" + type, type);
            CliHarness.Result sign = CliHarness.pqssh("keygen", "-s", ca.toString(), "-I", type + "-id", "-n",
                    CliHarness.user(), pub(key).toString());
            assertEquals(0, sign.rc(), sign.all());
            // the plain key alone is not authorized: without its certificate the agent's key is refused
            AgentHarness.Run keyOnly = agents.pqssh(env, "add", "-k", key.toString());
            assertEquals(0, keyOnly.rc(), keyOnly.out());
            AgentHarness.Run refused = ssh(env, port, sock, type);
            assertEquals(255, refused.rc(), type + ":\n" + refused.out());
            assertTrue(refused.out().contains("Permission denied"), refused.out());

            AgentHarness.Run add = agents.pqssh(env, "add", key.toString());
            assertEquals(0, add.rc(), add.out());
            assertTrue(add.out().contains("Certificate added: " + key + "-cert.pub (" + type + "-id)"), add.out());
            Files.delete(key); // only the agent signs now
            Files.delete(key.resolveSibling(key.getFileName() + "-cert.pub"));
            Files.delete(pub(key));
            AgentHarness.Run ok = ssh(env, port, sock, type);
            assertEquals(0, ok.rc(), type + ":\n" + ok.out());
            assertTrue(ok.out().contains("via-agent-" + type), ok.out());
            assertEquals(0, agents.pqssh(env, "add", "-D").rc());
        }
    }

    private AgentHarness.Run ssh(Map<String, String> env, int port, Path sock, String type) throws Exception {
        return agents.pqssh(env, "ssh", "-F", "none", "-v", "-p", String.valueOf(port), "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o",
                "KEMAuthentication=no", "-o", "IdentityAgent=" + sock, CliHarness.user() + "@127.0.0.1",
                "echo via-agent-" + type);
    }

    private Path keygen(String name, String type) throws Exception {
        Path file = dir.resolve(name);
        CliHarness.Result r = CliHarness.pqssh("keygen", "-q", "-t", type, "-N", "", "-f", file.toString());
        assertEquals(0, r.rc(), r.all());
        return file;
    }
}
