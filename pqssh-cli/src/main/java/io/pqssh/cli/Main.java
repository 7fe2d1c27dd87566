package io.pqssh.cli;

import io.pqssh.cli.demo.DemoCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code pqssh} command. */
@Command(name = "pqssh", mixinStandardHelpOptions = true, version = "pqssh 0.1.0",
        description = "Post-quantum SSH toolkit: KEM user authentication, PQ key exchange and keys.",
        subcommands = {DemoCommand.class, ServerCommand.class, SshCommand.class, KeygenCommand.class, PasswdCommand.class, LabCommand.class, ScanCommand.class, AuditCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            // users get one line, not a stack trace; exit 255 like ssh for connection/auth trouble
            cmd.getErr().println("pqssh " + cmd.getCommandName() + ": " + Errors.describe(ex));
            return 255;
        });
        return cl.execute(args);
    }
}
