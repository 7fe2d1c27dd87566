package io.pqssh.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.inventory.cbom.Cboms;
import io.pqssh.inventory.report.ScanCounters;
import io.pqssh.inventory.report.ScanSink;
import io.pqssh.inventory.report.ScanSinks;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Target;

/**
 * The streaming scan reports write the same bytes as the code they were made faster from: the expected documents in
 * {@code golden/} were written by the sinks before the 2026-12-06 speed work (issue 24), from the inputs built here
 * (the ZGrab2 fixture twice, so that KEXINITs repeat as equal and as identical objects, plus targets with a policy,
 * an authentication probe, a host certificate, key errors and text that CSV, HTML and JSON must escape). Only the
 * JSON document's time and the CBOM's serial number and time differ from run to run; they are blanked.
 */
class ReportBytesTest {
    /** A real OpenSSH host certificate (ssh-keygen 9.2: ECDSA P-256 key, Ed25519 CA, serial 42, fixed validity). */
    private static final String CERT = "ecdsa-sha2-nistp256-cert-v01@openssh.com AAAAKGVjZHNhLXNoYTItbmlzdHAyNTYtY2"
            + "VydC12MDFAb3BlbnNzaC5jb20AAAAgh6pR/K4T5aW7RJjMLo+jxPOeUygzjWlmCE7IB7Dv6DUAAAAIbmlzdHAyNTYAAABBBETvImwMVFJ"
            + "Q0waKm06zBnCoV2/50WN6QmxoxMLdfUnn9H50Vyg5BQmxomOakSAerQyOvoER/TPDdw+5AtNQQ4wAAAAAAAAAKgAAAAIAAAAOd2ViLTEg"
            + "ImdvbGRlbiIAAAAbAAAAC3dlYi5leGFtcGxlAAAACDEwLjAuMC4xAAAAAGlVuQAAAAAAazbsgAAAAAAAAAAAAAAAAAAAADMAAAALc3NoLW"
            + "VkMjU1MTkAAAAgE2bn0iHMiA96SdfJORSCmfxb9sNIjfZg2gYCIa5liCwAAABTAAAAC3NzaC1lZDI1NTE5AAAAQB8Bi7KlU0l+MucVXvpV"
            + "BU8Nv42o+ffDhrKcOpRLThXe6JhepP7Gccz1BLG0volrCfL3pH/jxKNfs2IXR7spcg0=";
    private static final String CERT_FINGERPRINT = "SHA256:r4vxYzsAVSsbkCMlIYyrOP2TSVDkP35fv05u0HJDzDQ";

    static List<ScanResult> inputs() throws IOException {
        byte[] fixture = Zgrab2ReaderTest.fixture();
        List<ScanResult> rs = new ArrayList<>(Zgrab2ReaderTest.read(new ByteArrayInputStream(fixture)).results());
        rs.addAll(Zgrab2ReaderTest.read(new ByteArrayInputStream(fixture)).results());
        KexInit k = new KexInit(List.of("mlkem768x25519-sha256", "sntrup761x25519-sha512", "curve25519-sha256",
                "diffie-hellman-group14-sha1", "kex-strict-s-v00@openssh.com"),
                List.of("ssh-ed25519", "ecdsa-sha2-nistp256-cert-v01@openssh.com", "ssh-mldsa44-ed25519"),
                List.of("aes256-gcm@openssh.com", "aes128-cbc"), List.of("chacha20-poly1305@openssh.com", "3des-cbc"),
                List.of("hmac-sha2-256-etm@openssh.com"), List.of("hmac-sha1", "umac-64@openssh.com"),
                List.of("none"), List.of("none", "zlib@openssh.com"), List.of(), List.of(), false);
        Classification c = Classification.of(k);
        String odd = "=HYPERLINK(\"x\"), <b>&'quoted'</b>\tand\r\nlines  ";
        List<ScanResult.HostKey> keys = List.of(
                new ScanResult.HostKey("ecdsa-sha2-nistp256-cert-v01@openssh.com",
                        "ecdsa-sha2-nistp256-cert-v01@openssh.com", CERT_FINGERPRINT, CERT, null),
                new ScanResult.HostKey("ssh-mldsa44-ed25519", "ssh-mldsa44-ed25519",
                        "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", null, null, 0),
                new ScanResult.HostKey("ssh-rsa", null, null, null, "no key: " + odd, 0));
        ScanResult base = new ScanResult(new Target("web.example", 2222), ScanResult.Status.SSH, null,
                "SSH-2.0-" + odd, odd, k, c, keys, 2, 17);
        rs.add(base.withPolicy(List.of("kex: diffie-hellman-group14-sha1 not allowed", odd)));
        rs.add(base.withAuth(new ScanResult.UserAuth(List.of("publickey", "publickey-kem", "password"),
                List.of("ssh-ed25519", "ssh-mldsa44-ed25519", "rsa-sha2-512"), null)));
        rs.add(base.withAuth(new ScanResult.UserAuth(List.of("publickey"), null, null)));
        rs.add(base.withAuth(new ScanResult.UserAuth(List.of(), null, "timed out: " + odd)));
        rs.add(new ScanResult(new Target("198.51.100.7", 22), ScanResult.Status.UNREACHABLE,
                "unreachable: " + odd, null, null, null, null, List.of(), 3, 3000));
        rs.add(new ScanResult(new Target("198.51.100.8", 22), ScanResult.Status.NOT_SSH, "not ssh: HTTP/1.1 400",
                null, null, null, null, List.of(), 1, 5));
        return rs;
    }

