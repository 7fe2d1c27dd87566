package io.pqssh.cli.transfer;

import io.pqssh.client.transfer.RemotePath;
import io.pqssh.client.transfer.SftpPrompt;
import io.pqssh.client.transfer.SftpShell;
import io.pqssh.client.transfer.SftpTransfers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.sftp.client.SftpClient;

import io.pqssh.client.ssh.Terminals;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pqssh sftp}: sftp's prompt over pqssh's login ({@link SftpShell} has the commands), or a batch file
 * ({@code -b}): as sftp, a batch stops at the first failing command (exit 1) unless the command starts with
 * {@code -}.
 */
@Command(name = "sftp", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Interactive file transfer (like sftp) over pqssh's login; -b FILE runs commands from FILE",
                "('-' for stdin) and stops at the first error with exit status 1.",
                "Commands: ls [-1al] [path], cd [path], pwd, lcd [path], lls, lpwd, lmkdir path, lumask umask,",
                "get/reget [-afpR] remote [local], put/reput [-afpR] local [remote], mkdir, rmdir, rm, rename old new,",
                "chmod/chown/chgrp [-h] n path, ln [-s] old new, symlink old new, cp old new, df [-hi] [path],",
                "progress, version, !cmd, bye, help."})
public final class SftpCommand implements Callable<Integer> {
    @Option(names = "-b", paramLabel = "batchfile", description = "Batch mode: commands from this file.")
    String batch;

    @Option(names = "-r", description = "Recursive get/put by default.")
    boolean recursiveDefault;

    @Mixin
    SessionOptions session = new SessionOptions();

    @Parameters(index = "0", paramLabel = "destination", description = "[user@]host[:path]")
    String destination;

    @Override
    public Integer call() throws Exception {
        List<String> lines = null;
        if (batch != null) {
            lines = batch.equals("-") ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                    .lines().toList() : Files.readAllLines(Path.of(batch));
        }
        String dest = destination;
        String startDir = null;
        RemotePath rp = RemotePath.parseOrNull(destination);
        if (rp != null) {
            dest = rp.destination();
            startDir = rp.path();
        }
        List<String> batchLines = lines;
        String start = startDir;
        String host = dest.substring(dest.lastIndexOf('@') + 1);
        return session.withSession(dest, s -> run(s, host, batchLines, start));
    }

    private int run(ClientSession s, String host, List<String> batchLines, String startDir) throws IOException {
        PrintStream out = System.out;
        boolean interactive = batchLines == null && Terminals.stdinIsTerminal();
        if (batchLines == null && !session.quiet) {
            System.err.println("Connected to " + host + ".");
        }
        try (SftpClient sftp = SftpTransfers.open(s)) {
            boolean progress = batchLines == null && !session.quiet && Terminals.isTerminal(2);
            boolean meter = Terminals.isTerminal(1);
            SftpShell shell = new SftpShell(sftp, out, System.err, new SftpShell.Mode(recursiveDefault,
                    batchLines != null, session.quiet, progress, Terminals::stdinColumns,
                    meter ? () -> Terminals.columns(1) : () -> -1));
            if (!shell.startIn(startDir)) {
                return 1;
            }
            if (batchLines != null) {
                for (String raw : batchLines) {
                    String line = raw.strip();
                    if (line.isEmpty() || line.startsWith("#")) {
                        continue;
                    }
                    // as sftp: the line is echoed as written; a leading '-' lets the batch go on after an error
                    boolean ignoreError = line.startsWith("-");
                    out.println("sftp> " + line);
                    SftpShell.Outcome r = shell.execute(ignoreError ? line.substring(1) : line);
                    if (r == SftpShell.Outcome.QUIT) {
                        return 0;
                    }
                    if (r == SftpShell.Outcome.ERROR && !ignoreError) {
                        return 1;
                    }
                }
                return 0;
            }
            if (interactive) {
                try (SftpPrompt prompt = new SftpPrompt(shell)) {
                    while (true) {
                        String line = prompt.readLine();
                        if (line == null) {
                            out.println();
                            return 0;
                        }
                        if (shell.execute(line) == SftpShell.Outcome.QUIT) {
                            return 0;
                        }
                    }
                }
            }
            // commands from a pipe are echoed after "sftp> " (sftp's rule); errors are reported and the session goes
            // on; EOF ends it with status 0. As sftp: Ctrl-C stops a running transfer, and ends the session (status 1)
            // while it waits for input. sun.misc.Signal: see ServerCommand's SIGHUP.
            sun.misc.Signal sigint = new sun.misc.Signal("INT");
            sun.misc.SignalHandler before = sun.misc.Signal.handle(sigint, signal -> {
                if (!shell.interrupt()) {
                    System.exit(1);
                }
            });
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                while (true) {
                    String line = in.readLine();
                    if (line == null) {
                        return 0;
                    }
                    out.println("sftp> " + line);
                    if (shell.execute(line) == SftpShell.Outcome.QUIT) {
                        return 0;
                    }
                }
            } finally {
                sun.misc.Signal.handle(sigint, before);
            }
        }
    }

}
