package io.pqssh.mina.fuzz;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.pqssh.server.ServerConfig;
import io.pqssh.server.ServerConfig.ConfigException;

/**
 * The sshd_config-syntax parser of {@code pqssh server}. Contract: each line is applied or is a
 * {@link ConfigException} naming where it came from; no other exception, and the values that were accepted are in
 * range. Seeds: a full configuration with every keyword, and edge forms (= syntax, comments, suffixes).
 */
class ServerConfigFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void apply(byte[] content) {
        ServerConfig c = new ServerConfig();
        String[] lines = new String(content, StandardCharsets.UTF_8).split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String where = "fuzz:" + (i + 1);
            try {
                c.apply(lines[i], where);
            } catch (ConfigException e) {
                assertNotNull(e.getMessage());
                assertTrue(e.getMessage().startsWith(where), e.getMessage());
            }
        }
        assertTrue(c.port >= 0 && c.port <= 65535);
        assertTrue(c.maxAuthTries >= 1);
        assertTrue(c.maxPendingKemChallenges >= 1 && c.maxPendingKemChallengesPerSource >= 1);
        assertFalse(c.loginGraceTime.isNegative());
        assertFalse(c.kemAuthAlgorithms.isEmpty());
        assertTrue(c.preAuth.startupsStart() <= c.preAuth.startupsFull() && c.preAuth.maxPreauthPacket() >= 1024);
    }
}
