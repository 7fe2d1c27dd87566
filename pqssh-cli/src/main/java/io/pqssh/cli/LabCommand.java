package io.pqssh.cli;

import io.pqssh.cli.lab.AuthTimingCommand;
import io.pqssh.cli.lab.DecapsTimingCommand;
import io.pqssh.cli.lab.LabHandshakeCommand;
import io.pqssh.cli.lab.LabLinkCleanupCommand;
import io.pqssh.cli.lab.LabLinkCommand;
import io.pqssh.cli.lab.LoadCommand;
import io.pqssh.cli.lab.PendingCommand;
import io.pqssh.cli.lab.PrimitivesCommand;
import io.pqssh.cli.lab.TransferCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code pqssh lab}: the measurement lab. Add a subcommand by appending its class to the list. */
@Command(name = "lab", mixinStandardHelpOptions = true,
        description = "Measurement lab: emulated network links, handshake latency/bytes, server cost.",
        subcommands = {
                LabLinkCommand.class,
                LabLinkCleanupCommand.class,
                LabHandshakeCommand.class,
                PrimitivesCommand.class,
                LoadCommand.class,
                PendingCommand.class,
                TransferCommand.class,
                DecapsTimingCommand.class,
                AuthTimingCommand.class,
        })
public final class LabCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
