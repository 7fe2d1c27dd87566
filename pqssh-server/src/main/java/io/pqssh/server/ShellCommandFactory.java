package io.pqssh.server;

import java.io.IOException;

import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.apache.sshd.server.command.CommandFactory;
import org.apache.sshd.server.shell.ProcessShellFactory;

/** Runs exec requests as OpenSSH does, through {@code /bin/sh -c}, so quoting and pipes behave the same. */
public final class ShellCommandFactory implements CommandFactory {
    public static final ShellCommandFactory INSTANCE = new ShellCommandFactory();

    @Override
    public Command createCommand(ChannelSession channel, String command) throws IOException {
        return new ProcessShellFactory(command, "/bin/sh", "-c", command).createShell(channel);
    }
}
