package io.pqssh.mina.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs a full publickey-kem login in a child JVM with MINA's and pqssh's loggers at TRACE (the most they ever
 * print) and checks that no ML-KEM seed, decapsulation key, shared secret or response appears in the log, in hex
 * (either case) or base64, whole or as a 12-byte fragment.
 */
class SecretsNotLoggedTest {
    @Test
    void traceLogOfAKemLoginHoldsNoSecret(@TempDir Path dir) throws Exception {
        Path secretsFile = dir.resolve("secrets.txt");
        Path log = dir.resolve("trace.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Dorg.slf4j.simpleLogger.defaultLogLevel=trace",
                "-Dorg.slf4j.simpleLogger.logFile=System.err", "-cp", System.getProperty("java.class.path"),
                TraceLoginMain.class.getName(), secretsFile.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(60, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        assertTrue(done, "child login did not finish in 60 s");
        String text = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), "child login failed:\n" + tail(text));
        // the log really is at TRACE: otherwise this test would prove nothing
        assertTrue(text.contains("TRACE"), "no TRACE lines: logging was not raised");
        assertTrue(text.lines().count() > 50, "suspiciously short trace log");
        assertTrue(text.contains("encode(") && text.contains("packet #"), "MINA's packet dumps are missing");
        List<String> secrets = Files.readAllLines(secretsFile);
        assertEquals(5, secrets.size());
        // MINA's TRACE packet dumps print bytes as "aa bb cc" or "aa:bb:cc": join hex pairs before searching
        String lower = text.toLowerCase(Locale.ROOT).replaceAll("(?<=[0-9a-f]{2})[ :](?=[0-9a-f]{2})", "");
        for (String line : secrets) {
            String[] kv = line.split(" ");
            byte[] secret = HexFormat.of().parseHex(kv[1]);
            for (String needle : needles(secret)) {
                boolean found = needle.matches("[0-9a-f]+") ? lower.contains(needle) : text.contains(needle);
                assertFalse(found, kv[0] + " appears in the trace log as '" + needle + "'");
            }
        }
    }

    private static List<String> needles(byte[] secret) {
        List<String> n = new ArrayList<>();
        HexFormat hex = HexFormat.of();
        for (int off = 0; off + 12 <= secret.length; off += 12) {
            byte[] frag = java.util.Arrays.copyOfRange(secret, off, off + 12);
            n.add(hex.formatHex(frag));
            // base64 of an aligned 12-byte fragment is 16 characters with no padding
            n.add(Base64.getEncoder().encodeToString(frag));
        }
        n.add(Base64.getEncoder().encodeToString(secret));
        return n;
    }

    private static String tail(String s) {
        return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    }
}
