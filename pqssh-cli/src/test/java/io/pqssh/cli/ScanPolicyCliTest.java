package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.server.PqsshServer;

/** {@code pqssh scan --make-policy FILE} from a live server, then {@code --policy FILE} and {@code pq-baseline}. */
class ScanPolicyCliTest {
    @TempDir
    Path dir;

    @Test
    void makePolicyThenCheckItAndTheBaseline() throws Exception {
        try (PqsshServer pq = PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(
                KeyUtils.generateKeyPair("ssh-ed25519", 256))).password((u, p, s) -> false).start();
                PqsshServer classical = PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(
                        KeyUtils.generateKeyPair("ssh-ed25519", 256))).password((u, p, s) -> false)
                        .kex(List.of("curve25519-sha256")).start()) {
            Path policy = dir.resolve("pq.policy");
            CliHarness.Result made = CliHarness.pqssh("scan", "-q", "--rate", "0", "127.0.0.1:" + pq.port(),
                    "--make-policy", policy.toString());
            assertEquals(0, made.rc(), made.all());
            String text = Files.readString(policy);
            assertTrue(text.contains("kex_required = mlkem768x25519-sha256"), text);

            CliHarness.Result same = CliHarness.pqssh("scan", "-q", "--rate", "0", "127.0.0.1:" + pq.port(),
                    "--policy", policy.toString());
            assertEquals(0, same.rc(), same.all());
            Path json = dir.resolve("r.json");
            CliHarness.Result other = CliHarness.pqssh("scan", "--rate", "0", "127.0.0.1:" + classical.port(),
                    "--policy", policy.toString(), "--json", json.toString());
            assertEquals(1, other.rc(), other.all());
            assertTrue(other.err().contains("--fail-on policy: 1 target(s)"), other.all());
            assertTrue(other.out().contains("policy: 0 of 1 SSH servers comply"), other.all());
            JsonNode t = new ObjectMapper().readTree(json.toFile()).get("targets").get(0);
            assertTrue(t.get("policy").toString().contains("kex required but not offered: mlkem768x25519-sha256"),
                    t.toString());

            CliHarness.Result baseline = CliHarness.pqssh("scan", "-q", "--rate", "0", "127.0.0.1:" + classical.port(),
                    "--policy", "pq-baseline");
            assertEquals(1, baseline.rc(), baseline.all());

            CliHarness.Result missing = CliHarness.pqssh("scan", "-q", "127.0.0.1:" + pq.port(), "--policy",
                    dir.resolve("none.policy").toString());
            assertEquals(2, missing.rc(), missing.all());
            CliHarness.Result two = CliHarness.pqssh("scan", "-q", "127.0.0.1:" + pq.port(), "127.0.0.1:"
                    + classical.port(), "--make-policy", dir.resolve("x").toString());
            assertEquals(2, two.rc(), two.all());
        }
    }

    @Test
    void zgrab2RecordsAgainstTheBaseline() throws Exception {
        CliHarness.Result r = CliHarness.pqssh("scan", "--zgrab2", ScanStreamingCliTest.FIXTURE.toString(), "--policy",
                "pq-baseline", "--jsonl", "-");
        assertEquals(1, r.rc(), r.all());
        assertTrue(r.out().contains("\"policy\":[\"cannot check: only the banner is known\"]"), r.all());
        assertTrue(r.out().contains("no post-quantum key exchange that OpenSSH 10 negotiates (only non-standard"),
                r.all());
    }
}
