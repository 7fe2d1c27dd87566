package io.pqssh.inventory.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * A KEXINIT recognised from its text ({@link KexText}: the parser steps over the object) must give exactly what
 * parsing it gives: the results of a whole input read with the reader's memo equal those of every record read on
 * its own, for texts that are recognised (other cookie, other unused members), texts that are not (escapes,
 * non-ASCII, nested values, numbers with fractions) and bad records, and past the memo's bound.
 */
class Zgrab2KexTextEquivalenceTest {
    private static final String KEX = "[\"mlkem768x25519-sha256\",\"curve25519-sha256\",\"ext-info-s\"]";
    private static final String HK = "[\"rsa-sha2-512\",\"ssh-ed25519\"]";
    private static final String CIPHERS = "[\"chacha20-poly1305@openssh.com\",\"aes128-ctr\"]";
    private static final String MACS = "[\"hmac-sha2-256-etm@openssh.com\",\"hmac-sha1\"]";
    private static final String ED = "AAAAC3NzaC1lZDI1NTE5AAAAIBkYIOotc8ub1MXybLdZtRSE5yALrPY3EHQvTlTxHqnG";

    private static String lists(String kex, String tail) {
        return "\"kex_algorithms\":" + kex + ",\"host_key_algorithms\":" + HK + ",\"client_to_server_ciphers\":"
                + CIPHERS + ",\"server_to_client_ciphers\":" + CIPHERS + ",\"client_to_server_macs\":" + MACS
                + ",\"server_to_client_macs\":" + MACS + ",\"client_to_server_compression\":[\"none\"],"
                + "\"server_to_client_compression\":[\"none\",\"zlib@openssh.com\"]" + tail;
    }

    /** server_key_exchange objects: recognised, not recognised, and bad. */
    private static final List<String> OBJECTS = List.of(
            "{\"cookie\":\"AAAAAAAAAAAAAAAAAAAAAA==\"," + lists(KEX, ",\"first_kex_follows\":false,\"reserved\":0}"),
            "{\"cookie\":\"q83vASNFZ4mrze8BI0VniQ==\"," + lists(KEX, ",\"first_kex_follows\":false,\"reserved\":0}"),
            "{" + lists(KEX, ",\"first_kex_follows\":false}"),
            "{ \"cookie\" : \"x\" , " + lists(KEX, " , \"first_kex_follows\" : true , \"reserved\" : -7 }"),
            "{" + lists("[ \"mlkem768x25519-sha256\" ,\t\"curve25519-sha256\",\"ext-info-s\" ]", "}"),
            "{" + lists(KEX, ",\"first_kex_follows\":true}"),
            "{" + lists(KEX, ",\"first_kex_follows\":null}"),
            "{" + lists(KEX, ",\"first_kex_follows\":1}"),
            "{" + lists(KEX, ",\"client_to_server_languages\":null,\"server_to_client_languages\":[]}"),
            "{" + lists(KEX, ",\"client_to_server_languages\":[\"en\"]}"),
            "{" + lists(KEX, ",\"kex_algorithms\":[\"curve25519-sha256\"]}"),
            "{\"kex_algorithms\":[\"curve25519-sha256\"]," + lists(KEX, "}"),
            "{\"server_to_client_compression\":[\"none\"],\"kex_algorithms\":" + KEX + "}",
            "{\"KEX_algorithms\":[\"x\"]," + lists(KEX, "}"),
            "{\"kex\\u005falgorithms\":[\"curve25519-sha256\"]," + lists(KEX, "}"),
            "{" + lists("[\"curve25519\\u002dsha256\",\"ext-info-s\"]", "}"),
            "{\"cookie\":\"co\u00f6kie\"," + lists(KEX, "}"),
            "{\"extra\":{\"a\":[1,{\"b\":null}]}," + lists(KEX, "}"),
            "{\"reserved\":1.5," + lists(KEX, "}"),
            "{\"reserved\":1e3," + lists(KEX, "}"),
            "{\"reserved\":12345678901234567890123," + lists(KEX, "}"),
            "{\"host_key_algorithms\":" + HK + "}",
            "{}",
            "{ }",
            // bad records, whichever way they are read
            "{\"reserved\":01," + lists(KEX, "}"),
            "{" + lists("[\"" + "x".repeat(KexInit.MAX_NAME + 1) + "\"]", "}"),
            "{" + lists("[\"\"]", "}"),
            "{" + lists("[1]", "}"),
            "{" + lists("\"curve25519-sha256\"", "}"),
            "{" + lists("[\"curve25519-sha256\",]", "}"),
            "{" + lists(KEX, ",}"),
            "{" + lists(KEX, ",\"first_kex_follows\":tru}"),
            "{" + lists("[\"tab\there\"]", "}"));

    private static String record(int i, String kexObject, boolean twoModules) {
        String response = "{\"status\":\"success\",\"protocol\":\"ssh\",\"port\":22,\"result\":{\"server_id\":{\"raw\":"
                + "\"SSH-2.0-OpenSSH_9.9\",\"software\":\"OpenSSH_9.9\"},\"server_key_exchange\":" + kexObject
                + ",\"key_exchange\":{\"server_host_key\":{\"raw\":\"" + ED + "\",\"algorithm\":\"ssh-ed25519\"}}}}";
        return "{\"ip\":\"10.1." + (i / 256 % 256) + "." + (i % 256) + "\",\"data\":{\"ssh\":" + response
                + (twoModules ? ",\"ssh-2222\":" + response.replace("\"port\":22", "\"port\":2222") : "") + "}}";
    }