    @Test
    void jsonDocument() throws IOException {
        assertGolden("scan.json", render(ScanSinks::jsonDocument));
    }

    @Test
    void jsonLines() throws IOException {
        assertGolden("scan.jsonl", render(ScanSinks::jsonLines));
    }

    @Test
    void csv() throws IOException {
        assertGolden("scan.csv", render(ScanSinks::csv));
    }

    @Test
    void html() throws IOException {
        assertGolden("scan.html", render(ScanSinks::html));
    }

    @Test
    void cbom() throws IOException {
        String doc = raw(Cboms::scan, inputs());
        CycloneDxSchema.assertValid(doc);
        assertGolden("scan.cdx.json", blank(doc));
    }

    @Test
    void theComparisonSeesAChangedInput() throws IOException {
        List<ScanResult> fewer = inputs();
        fewer.remove(fewer.size() - 3);
        assertNotEquals(render(ScanSinks::csv), render(ScanSinks::csv, fewer));
    }

    private interface Sink {
        ScanSink open(java.io.OutputStream o) throws IOException;
    }

    private static String render(Sink f) throws IOException {
        return render(f, inputs());
    }

    private static String render(Sink f, List<ScanResult> results) throws IOException {
        return blank(raw(f, results));
    }

    private static String raw(Sink f, List<ScanResult> results) throws IOException {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ScanCounters c = new ScanCounters();
        try (ScanSink s = f.open(o)) {
            for (ScanResult r : results) {
                c.add(r);
                s.accept(r);
            }
            s.finish(c);
        }
        return o.toString(StandardCharsets.UTF_8);
    }

    private static String blank(String doc) {
        return doc.replaceFirst("\"generated\" : \"[0-9T:.Z-]+\"", "\"generated\" : \"\"")
                .replaceFirst("\"serialNumber\":\"urn:uuid:[0-9a-f-]+\"", "\"serialNumber\":\"\"")
                .replaceFirst("\"timestamp\":\"[0-9T:Z-]+\"", "\"timestamp\":\"\"");
    }

    private static void assertGolden(String name, String actual) throws IOException {
        String expected;
        try (InputStream in = ReportBytesTest.class.getResourceAsStream("golden/" + name)) {
            if (in == null) {
                Path p = Files.createTempFile("pqssh-golden-", "-" + name);
                Files.writeString(p, actual, StandardCharsets.UTF_8);
                throw new AssertionError("no golden/" + name + "; this run wrote " + p);
            }
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(expected.length() > 1000, "a golden document of substance");
        if (!expected.equals(actual)) {
            Path p = Files.createTempFile("pqssh-golden-", "-" + name);
            Files.writeString(p, actual, StandardCharsets.UTF_8);
            assertEquals(expected, actual, name + " changed; this run's output is in " + p);
        }
    }
}
