package io.pqssh.cli;

import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code pqssh} command. Subcommands are added by name, and only the one being run: picocli reads every added
 * subcommand's annotations (and the lab's many nested ones), which a {@code pqssh ssh} start-up has no use for
 * (docs/startup.md). Help and unknown names get the full set.
 */
@Command(name = "pqssh", mixinStandardHelpOptions = true, version = "pqssh 0.1.0",
        description = "Post-quantum SSH toolkit: KEM user authentication, PQ key exchange and keys.")
public final class Main implements Runnable {
    /** Name to class, in the order help lists them. */
    static final Map<String, String> SUBCOMMANDS = new LinkedHashMap<>();

    static {
        SUBCOMMANDS.put("demo", "io.pqssh.cli.demo.DemoCommand");
        SUBCOMMANDS.put("server", "io.pqssh.cli.ServerCommand");
        SUBCOMMANDS.put("ssh", "io.pqssh.cli.SshCommand");
        SUBCOMMANDS.put("agent", "io.pqssh.cli.agent.AgentCommand");
        SUBCOMMANDS.put("add", "io.pqssh.cli.agent.AddCommand");
        SUBCOMMANDS.put("scp", "io.pqssh.cli.transfer.ScpCommand");
        SUBCOMMANDS.put("sftp", "io.pqssh.cli.transfer.SftpCommand");
        SUBCOMMANDS.put("keygen", "io.pqssh.cli.KeygenCommand");
        SUBCOMMANDS.put("passwd", "io.pqssh.cli.PasswdCommand");
        SUBCOMMANDS.put("lab", "io.pqssh.cli.LabCommand");
        SUBCOMMANDS.put("scan", "io.pqssh.cli.ScanCommand");
        SUBCOMMANDS.put("audit", "io.pqssh.cli.AuditCommand");
    }

    @Override
    public void run() {
        commandLine(null).usage(System.out);
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("ssh")) {
            System.exit(SshCommand.main(java.util.Arrays.asList(args).subList(1, args.length)));
        }
        System.exit(run(args));
    }

    public static int run(String... args) {
        if (args.length > 0 && args[0].equals("ssh")) {
            // the login path skips picocli (SshArguments: why)
            return SshCommand.run(java.util.Arrays.asList(args).subList(1, args.length));
        }
        CommandLine cl = args.length > 1 && args[0].equals("inventory") && InventoryCommand.NAMES.contains(args[1])
                ? new CommandLine(new Main()).addSubcommand("inventory", new InventoryCommand())
                : commandLine(args.length > 0 ? args[0] : null);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            // users get one line, not a stack trace; exit 255 like ssh for connection/auth trouble
            cmd.getErr().println("pqssh " + cmd.getCommandName() + ": " + Errors.describe(ex));
            return 255;
        });
        return cl.execute(args);
    }

    /** The command line with just {@code first}'s subcommand when it names one, otherwise with all of them. */
    public static CommandLine commandLineFor(String first) {
        return commandLine(first);
    }

    static CommandLine commandLine(String first) {
        CommandLine cl = new CommandLine(new Main());
        if (first != null && SUBCOMMANDS.containsKey(first)) {
            cl.addSubcommand(first, instantiate(SUBCOMMANDS.get(first)));
            return cl;
        }
        SUBCOMMANDS.forEach((name, type) -> cl.addSubcommand(name, instantiate(type)));
        cl.addSubcommand("help", new CommandLine.HelpCommand());
        return cl;
    }

    private static Object instantiate(String className) {
        try {
            return Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("pqssh subcommand " + className + " missing from the build", e);
        }
    }
}
