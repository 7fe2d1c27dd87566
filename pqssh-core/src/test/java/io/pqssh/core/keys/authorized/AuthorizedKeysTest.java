package io.pqssh.core.keys.authorized;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.wire.SshWriter;

class AuthorizedKeysTest {
    static final SecureRandom RNG = new SecureRandom();
    static final ZoneId ZONE = ZoneId.of("Europe/Berlin");
    static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

    static byte[] edBlob(int seed) {
        byte[] pk = new byte[32];
        pk[0] = (byte) seed;
        return new SshWriter().putString("ssh-ed25519").putString(pk).toByteArray();
    }

    static String ed(int seed) {
        return "ssh-ed25519 " + Base64.getEncoder().encodeToString(edBlob(seed));
    }

    static AuthorizedKeyOptions opts(String s) throws Exception {
        return AuthorizedKeyOptions.parse(s, ZONE);
    }

    @Test
    void optionParsingWithQuotesEscapesAndCommas() throws Exception {
        AuthorizedKeys ak = AuthorizedKeys.parse(
                "command=\"echo \\\"a, b\\\" c\",no-pty,environment=\"FOO=bar baz\",permitopen=\"host:22\","
                        + "permitopen=\"[::1]:*\",principals=\"alice,bob\",No-X11-Forwarding " + ed(1)
                        + " my comment here\n", "ak", ZONE);
        assertEquals(List.of(), ak.rejected());
        AuthorizedKeyEntry e = ak.entries().get(0);
        AuthorizedKeyOptions o = e.options();
        assertEquals("echo \"a, b\" c", o.command().orElseThrow());
        assertFalse(o.ptyAllowed());
        assertFalse(o.x11ForwardingAllowed());
        assertTrue(o.portForwardingAllowed());
        assertEquals(List.of("FOO=bar baz"), o.environment());
        assertEquals(List.of("host:22", "[::1]:*"), o.permitOpen());
        assertEquals(List.of("alice", "bob"), o.principalList());
        assertEquals("my comment here", e.comment());
        assertEquals("ssh-ed25519", e.keyType());
        assertEquals(1, e.lineNumber());
    }

