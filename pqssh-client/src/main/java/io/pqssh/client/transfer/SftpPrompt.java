package io.pqssh.client.transfer;

import java.io.IOException;

import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * The {@code sftp> } prompt on a terminal (JLine, as sftp's libedit): arrow keys and Emacs keys edit the line, up and
 * down walk this session's history (kept in memory only, as sftp). Ctrl-C at the prompt discards the line and
 * prompts again; during a command it stops the transfer ({@code Interrupt} on stderr) and the prompt comes back;
 * Ctrl-D on an empty line ends the session.
 */
public final class SftpPrompt implements AutoCloseable {
    private final Terminal terminal;
    private final LineReader reader;

    public SftpPrompt(SftpShell shell) throws IOException {
        this.terminal = TerminalBuilder.builder().system(true).provider("ffm").nativeSignals(true).build();
        this.reader = LineReaderBuilder.builder().terminal(terminal)
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true) // '!' runs a local command, as in sftp
                .build();
        // while a command runs the terminal is back in cooked mode, so Ctrl-C is SIGINT for this process
        terminal.handle(Terminal.Signal.INT, signal -> shell.interrupt());
    }

    /** The next line, or null at end of input (Ctrl-D). */
    public String readLine() {
        while (true) {
            try {
                return reader.readLine("sftp> ");
            } catch (UserInterruptException e) {
                // as sftp: the line is dropped and a fresh prompt follows
            } catch (EndOfFileException e) {
                return null;
            }
        }
    }

    @Override
    public void close() throws IOException {
        terminal.close();
    }
}
