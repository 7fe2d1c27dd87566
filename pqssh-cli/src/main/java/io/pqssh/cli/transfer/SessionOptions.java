package io.pqssh.cli.transfer;

import java.util.ArrayList;
import java.util.List;

import io.pqssh.cli.SshCommand;
import picocli.CommandLine.Option;

/** The ssh options {@code pqssh scp} and {@code pqssh sftp} share, passed on to {@code pqssh ssh}'s login. */
final class SessionOptions {
    @Option(names = "-P", paramLabel = "port", description = "Port to connect to.")
    Integer port;

    @Option(names = "-i", paramLabel = "identity_file", description = "Identity file (repeatable).")
    List<String> identities = new ArrayList<>();

    @Option(names = "-o", paramLabel = "ssh_option", description = "ssh_config option Key=value (repeatable).")
    List<String> options = new ArrayList<>();

    @Option(names = "-F", paramLabel = "ssh_config", description = "ssh configuration file.")
    String configFile;

    @Option(names = "-J", paramLabel = "destination", description = "ProxyJump host(s).")
    String jump;

    @Option(names = "-q", description = "Quiet.")
    boolean quiet;

    @Option(names = "-v", description = "Verbose.")
    boolean[] verbose = new boolean[0];

    /** Logs in to {@code destination} as {@code pqssh ssh} would and hands the session to {@code user}. */
    int withSession(String destination, SshCommand.SessionUser user) {
        List<String> args = new ArrayList<>();
        if (port != null) {
            args.addAll(List.of("-p", port.toString()));
        }
        identities.forEach(i -> args.addAll(List.of("-i", i)));
        options.forEach(o -> args.addAll(List.of("-o", o)));
        if (configFile != null) {
            args.addAll(List.of("-F", configFile));
        }
        if (jump != null) {
            args.addAll(List.of("-J", jump));
        }
        if (quiet) {
            args.add("-q");
        }
        for (boolean v : verbose) {
            args.add("-v");
        }
        args.addAll(List.of("-T", destination));
        SshCommand ssh = SshCommand.of(args);
        return ssh.callWith(user);
    }
}
