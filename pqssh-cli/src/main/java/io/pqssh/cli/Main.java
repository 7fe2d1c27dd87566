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
        if (args.length > 0 && args[0].equals("ssh")) {
            quietLibraryLogging(args);
        }
        System.exit(run(args));
    }

    /**
     * {@code pqssh ssh} prints its own messages (ssh's wording, once each); MINA's and pqssh's log lines go to stderr
     * only with {@code -vvv}. Must run before the first logger is created.
     */
    private static void quietLibraryLogging(String[] args) {
        boolean vvv = false;
        for (String a : args) {
            if (a.equals("--")) {
                break;
            }
            if (a.matches("-[^-]*v[^-]*") && a.chars().filter(c -> c == 'v').count() >= 3) {
                vvv = true;
            }
        }
        String level = vvv ? "debug" : "off";
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
        System.setProperty("org.slf4j.simpleLogger.log.io.pqssh", level);
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.sshd", level);
    }

    public static int run(String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            // users get one line, not a stack trace; exit 255 like ssh for connection/auth trouble
            cmd.getErr().println("pqssh " + cmd.getCommandName() + ": " + Errors.describe(ex));
            return 255;
        });
        CommandLine ssh = cl.getSubcommands().get("ssh");
        // as ssh: options come before the destination; the first word after it starts the remote command
        ssh.setStopAtPositional(true);
        CommandLine.IParameterExceptionHandler dflt = cl.getParameterExceptionHandler();
        cl.setParameterExceptionHandler((ex, a) -> {
            if (ex.getCommandLine() != ssh) {
                return dflt.handleParseException(ex, a);
            }
            ex.getCommandLine().getErr().println("pqssh ssh: " + ex.getMessage());
            ex.getCommandLine().getErr().println("usage: pqssh ssh [options] destination [command [argument ...]]"
                    + " (pqssh ssh --help)");
            return 255;
        });
        return cl.execute(args);
    }
}
