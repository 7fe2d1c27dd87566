package io.pqssh.client.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ~C !command} as OpenSSH 9.2's process_cmdline: with PermitLocalCommand the command runs through the user's
 * shell (here /bin/sh, or $SHELL) and is waited for, and {@code ?} lists it; without it {@code !} is
 * "Invalid command." and nothing runs.
 */
class EscapeCommandLineLocalCommandTest {
    @TempDir
    Path dir;

    @Test
    void bangRunsTheCommandOnlyWithPermitLocalCommand() throws Exception {
        Path made = dir.resolve("made");
        List<String> said = new ArrayList<>();
        new EscapeCommandLine(null, said::add, false, null).run("!touch " + made);
        assertEquals(List.of("Invalid command."), said);
        assertFalse(Files.exists(made), "PermitLocalCommand no: nothing runs");

        said.clear();
        // waited for: the file exists when run() returns, with what a shell (not an exec of argv) made of the line
        new EscapeCommandLine(null, said::add, true, null).run("!sleep 1; echo \"$((6 * 7))\" > " + made);
        assertEquals(List.of(), said);
        assertEquals("42\n", Files.readString(made));
    }

    @Test
    void helpListsTheLocalCommandOnlyWhenPermitted() {
        List<String> without = new ArrayList<>();
        new EscapeCommandLine(null, without::add, false, null).run("?");
        assertFalse(without.stream().anyMatch(l -> l.contains("!args")), without.toString());
        List<String> with = new ArrayList<>();
        new EscapeCommandLine(null, with::add, true, null).run("h");
        assertEquals(without.size() + 1, with.size(), with.toString());
        assertTrue(with.get(with.size() - 1).equals(
                "      !args                                  Execute local command"), with.toString());
    }
}
