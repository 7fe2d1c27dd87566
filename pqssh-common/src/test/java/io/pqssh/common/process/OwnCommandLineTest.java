package io.pqssh.common.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnCommandLineTest {
    @Test
    void aCommandLineLongerThanAPageIsReadWhole(@TempDir Path dir) throws Exception {
        // the JDK's ProcessHandle.Info#arguments() gives nothing for this (one page of /proc/PID/cmdline)
        String classPath = "x".repeat(9000);
        Path f = dir.resolve("cmdline");
        Files.write(f, ("java\0-cp\0" + classPath + "\0io.pqssh.cli.Main\0agent\0").getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("java", "-cp", classPath, "io.pqssh.cli.Main", "agent"),
                OwnCommandLine.procCmdline(f).orElseThrow());
    }

    @Test
    void thisJvmsOwnCommandLineStartsWithItsExecutable() {
        List<String> self = OwnCommandLine.get().orElseThrow();
        assertTrue(self.get(0).endsWith("/java"), self.get(0));
        assertTrue(self.size() > 1, self.toString());
    }
}