    @Test
    void restrictThenReEnable() throws Exception {
        AuthorizedKeyOptions o = opts("restrict,pty,no-user-rc");
        assertTrue(o.restrict());
        assertTrue(o.ptyAllowed());
        assertFalse(o.portForwardingAllowed());
        assertFalse(o.agentForwardingAllowed());
        assertFalse(o.x11ForwardingAllowed());
        assertFalse(o.userRcAllowed());
        AuthorizedKeyOptions all = opts("no-port-forwarding,no-agent-forwarding,cert-authority,no-touch-required,"
                + "permitlisten=\"8080\",tunnel=\"any\"");
        assertFalse(all.portForwardingAllowed());
        assertFalse(all.agentForwardingAllowed());
        assertTrue(all.certAuthority());
        assertTrue(all.noTouchRequired());
        assertEquals(List.of("8080"), all.permitListen());
        assertTrue(AuthorizedKeyOptions.NONE.ptyAllowed());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "frobnicate | unknown key option \"frobnicate\"",
            "no-pty=\"x\" | takes no value",
            "command | requires a value",
            "command=unquoted | missing start quote",
            "command=\"open | missing end quote",
            "command=\"a\",command=\"b\" | multiple \"command\"",
            "from=\"a\",from=\"b\" | multiple \"from\"",
            "from=\"10.0.0.1/8\" | inconsistent mask",
            "expiry-time=\"2026\" | invalid expiry-time",
            "expiry-time=\"20261341\" | invalid expiry-time",
            "environment=\"=x\" | invalid environment",
            "permitopen=\"host\" | missing port",
            "permitopen=\"host:99999\" | invalid port",
            "no-pty,,restrict | empty option",
    })
    void badOptionsRejectTheLine(String options, String reason) {
        AuthorizedKeys ak = AuthorizedKeys.parse("# c\n\n" + options + " " + ed(1) + "\n" + ed(2) + "\n", "f", ZONE);
        assertEquals(1, ak.entries().size());
        assertEquals(4, ak.entries().get(0).lineNumber());
        assertEquals(1, ak.rejected().size());
        RejectedLine r = ak.rejected().get(0);
        assertEquals(3, r.lineNumber());
        assertTrue(r.reason().contains(reason), r.reason());
        assertTrue(r.toString().startsWith("f:3: "));
    }

    @Test
    void badKeysRejectTheLine() {
        String mismatch = "ssh-rsa " + Base64.getEncoder().encodeToString(edBlob(1));
        AuthorizedKeys ak = AuthorizedKeys.parse(String.join("\n",
                "ssh-ed25519 !!!notbase64", mismatch, "ssh-ed25519", "restrict", "restrict " + mismatch,
                "mlkem768 " + Base64.getEncoder().encodeToString(
                        new SshWriter().putString("mlkem768").putString(new byte[10]).toByteArray()),
                ed(7) + " ok"), "f", ZONE);
        assertEquals(1, ak.entries().size());
        assertEquals(7, ak.entries().get(0).lineNumber());
        List<RejectedLine> r = ak.rejected();
        assertEquals(6, r.size());
        assertTrue(r.get(0).reason().contains("base64"), r.get(0).reason());
        assertTrue(r.get(1).reason().contains("does not match the blob's type 'ssh-ed25519'"), r.get(1).reason());
        assertTrue(r.get(2).reason().contains("missing key blob"), r.get(2).reason());
        assertTrue(r.get(3).reason().contains("no key after the options"), r.get(3).reason());
        assertTrue(r.get(4).reason().contains("does not match"), r.get(4).reason());
        assertTrue(r.get(5).reason().contains("1184 bytes, got 10"), r.get(5).reason());
    }

    @Test
    void fromIsEnforced() {
        AuthorizedKeys ak = AuthorizedKeys.parse(String.join("\n",
                "from=\"192.168.0.0/16,!192.168.1.66,*.example.org,2001:db8::/32\" " + ed(1)), "f", ZONE);
        byte[] blob = edBlob(1);
        assertTrue(ak.find(blob, "192.168.1.5", NOW).isPresent());
        assertTrue(ak.find(blob, "192.168.1.66", NOW).isEmpty()); // negation wins
        assertTrue(ak.find(blob, "10.0.0.1", NOW).isEmpty());
        assertTrue(ak.find(blob, "::ffff:192.168.7.7", NOW).isPresent()); // mapped address
        assertTrue(ak.find(blob, "2001:db8:0:1::5", NOW).isPresent());
        assertTrue(ak.find(blob, "2001:db9::5", NOW).isEmpty());
        assertTrue(ak.find(blob, "10.0.0.1", "HOST.Example.ORG", NOW).isPresent()); // hostname, case-insensitive
        assertTrue(ak.find(blob, "192.168.1.66", "host.example.org", NOW).isEmpty()); // negated address
        assertTrue(ak.find(edBlob(2), "192.168.1.5", NOW).isEmpty()); // other key
        AuthorizedKeys.Lookup l = ak.lookup(blob, "10.0.0.1", null, NOW);
        assertTrue(l.denials().get(0).contains("not from a permitted host"), l.denials().toString());
    }

    @Test
    void wildcardAddressPatternsAndNegatedHostnames() {
        AuthorizedKeys ak = AuthorizedKeys.parse("from=\"10.1.?.*,!bad.example.com,*.example.com\" " + ed(3),
                "f", ZONE);
        byte[] blob = edBlob(3);
        assertTrue(ak.find(blob, "10.1.2.200", NOW).isPresent());
        assertTrue(ak.find(blob, "10.1.22.1", NOW).isEmpty());
        assertTrue(ak.find(blob, "10.9.9.9", "good.example.com", NOW).isPresent());
        assertTrue(ak.find(blob, "10.1.2.3", "bad.example.com", NOW).isEmpty());
    }

    @Test
    void laterLinesAreTriedWhenAnEarlierOneRefuses() {
        AuthorizedKeys ak = AuthorizedKeys.parse("from=\"10.0.0.1\" " + ed(1) + " first\n"
                + "expiry-time=\"20200101\" " + ed(1) + " expired\n" + "restrict " + ed(1) + " last\n", "f", ZONE);
        AuthorizedKeyEntry e = ak.find(edBlob(1), "10.0.0.9", NOW).orElseThrow();
        assertEquals("last", e.comment());
        assertEquals(3, e.lineNumber());
        assertEquals("first", ak.find(edBlob(1), "10.0.0.1", NOW).orElseThrow().comment());
        assertEquals(3, ak.entriesFor(edBlob(1)).size());
    }

    @Test
    void certAuthorityLinesDoNotAuthenticatePlainKeys() {
        AuthorizedKeys ak = AuthorizedKeys.parse("cert-authority " + ed(4), "f", ZONE);
        assertEquals(1, ak.entries().size());
        assertTrue(ak.find(edBlob(4), "10.0.0.1", NOW).isEmpty());
    }

    @Test
    void expiryTimeIsEnforcedInLocalTimeOrUtc() throws Exception {
        // 2026-06-01 14:00 in Berlin (CEST, UTC+2) = 12:00 UTC
        AuthorizedKeyOptions local = opts("expiry-time=\"202606011400\"");
        assertEquals(Instant.parse("2026-06-01T12:00:00Z"), local.expiryTime().orElseThrow());
        AuthorizedKeyOptions utc = opts("expiry-time=\"20260601140000Z\"");
        assertEquals(Instant.parse("2026-06-01T14:00:00Z"), utc.expiryTime().orElseThrow());
        AuthorizedKeyOptions dateOnly = opts("expiry-time=\"20260602\"");
        assertEquals(Instant.parse("2026-06-01T22:00:00Z"), dateOnly.expiryTime().orElseThrow());
        // earliest of several
        assertEquals(Instant.parse("2026-01-01T00:00:00Z"),
                opts("expiry-time=\"20270101Z\",expiry-time=\"20260101Z\"").expiryTime().orElseThrow());

        AuthorizedKeys ak = AuthorizedKeys.parse("expiry-time=\"202606011400\" " + ed(5), "f", ZONE);
        byte[] b = edBlob(5);
        assertTrue(ak.find(b, "1.2.3.4", Instant.parse("2026-06-01T11:59:59Z")).isPresent());
        assertTrue(ak.find(b, "1.2.3.4", Instant.parse("2026-06-01T12:00:00Z")).isPresent());
        assertTrue(ak.find(b, "1.2.3.4", Instant.parse("2026-06-01T12:00:01Z")).isEmpty());
        AuthorizedKeys.Lookup l = ak.lookup(b, "1.2.3.4", null, Instant.parse("2026-07-01T00:00:00Z"));
        assertTrue(l.denials().get(0).contains("expired"), l.denials().toString());
        assertTrue(AuthorizedKeys.parse("expiry-time=\"202606011400\" " + ed(5), "f", ZoneOffset.UTC)
                .find(b, "1.2.3.4", Instant.parse("2026-06-01T13:00:00Z")).isPresent());
    }

    @Test
    void kemKeysInAuthorizedKeysAndAuthorizedKemKeys(@TempDir Path dir) throws Exception {
        KemPublicKey k768 = new KemPublicKey(KemAlgorithm.MLKEM768,
                MlKem.generate(KemAlgorithm.MLKEM768, RNG).publicKey());
        KemPublicKey k512 = new KemPublicKey(KemAlgorithm.MLKEM512,
                MlKem.generate(KemAlgorithm.MLKEM512, RNG).publicKey());
        KemPublicKey k1024 = new KemPublicKey(KemAlgorithm.MLKEM1024,
                MlKem.generate(KemAlgorithm.MLKEM1024, RNG).publicKey());
        Path ak = dir.resolve("authorized_keys");
        Files.writeString(ak, "restrict,from=\"10.0.0.0/8\" " + k768.toLine("alice@laptop") + "\n"
                + k512.toLine("") + "\n" + "ML-KEM-1024 " + Base64.getEncoder().encodeToString(k1024.blob()) + "\n");
        Path kem = dir.resolve("authorized_kem_keys");
        Files.writeString(kem, "# research format\n" + AuthorizedKeys.formatKemKeyLine(k512, "x y z") + "\n"
                + "ML-KEM-1024 " + Base64.getEncoder().encodeToString(k1024.raw()) + "\n"
                + "kyber768 AAAA\n" + "frodo " + Base64.getEncoder().encodeToString(k512.raw()) + "\n"
                + "mlkem768\n");
        AuthorizedKeys a = AuthorizedKeys.load(ak, ZONE);
        AuthorizedKeys b = AuthorizedKeys.loadKemKeys(kem);
        assertEquals(List.of(), a.rejected());
        assertEquals(3, a.entries().size());
        assertEquals("mlkem1024", a.entries().get(2).keyType());
        assertEquals(2, b.entries().size());
        assertEquals(3, b.rejected().size());
        assertEquals(List.of(4, 5, 6), b.rejected().stream().map(RejectedLine::lineNumber).toList());
        assertEquals("x y z", b.entries().get(0).comment());
        AuthorizedKeys all = AuthorizedKeys.of(a, b);
        assertEquals(5, all.entries().size());

        AuthorizedKeyEntry e = all.findKem(KemAlgorithm.MLKEM768, k768.raw(), "10.1.1.1", NOW).orElseThrow();
        assertEquals("alice@laptop", e.comment());
        assertFalse(e.options().ptyAllowed());
        assertEquals(k768, e.kemKey().orElseThrow());
        assertTrue(all.findKem(KemAlgorithm.MLKEM768, k768.raw(), "192.168.1.1", NOW).isEmpty());
        assertTrue(all.find(k768.blob(), "10.1.1.1", NOW).isPresent());
        assertEquals(AuthorizedKeyEntry.Format.AUTHORIZED_KEYS,
                all.findKem(KemAlgorithm.MLKEM512, k512.raw(), "1.1.1.1", NOW).orElseThrow().format());
        AuthorizedKeyEntry research = b.findKem(KemAlgorithm.MLKEM1024, k1024.raw(), "1.1.1.1", NOW).orElseThrow();
        assertEquals(AuthorizedKeyEntry.Format.AUTHORIZED_KEM_KEYS, research.format());
        assertTrue(research.options().isEmpty());
        assertTrue(all.findKem(KemAlgorithm.MLKEM512, k768.raw(), "1.1.1.1", NOW).isEmpty());
    }

    @Test
    void patternPrimitives() {
        assertTrue(OpenSshPatterns.matchPattern("abc", "a*c"));
        assertTrue(OpenSshPatterns.matchPattern("ac", "a*c"));
        assertTrue(OpenSshPatterns.matchPattern("abc", "a?c"));
        assertFalse(OpenSshPatterns.matchPattern("abbc", "a?c"));
        assertTrue(OpenSshPatterns.matchPattern("", "*"));
        assertTrue(OpenSshPatterns.matchPattern("x.y.z", "*.*"));
        assertFalse(OpenSshPatterns.matchPattern("abc", "ab"));
        assertEquals(OpenSshPatterns.NEGATED, OpenSshPatterns.matchPatternList("foo", "*,!foo", false));
        assertEquals(OpenSshPatterns.NO_MATCH, OpenSshPatterns.matchPatternList("bar", "!foo", false));
        assertEquals(OpenSshPatterns.MATCH, OpenSshPatterns.addrMatchList("10.2.3.4", "10.0.0.0/8"));
        assertEquals(OpenSshPatterns.MATCH, OpenSshPatterns.addrMatchList("0.0.0.1", "0.0.0.0/0"));
        assertEquals(OpenSshPatterns.ERROR, OpenSshPatterns.addrMatchList("10.2.3.4", "10.0.0.1/8"));
        assertEquals(OpenSshPatterns.ERROR, OpenSshPatterns.addrMatchList("10.2.3.4", "10.0.0.0/8,"));
        assertEquals(OpenSshPatterns.NO_MATCH, OpenSshPatterns.addrMatchList("10.2.3.4", "fe80::/10"));
        assertEquals(-1, OpenSshPatterns.matchHostAndIp("h", "10.2.3.4", "10.0.0.1/8"));
        assertThrows(Exception.class, () -> AuthorizedKeyOptions.parse("from=\"10.0.0.1/8\"", ZONE));
    }

    /**
     * A certificate's source-address is OpenSSH's addr_match_cidr_list, not from='s addr_match_list: addresses and
     * CIDR blocks only, and one invalid entry (a wildcard, a negation, host bits, an empty entry) invalidates the
     * whole list whatever the address, where addr_match_list would match {@code 127.0.0.*} or {@code *}.
     */
    @Test
    void sourceAddressIsACidrListOnly() {
        assertEquals(OpenSshPatterns.MATCH, OpenSshPatterns.addrMatchCidrList("127.0.0.1", "127.0.0.1/32,::1"));
        assertEquals(OpenSshPatterns.MATCH, OpenSshPatterns.addrMatchCidrList("::1", "127.0.0.1/32,::1"));
        assertEquals(OpenSshPatterns.MATCH, OpenSshPatterns.addrMatchCidrList("10.9.8.7", "192.0.2.1,10.0.0.0/8"));
        assertEquals(OpenSshPatterns.NO_MATCH, OpenSshPatterns.addrMatchCidrList("10.0.0.1", "127.0.0.1/32,::1"));
        assertEquals(OpenSshPatterns.NO_MATCH, OpenSshPatterns.addrMatchCidrList("not-an-address", "0.0.0.0/0"));
        assertEquals(OpenSshPatterns.NO_MATCH, OpenSshPatterns.addrMatchCidrList(null, "10.0.0.0/8,2001:db8::/32"));
        for (String invalid : List.of("127.0.0.*", "*", "!10.0.0.0/8,0.0.0.0/0", "10.0.0.1/8", "10.0.0.0/33",
                "127.0.0.1,", "", "127.0.0.1,localhost", "300.1.1.1", "10.0.0.0/", "127.0.0.1/32,*")) {
            assertEquals(OpenSshPatterns.ERROR, OpenSshPatterns.addrMatchCidrList("127.0.0.1", invalid), invalid);
            assertEquals(OpenSshPatterns.ERROR, OpenSshPatterns.addrMatchCidrList(null, invalid), invalid);
        }
        // what from= accepts and matches, a source-address refuses
        assertEquals(OpenSshPatterns.MATCH, OpenSshPatterns.addrMatchList("127.0.0.1", "127.0.0.*"));
    }
}
