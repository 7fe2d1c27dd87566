package io.pqssh.inventory.scan;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.core.wire.MalformedMessageException;

/**
 * The scanner's parsers face whatever a hostile or broken server sends. Contract: banner and packet readers fail
 * only with {@link IOException} (a "not ssh" result), the KEXINIT parser only with
 * {@link MalformedMessageException}, a ZGrab2 record only with IOException or IllegalArgumentException (what
 * {@link Zgrab2Reader#read} turns into a per-line error); every name it accepts respects the parser's bounds.
 * Seeds: real banners and KEXINITs (Debian OpenSSH 9.2, pqssh) and ZGrab2 records.
 */
class InventoryFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @FuzzTest(maxDuration = "30s")
    void banner(byte[] input) {
        try {
            SshTransport.Banner b = SshTransport.readBanner(new ByteArrayInputStream(input));
            assertNotNull(b);
        } catch (IOException e) {
            assertNotNull(e.getMessage() == null ? e.getClass().getName() : e.getMessage());
        }
    }

    @FuzzTest(maxDuration = "30s")
    void kexInit(byte[] payload) {
        KexInit k;
        try {
            k = KexInit.parse(payload);
        } catch (MalformedMessageException e) {
            assertNotNull(e.getMessage());
            return;
        }
        String all = k.toString();
        assertTrue(all.length() <= payload.length * 4 + 4096, "parsed KEXINIT larger than its input");
    }

    @FuzzTest(maxDuration = "30s")
    void kexInitStream(byte[] input) {
        try {
            assertNotNull(SshTransport.readKexInit(new ByteArrayInputStream(input)));
        } catch (IOException e) {
            assertNotNull(e.getClass());
        }
    }

    @FuzzTest(maxDuration = "30s")
    void zgrab2Record(byte[] input) {
        String line = new String(input, StandardCharsets.UTF_8);
        try {
            assertNotNull(Zgrab2Reader.records(line, 22));
        } catch (IOException | IllegalArgumentException e) {
            assertNotNull(e.getClass());
        }
    }
}
