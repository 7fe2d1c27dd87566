package io.pqssh.cli.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;

/**
 * The launchers' JIT directives for bulk client commands ({@code pqssh-dist/src/main/dist/bulk-jit.json}, read with
 * {@code -XX:CompilerDirectivesFile}): the JVM parses the file without a word (a syntax error would be printed on the
 * stdout of {@code pqssh ssh host cat}), C2 compiles the JDK's AES-GCM, and everything else is left to C1. With
 * {@code -Xbatch} compilation is synchronous, so what the child JVM prints does not depend on the machine's speed.
 */
class BulkJitDirectivesTest {
    private static final Path DIRECTIVES = Path.of("..", "pqssh-dist", "src", "main", "dist", "bulk-jit.json");
    private static final Path LAUNCHER = Path.of("..", "pqssh");

    /** A workload with hot crypto and a hot non-crypto method, run in the child JVM. */
    public static final class Workload {
        public static void main(String[] args) throws Exception {
            Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
            SecretKeySpec key = new SecretKeySpec(new byte[16], "AES");
            byte[] data = new byte[32 * 1024];
            byte[] iv = new byte[12];
            long sum = 0;
            for (int i = 0; i < 3000; i++) {
                iv[0] = (byte) i;
                iv[1] = (byte) (i >> 8);
                gcm.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
                sum += gcm.doFinal(data).length;
                sum += notCrypto(i);
            }
            System.out.println("sum " + sum);
        }

        static long notCrypto(int n) {
            long h = n;
            for (int i = 0; i < 2000; i++) {
                h = h * 31 + i;
            }
            return h;
        }
    }

    /** The flags ./pqssh adds for bulk commands when the directives file exists, "$jit" being that file. */
    private static List<String> launcherFlags() throws Exception {
        String line = Files.readAllLines(LAUNCHER).stream().filter(l -> l.startsWith("if [ -f \"$jit\" ]; then bulk+=("))
                .findFirst().orElseThrow(() -> new AssertionError("no bulk+=( line in " + LAUNCHER));
        String flags = line.substring(line.indexOf("bulk+=(") + 7, line.lastIndexOf(");"));
        return List.of(flags.replace("\"$jit\"", DIRECTIVES.toString()).split(" "));
    }

    private static List<String> javaWith(String... flags) throws Exception {
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(launcherFlags());
        cmd.addAll(List.of(flags));
        return cmd;
    }

    private static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM did not end: " + cmd);
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    @Test
    void theJvmReadsTheFileSilently() throws Exception {
        assertTrue(Files.isRegularFile(DIRECTIVES), DIRECTIVES.toAbsolutePath() + " missing");
        // with the launcher's flags a program's output is its own: the JVM's "2 compiler directives added" is not
        // in it (and a file with a syntax error stops the JVM instead of printing on stdout)
        String out = run(javaWith("-cp", System.getProperty("java.class.path"), Workload.class.getName()));
        assertTrue(Pattern.compile("\\Asum \\d+\\R\\z").matcher(out).matches(), out);
        // and both directives are there
        String print = run(javaWith("-XX:+DisplayVMOutput", "-XX:+CompilerDirectivesPrint", "-version"));
        assertTrue(print.contains("2 compiler directives added"), print);
        assertTrue(print.contains("matching: *.*"), print);
        assertFalse(Pattern.compile("(?i)error").matcher(print).find(), print);
    }

    @Test
    void c2CompilesTheCipherAndNothingElse() throws Exception {
        String out = run(javaWith("-XX:+DisplayVMOutput", "-Xbatch", "-XX:+PrintCompilation", "-cp", System.getProperty("java.class.path"),
                Workload.class.getName()));
        assertTrue(out.contains("sum "), out);
        Pattern c2Crypto = Pattern.compile("^\\s*\\d+\\s+\\d+\\s+[%sbn! ]*4\\s+com\\.sun\\.crypto\\.provider\\.",
                Pattern.MULTILINE);
        assertTrue(c2Crypto.matcher(out).find(), "no C2 (level 4) compile of com.sun.crypto.provider:\n" + tail(out));
        assertTrue(out.contains("made not compilable on level 4  " + Workload.class.getName() + "::notCrypto"),
                "the hot non-crypto method was not kept from C2:\n" + tail(out));
        Pattern c2Workload = Pattern.compile("^\\s*\\d+\\s+\\d+\\s+[%sbn! ]*4\\s+"
                + Pattern.quote(Workload.class.getName()), Pattern.MULTILINE);
        assertFalse(c2Workload.matcher(out).find(), "C2 compiled the workload itself");
    }

    private static String tail(String s) {
        return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    }
}
