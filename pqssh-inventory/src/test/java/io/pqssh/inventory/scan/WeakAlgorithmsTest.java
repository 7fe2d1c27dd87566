package io.pqssh.inventory.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.inventory.report.JsonReport;
import io.pqssh.inventory.report.SarifReport;

/** At least ssh-audit 3.x's verdicts for hmac-sha1, umac-64, CBC; NIST curves as info, each with its reason. */
class WeakAlgorithmsTest {
    @Test
    void verdictsAndReasons() {
        Algorithms.Weakness sha1 = Algorithms.judge("mac", "hmac-sha1");
        assertEquals("fail", sha1.severity());
        assertTrue(sha1.reason().contains("SHA-1"));
        assertEquals("fail", Algorithms.judge("mac", "hmac-sha1-etm@openssh.com").severity());
        Algorithms.Weakness umac = Algorithms.judge("mac", "umac-64-etm@openssh.com");
        assertEquals("warn", umac.severity());
        assertTrue(umac.reason().contains("64-bit tag"));
        assertEquals("warn", Algorithms.judge("cipher", "aes256-cbc").severity());
        assertTrue(Algorithms.judge("cipher", "aes256-cbc").reason().contains("CBC"));
        assertEquals("fail", Algorithms.judge("cipher", "3des-cbc").severity());
        for (String[] nist : List.of(new String[] {"kex", "ecdh-sha2-nistp256"}, new String[] {"hostkey",
                "ecdsa-sha2-nistp384"}, new String[] {"kex", "mlkem768nistp256-sha256"})) {
            Algorithms.Weakness w = Algorithms.judge(nist[0], nist[1]);
            assertEquals("info", w.severity(), nist[1]);
            assertFalse(w.weak(), nist[1]);
            assertTrue(w.reason().contains("NIST P-curve") && w.reason().contains("ssh-audit"), w.reason());
        }
        assertNull(Algorithms.judge("mac", "hmac-sha2-256-etm@openssh.com"));
        assertNull(Algorithms.judge("kex", "mlkem768x25519-sha256"));
        assertTrue(Algorithms.isWeakName("umac-64@openssh.com"));
        assertFalse(Algorithms.isWeakName("ecdh-sha2-nistp256"), "info is not weak");
    }

    @Test
    void reportsCarryTheReasons() throws Exception {
        KexInit k = new KexInit(List.of("ecdh-sha2-nistp256", "diffie-hellman-group14-sha1"),
                List.of("ecdsa-sha2-nistp256"), List.of("aes128-cbc"), List.of("aes128-ctr"),
                List.of("umac-64@openssh.com"), List.of("hmac-sha1"), List.of("none"), List.of("none"), List.of(),
                List.of(), false);
        ScanResult r = new ScanResult(new Target("192.0.2.5", 22), ScanResult.Status.SSH, null, "SSH-2.0-x", "x", k,
                Classification.of(k), List.of(), 1, 0);
        assertEquals(List.of("kex:diffie-hellman-group14-sha1", "cipher:aes128-cbc", "mac:umac-64@openssh.com",
                "mac:hmac-sha1"), r.classification().weak());
        JsonNode doc = new ObjectMapper().readTree(JsonReport.scan(List.of(r)));
        JsonNode t = doc.get("targets").get(0);
        assertEquals("[\"kex:ecdh-sha2-nistp256\",\"hostkey:ecdsa-sha2-nistp256\"]", t.get("info").toString());
        assertEquals("info", doc.get("algorithmNotes").get("kex:ecdh-sha2-nistp256").get("severity").asText());
        assertTrue(doc.get("algorithmNotes").get("mac:umac-64@openssh.com").get("reason").asText()
                .contains("64-bit tag"));
        String sarif = SarifReport.scan(List.of(r));
        assertTrue(sarif.contains("mac:hmac-sha1 (fail: using broken SHA-1 hash algorithm)"), sarif);
        assertTrue(sarif.contains("\"ruleId\" : \"algorithm-info\""), sarif);
    }
}
