package io.pqssh.inventory.cbom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.cyclonedx.util.serializer.TrimStringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;

import io.pqssh.inventory.AuditFixtures;
import io.pqssh.inventory.CbomTestAccess;
import io.pqssh.inventory.audit.Auditor;
import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.report.ScanCounters;
import io.pqssh.inventory.report.ScanSink;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Target;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.StringLength;

/**
 * The fast CBOM path writes exactly the bytes of CycloneDX's own path (each batch as a BOM through a JSON tree, the
 * library's string serializer): same documents for the ZGrab2 fixture, for banners full of whitespace, and for an
 * audit; the string normalisation equals the library's for any string.
 */
class CbomWriterEquivalenceTest {
    private static final ObjectMapper LIBRARY_STRINGS = new ObjectMapper()
            .registerModule(new SimpleModule().addSerializer(new TrimStringSerializer()));

    @Test
    void scanCbomIsByteForByteTheLibrarysOwn() throws Exception {
        List<ScanResult> results = new ArrayList<>(CbomTestAccess.fixtureResults());
        // a server's banner is the one free-text string a target controls
        String[] banners = {"SSH-2.0-a\tb  c\r\nd", " SSH-2.0-x ", "SSH-2.0-\u00a0 \u2028y\rz", "SSH-2.0-   "};
        for (int i = 0; i < banners.length; i++) {
            KexInit k = new KexInit(List.of("mlkem768x25519-sha256", "curve25519-sha256"), List.of("ssh-ed25519"),
                    List.of("aes128-ctr"), List.of("aes128-ctr"), List.of("hmac-sha2-256"), List.of("hmac-sha2-256"),
                    List.of("none"), List.of("none"), List.of(), List.of(), true);
            results.add(new ScanResult(new Target("192.0.2." + (i + 1), 22), ScanResult.Status.SSH, null,
                    banners[i], banners[i].substring(8), k, Classification.of(k), List.of(), 1, 1));
        }
        // targets sharing one KEXINIT object (the fast path renders its offer once), and an equal one that is not
        // the same object
        KexInit shared = new KexInit(List.of("sntrup761x25519-sha512", "curve25519-sha256", "ext-info-s"),
                List.of("ssh-ed25519", "rsa-sha2-512"), List.of("aes256-gcm@openssh.com"), List.of("aes128-ctr"),
                List.of("hmac-sha2-512"), List.of("umac-64@openssh.com"), List.of("none"), List.of("none"), List.of(),
                List.of(), false);
        Classification sharedClass = Classification.of(shared);
        for (int i = 0; i < 3; i++) {
            results.add(new ScanResult(new Target("198.18.0." + (i + 1), 22), ScanResult.Status.SSH, null,
                    "SSH-2.0-s", "s", shared, sharedClass, List.of(), 1, 1));
        }
        KexInit equal = new KexInit(shared.kex(), shared.hostKey(), shared.ciphersC2S(), shared.ciphersS2C(),
                shared.macsC2S(), shared.macsS2C(), shared.compC2S(), shared.compS2C(), List.of(),
                List.of(), false);
        results.add(new ScanResult(new Target("198.18.0.9", 22), ScanResult.Status.SSH, null, "SSH-2.0-s", "s",
                equal, Classification.of(equal), List.of(), 1, 1));
        String fast = scan(results, false);
        String reference = scan(results, true);
        assertTrue(fast.contains("192.0.2.4:22"), "the test's own targets are in the document");
        assertTrue(fast.contains("198.18.0.3:22"), "the targets sharing a KEXINIT are in the document");
        assertEquals(withoutSerial(reference), withoutSerial(fast));
    }

    @Test
    void sharedOffersCountUndescribedAlgorithmsAsTheReferenceDoes() throws Exception {
        // a hostile server inventing more algorithm names than a document describes, seen twice
        List<String> invented = new ArrayList<>();
        for (int i = 0; i < CbomWriter.MAX_ALGORITHMS + 10; i++) {
            invented.add("invented-" + i + "@example.com");
        }
        KexInit k = new KexInit(invented, List.of("ssh-ed25519"), List.of("aes128-ctr"), List.of("aes128-ctr"),
                List.of("hmac-sha2-256"), List.of("hmac-sha2-256"), List.of("none"), List.of("none"), List.of(),
                List.of(), false);
        Classification c = Classification.of(k);
        List<ScanResult> results = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            results.add(new ScanResult(new Target("203.0.113." + (i + 1), 22), ScanResult.Status.SSH, null,
                    "SSH-2.0-h", "h", k, c, List.of(), 1, 1));
        }
        String fast = scan(results, false);
        assertTrue(fast.contains("\"pqssh:algorithms-not-described\",\"value\":\"26\""), "13 per target, twice");
        assertEquals(withoutSerial(scan(results, true)), withoutSerial(fast));
    }

    @Test
    void auditCbomIsByteForByteTheLibrarysOwn(@TempDir Path tmp) throws Exception {
        AuditFixtures fx = new AuditFixtures(tmp);
        List<Finding> findings = Auditor.audit(List.of(fx.alice, fx.bob, fx.carol, fx.etc));
        ByteArrayOutputStream fast = new ByteArrayOutputStream();
        Cboms.audit(findings, fast);
        ByteArrayOutputStream reference = new ByteArrayOutputStream();
        Cboms.auditViaBom(findings, reference);
        assertEquals(withoutSerial(reference.toString(StandardCharsets.UTF_8)),
                withoutSerial(fast.toString(StandardCharsets.UTF_8)));
    }

    @Test
    void theComparisonCanFail() throws Exception {
        List<ScanResult> results = CbomTestAccess.fixtureResults();
        assertNotEquals(withoutSerial(scan(results, true)), withoutSerial(scan(results.subList(1, results.size()),
                false)));
    }

    @Property(tries = 2000)
    void stringsAreNormalisedAsTheLibraryDoes(
            @ForAll @StringLength(max = 40) @Chars({' ', '\t', '\r', '\n', 'a', '-', '\u00a0', '\u000b'}) String s)
            throws Exception {
        assertEquals(LIBRARY_STRINGS.writeValueAsString(s), new ObjectMapper().writeValueAsString(
                CbomStrings.clean(s)), () -> "for " + s.chars().mapToObj(Integer::toHexString).toList());
    }

    private static String scan(List<ScanResult> results, boolean viaBom) throws IOException {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ScanCounters c = new ScanCounters();
        try (ScanSink s = viaBom ? Cboms.scanViaBom(o) : Cboms.scan((OutputStream) o)) {
            for (ScanResult r : results) {
                c.add(r);
                s.accept(r);
            }
            s.finish(c);
        }
        return o.toString(StandardCharsets.UTF_8);
    }

    private static String withoutSerial(String doc) {
        // the two runs differ only in the document's serial number and, across a second boundary, its time
        return doc.replaceFirst("\"serialNumber\":\"urn:uuid:[0-9a-f-]+\"", "\"serialNumber\":\"\"")
                .replaceFirst("\"timestamp\":\"[0-9T:Z-]+\"", "\"timestamp\":\"\"");
    }
}
