package io.pqssh.mina;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import org.apache.sshd.server.command.AbstractCommandSupport;

/** A test exec/shell handler that answers {@code prefix + command} and exits 0: the exec path without a process. */
public final class EchoCommand extends AbstractCommandSupport {
    private final String prefix;

    public EchoCommand(String prefix, String command) {
        super(command, null);
        this.prefix = prefix;
    }

    @Override
    public void run() {
        try {
            OutputStream out = getOutputStream();
            out.write((prefix + getCommand() + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            onExit(0);
        } catch (IOException e) {
            onExit(1, e.toString());
        }
    }
}
