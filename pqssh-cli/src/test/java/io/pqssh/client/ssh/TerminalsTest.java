package io.pqssh.client.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** stdin as a file, a pipe, /dev/null and a real pseudo-terminal (util-linux script(1)), in a child JVM each. */
class TerminalsTest {
    /** Prints "surelyNot=B isTerminal=B" for its own stdin. */
    public static final class Probe {
        public static void main(String[] args) {
            System.out.println("surelyNot=" + Terminals.surelyNotTerminal(0) + " isTerminal="
                    + Terminals.stdinIsTerminal());
        }
    }

    @TempDir
    Path dir;

    private static List<String> java() {
        return new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Probe.class.getName()));
    }

    private static String run(ProcessBuilder pb) throws Exception {
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe did not finish");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void notTerminalsAreKnownWithoutAsking() throws Exception {
        Path file = Files.writeString(dir.resolve("in.txt"), "x\n");
        String fromFile = run(new ProcessBuilder(java()).redirectInput(file.toFile()));
        assertTrue(fromFile.contains("surelyNot=true isTerminal=false"), fromFile);
        String fromPipe = run(new ProcessBuilder(java()).redirectInput(ProcessBuilder.Redirect.PIPE));
        assertTrue(fromPipe.contains("surelyNot=true isTerminal=false"), fromPipe);
        String fromNull = run(new ProcessBuilder(java()).redirectInput(new java.io.File("/dev/null")));
        assertTrue(fromNull.contains("surelyNot=true isTerminal=false"), fromNull);
    }

    @Test
    void aPseudoTerminalIsATerminal() throws Exception {
        assertTrue(Files.isExecutable(Path.of("/usr/bin/script")), "needs util-linux script(1) (bsdutils)");
        String cmd = String.join(" ", java().stream().map(a -> "'" + a.replace("'", "'\\''") + "'").toList());
        String out = run(new ProcessBuilder("/usr/bin/script", "-qec", cmd, "/dev/null")
                .redirectInput(ProcessBuilder.Redirect.PIPE));
        assertTrue(out.contains("surelyNot=false isTerminal=true"), out);
    }
}
