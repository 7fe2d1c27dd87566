package io.pqssh.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.authorized.AuthorizedKeyEntry;
import io.pqssh.core.keys.authorized.AuthorizedKeys;
import io.pqssh.core.keys.authorized.RejectedLine;

/**
 * {@code authorized_keys} (with options: from=, expiry-time=, command=, restrict, ...), {@code authorized_kem_keys}
 * and single public key lines (.pub, known_hosts-style). Contract: the file parsers never throw, they return the
 * accepted entries and the rejected lines (each with a reason and a line number of the input); the line parser
 * throws {@link KeyFileException} only.
 */
class AuthorizedKeysFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void authorizedKeys(byte[] content) {
        String text = new String(content, StandardCharsets.UTF_8);
        check(AuthorizedKeys.parse(text, "fuzz", ZoneOffset.UTC), text);
    }

    @FuzzTest(maxDuration = "30s")
    void authorizedKemKeys(byte[] content) {
        String text = new String(content, StandardCharsets.UTF_8);
        check(AuthorizedKeys.parseKemKeys(text, "fuzz"), text);
    }

    @FuzzTest(maxDuration = "30s")
    void publicKeyLine(byte[] content) {
        String line = new String(content, StandardCharsets.UTF_8);
        try {
            PublicKeyLine p = PublicKeyLine.parse(line);
            assertEquals(p.keyType(), PublicKeyLine.blobKeyType(p.blob()));
        } catch (KeyFileException e) {
            assertNotNull(e.getMessage());
        }
    }

    private static void check(AuthorizedKeys keys, String text) {
        int lines = text.split("\n", -1).length;
        assertTrue(keys.entries().size() + keys.rejected().size() <= lines);
        for (AuthorizedKeyEntry e : keys.entries()) {
            assertTrue(e.lineNumber() >= 1 && e.lineNumber() <= lines);
        }
        for (RejectedLine r : keys.rejected()) {
            assertNotNull(r.reason());
            assertTrue(r.lineNumber() >= 1 && r.lineNumber() <= lines);
        }
    }
}
