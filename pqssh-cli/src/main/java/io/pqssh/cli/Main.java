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
        CommandLine cl = commandLine(args.length > 0 ? args[0] : null);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            // users get one line, not a stack trace; exit 255 like ssh for connection/auth trouble
            cmd.getErr().println("pqssh " + cmd.getCommandName() + ": " + Errors.describe(ex));
            return 255;
        });
        CommandLine ssh = cl.getSubcommands().get("ssh");
        if (ssh != null) {
            // as ssh: options come before the destination; the first word after it starts the remote command
            ssh.setStopAtPositional(true);
        }
        CommandLine.IParameterExceptionHandler dflt = cl.getParameterExceptionHandler();
        cl.setParameterExceptionHandler((ex, a) -> {
            if (ssh == null || ex.getCommandLine() != ssh) {
                return dflt.handleParseException(ex, a);
            }
            ex.getCommandLine().getErr().println("pqssh ssh: " + ex.getMessage());
            ex.getCommandLine().getErr().println("usage: pqssh ssh [options] destination [command [argument ...]]"
                    + " (pqssh ssh --help)");
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