    @Test
    void aKexInitRecognisedFromItsTextIsTheOneParsingGives() throws IOException {
        Random rnd = new Random(2426);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            String line = record(i, OBJECTS.get(rnd.nextInt(OBJECTS.size())), i % 7 == 0);
            if (i % 17 == 0) {
                // the first server_key_exchange of the line is one the reader does not read (another module's)
                line = line.replace("\"data\":{", "\"data\":{\"http\":{\"protocol\":\"http\",\"result\":"
                        + "{\"server_key_exchange\":" + OBJECTS.get(i % 2) + "}},");
            }
            // bad after a KEXINIT that may be recognised: the error must be the one the whole line gives
            lines.add(i % 11 == 0 ? line + " x" : i % 13 == 0 ? line.replace("\"algorithm\":\"ssh-ed25519\"",
                    "\"algorithm\":tru") : line);
        }
        // more distinct KEXINITs than the memo has slots, then the first ones again
        for (int i = 0; i < KexText.SLOTS + 500; i++) {
            lines.add(record(i, "{" + lists("[\"curve25519-sha256\",\"x-" + (i % (KexText.SLOTS + 300))
                    + "@example.com\"]", "}"), false));
        }
        List<ScanResult> afresh = new ArrayList<>();
        List<String> afreshBad = new ArrayList<>();
        for (String line : lines) {
            read(line + "\n", new Zgrab2Reader.Memo(), afresh, afreshBad);
        }
        List<ScanResult> streamed = new ArrayList<>();
        List<String> streamedBad = new ArrayList<>();
        Zgrab2Reader.Memo memo = new Zgrab2Reader.Memo();
        read(String.join("\n", lines) + "\n", memo, streamed, streamedBad);
        assertEquals(afresh, streamed);
        assertEquals(afreshBad, streamedBad);
        assertTrue(streamedBad.size() > 300 && streamedBad.size() < 1800, "bad records: " + streamedBad.size());
        assertTrue(streamedBad.stream().anyMatch(s -> s.contains("Unrecognized token 'x'")), "a line bad after its KEXINIT");
        assertTrue(memo.kexTextHits > 1000, "KEXINITs recognised from their text: " + memo.kexTextHits);
        assertTrue(streamed.stream().anyMatch(r -> r.kexInit() != null && r.kexInit().firstKexPacketFollows()));
        assertTrue(streamed.stream().anyMatch(r -> r.kexInit() != null && r.kexInit().kex().size() == 1));
        assertTrue(streamed.stream().anyMatch(r -> r.kexInit() == null && r.status() == ScanResult.Status.SSH),
                "a server_key_exchange without kex_algorithms is not a KEXINIT");
    }

    private static void read(String input, Zgrab2Reader.Memo memo, List<ScanResult> results, List<String> bad)
            throws IOException {
        Zgrab2Reader.read(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), "test", 22,
                new Zgrab2Reader.Handler() {
                    @Override
                    public void result(ScanResult r) {
                        results.add(r);
                    }

                    @Override
                    public void badRecord(long line, String error) {
                        bad.add(error);
                    }
                }, memo);
    }

    @Test
    void theTextIsTheUsedMembersOnly() {
        KexText t = new KexText();
        byte[] a = ("{\"x\":{\"server_key_exchange\":" + OBJECTS.get(0) + "}}").getBytes(StandardCharsets.UTF_8);
        byte[] b = ("{\"server_key_exchange\" : " + OBJECTS.get(1) + "}").getBytes(StandardCharsets.UTF_8);
        int at = indexOf(a, OBJECTS.get(0));
        assertEquals(at, KexText.objectAt(a, a.length));
        assertTrue(t.scan(a, at, a.length));
        assertEquals(at + OBJECTS.get(0).length(), t.end());
        KexCache.Entry e = KexCache.of(new KexInit(List.of("curve25519-sha256"), List.of(), List.of(), List.of(),
                List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), false));
        assertEquals(null, t.find(a));
        t.keep(a, e);
        // another cookie, the same lists
        assertTrue(t.scan(b, indexOf(b, OBJECTS.get(1)), b.length));
        assertEquals(e, t.find(b));
        // not the value of server_key_exchange: not read
        byte[] c = ("{\"other\":" + OBJECTS.get(0) + "}").getBytes(StandardCharsets.UTF_8);
        assertTrue(!t.scan(c, indexOf(c, OBJECTS.get(0)), c.length));
        // one name differs
        byte[] d = ("{\"server_key_exchange\":" + OBJECTS.get(1).replace("ext-info-s", "ext-info-t") + "}")
                .getBytes(StandardCharsets.UTF_8);
        assertTrue(t.scan(d, indexOf(d, "{\"cookie"), d.length));
        assertEquals(null, t.find(d));
    }

    private static int indexOf(byte[] b, String s) {
        return new String(b, StandardCharsets.ISO_8859_1).indexOf(s);
    }
}
