package io.pqssh.cli.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** The {@code --timeout}/{@code --work-dir} mixin of the server-starting labs: same options, same checks, each lab. */
class LabRunOptionsTest {
    @Test
    void eachLabTakesTheSharedOptions() throws Exception {
        for (Object lab : List.of(new LoadCommand(), new PendingCommand(), new TransferCommand())) {
            CommandLine cl = new CommandLine(lab);
            cl.parseArgs("--timeout", "2.5", "--work-dir", "/tmp/lab-x");
            LabRunOptions run = cl.getMixins().values().stream()
                    .filter(LabRunOptions.class::isInstance).map(LabRunOptions.class::cast).findFirst().orElseThrow();
            assertEquals(Duration.ofMillis(2500), run.timeout(), lab.getClass().getSimpleName());
            assertEquals(Path.of("/tmp/lab-x"), run.workDir("x"));
            String help = cl.getUsageMessage();
            assertTrue(help.contains("--timeout") && help.contains("--work-dir"), help);
        }
    }

    @Test
    void loadTakesTheLoginAccountOptionsAndRefusesAnUnknownAccountWithoutCreateUser() throws Exception {
        LoadCommand load = new LoadCommand();
        CommandLine cl = new CommandLine(load);
        cl.parseArgs("--servers", "openssh", "--user", "no-such-pqssh-account", "--create-user");
        assertEquals("no-such-pqssh-account", load.user);
        assertTrue(load.createUser);
        String help = cl.getUsageMessage();
        assertTrue(help.contains("--user") && help.contains("--create-user"), help);
        LoadCommand unknown = new LoadCommand();
        new CommandLine(unknown).parseArgs("--servers", "openssh", "--user", "no-such-pqssh-account");
        // refused before any server starts or any account is made
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, unknown::call);
        assertTrue(e.getMessage().contains("no such account") && e.getMessage().contains("--create-user"),
                e.getMessage());
    }

    @Test
    void defaultsAndBadTimeout() throws Exception {
        LabRunOptions run = new LabRunOptions();
        assertEquals(Duration.ofSeconds(30), run.timeout());
        Path tmp = run.workDir("unit");
        assertTrue(tmp.getFileName().toString().startsWith("pqssh-lab-unit"), tmp.toString());
        java.nio.file.Files.delete(tmp);
        run.timeout = 0;
        assertEquals("--timeout must be > 0, got 0.0",
                assertThrows(IllegalArgumentException.class, run::timeout).getMessage());
        run.timeout = Double.NaN;
        assertThrows(IllegalArgumentException.class, run::timeout);
    }
}
